//! Requests held by the process that asked them (the ACP proxy): nothing stays pending for a
//! process that is gone.
//!
//! A holder submits with `hold=true`, then waits with `GET /v1/approvals/{id}?wait=S&hold=true`,
//! again and again until the request is decided. While a held wait runs, its connection is the
//! proof the holder lives: the server dropping the handler (the connection closed) withdraws
//! the request at once. Between the submission's answer and the first wait, and between two
//! waits, the holder has a lease of [`LEASE`]: a request nobody waits on when it runs out is
//! withdrawn. So a holder killed at any moment, SIGKILL included, leaves nothing pending.

use std::collections::HashMap;

use countersign_domain::ids::AgentTokenId;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use countersign_domain::ids::ApprovalId;

use crate::console::Console;

/// How long a held request may go without a wait on it: a holder waits again at once, so this
/// is only slack for a busy machine.
pub const LEASE: Duration = Duration::from_secs(10);

/// The held requests that are still pending, with their waits.
pub struct Holds {
    console: Console,
    held: Mutex<HashMap<ApprovalId, Hold>>,
}

#[derive(Default)]
struct Hold {
    /// Whose the request is, as its submission said: `Some(None)` the console's own token's,
    /// `Some(Some(t))` the agent token `t`'s; `None` when not known here (read it from the
    /// request).
    owner: Option<Option<AgentTokenId>>,
    /// Held waits running now.
    waiting: usize,
    /// Bumped by every wait and lease, so a lease that ran out sees whether a later one
    /// took its place.
    generation: u64,
}

impl Holds {
    pub fn new(console: Console) -> Arc<Self> {
        Arc::new(Self {
            console,
            held: Mutex::new(HashMap::new()),
        })
    }

    /// `id` was just submitted held and waits for a person: its holder must come back to
    /// wait on it within [`LEASE`].
    /// `owner` is the agent token that asked it (`None`: the console's own).
    pub fn submitted(self: &Arc<Self>, id: &ApprovalId, owner: Option<AgentTokenId>) {
        self.lock().entry(id.clone()).or_default().owner = Some(owner);
        self.lease(id);
    }

    /// Whose the held request `id` is, when known here without reading it: so a held wait
    /// begins with nothing awaited between its arrival and its hold, and a waiter that goes
    /// away at once still withdraws its request.
    pub fn owner(&self, id: &ApprovalId) -> Option<Option<AgentTokenId>> {
        self.lock().get(id).and_then(|h| h.owner.clone())
    }

    /// A held wait on `id` begins; what ends it is said to the guard.
    pub fn wait(self: &Arc<Self>, id: &ApprovalId) -> Waiting {
        let mut held = self.lock();
        let hold = held.entry(id.clone()).or_default();
        hold.waiting += 1;
        hold.generation += 1;
        Waiting {
            holds: Some(self.clone()),
            id: id.clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ApprovalId, Hold>> {
        // The map is left consistent by every holder of the lock, so a panic elsewhere while
        // it was held does not make it unreadable.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a lease on `id`: should no wait on it begin before it runs out, it is withdrawn.
    fn lease(self: &Arc<Self>, id: &ApprovalId) {
        let generation = {
            let mut held = self.lock();
            let hold = held.entry(id.clone()).or_default();
            hold.generation += 1;
            hold.generation
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let holds = self.clone();
        let id = id.clone();
        runtime.spawn(async move {
            tokio::time::sleep(LEASE).await;
            let lapsed = {
                let mut held = holds.lock();
                let lapsed = held
                    .get(&id)
                    .is_some_and(|h| h.waiting == 0 && h.generation == generation);
                if lapsed {
                    held.remove(&id);
                }
                lapsed
            };
            if lapsed {
                holds
                    .withdraw(id, "its holder did not wait on it again")
                    .await;
            }
        });
    }

    /// A held wait on `id` ended: `pending` when the request still waits for a person after
    /// it, `None` when the waiter went away mid-wait.
    fn ended(self: &Arc<Self>, id: &ApprovalId, pending: Option<bool>) {
        let last = {
            let mut held = self.lock();
            let Some(hold) = held.get_mut(id) else {
                return;
            };
            hold.waiting = hold.waiting.saturating_sub(1);
            let last = hold.waiting == 0;
            if last && pending != Some(true) {
                held.remove(id);
            }
            last
        };
        match pending {
            // The holder comes back for the next wait.
            Some(true) if last => self.lease(id),
            Some(_) => {}
            None if last => {
                let holds = self.clone();
                let id = id.clone();
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move { holds.withdraw(id, "its waiter went away").await });
                }
            }
            None => {}
        }
    }

    async fn withdraw(&self, id: ApprovalId, why: &str) {
        // Already decided, expired or withdrawn: nothing to do.
        match self.console.cancel(&id).await {
            Ok(_) => tracing::info!(%id, "withdrawn: {why}"),
            Err(e) => tracing::debug!(%id, "not withdrawn ({e})"),
        }
    }
}

/// A held wait running: dropped without [`Waiting::ended`] (the waiter's connection closed,
/// so the server dropped the handler), it withdraws the request if no other wait holds it.
pub struct Waiting {
    holds: Option<Arc<Holds>>,
    id: ApprovalId,
}

impl Waiting {
    /// The wait ended with its waiter still here; `pending`: the request still waits.
    pub fn ended(mut self, pending: bool) {
        if let Some(holds) = self.holds.take() {
            holds.ended(&self.id, Some(pending));
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(holds) = self.holds.take() {
            holds.ended(&self.id, None);
        }
    }
}
