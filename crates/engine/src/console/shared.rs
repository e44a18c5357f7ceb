//! Consoles that share one PostgreSQL database tell each other what changed
//! (`LISTEN`/`NOTIFY`, decision 0033): a decision made through one wakes the agent waiting on
//! another, and each one's window and notifications hear of the others' calls. A notice names
//! what changed, never what it is: the console that hears it reads it from the database, so a
//! notice can neither carry nor forge a call, a decision or a rule.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError, Weak};

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use super::{ChangeEvent, Console, Inner};
use countersign_domain::ids::{ApprovalId, ArtifactId};
use countersign_store::Store;

/// What a notice says changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Change {
    Created { id: String },
    Finished { id: String },
    Result { id: String },
    ArtifactSaved { id: String },
    ArtifactDeleted { id: String },
    Grants,
    Phones,
}

/// A notice: which console sent it (so it does not act on its own) and what changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Notice {
    from: String,
    change: Change,
}

impl Change {
    /// The change a local event makes known to the other consoles; `None` for what only this
    /// console's listeners read.
    fn of(event: &ChangeEvent) -> Option<Change> {
        Some(match event {
            ChangeEvent::ApprovalCreated { approval } => Change::Created {
                id: approval.id.to_string(),
            },
            ChangeEvent::ApprovalFinished { id, .. } => Change::Finished { id: id.to_string() },
            ChangeEvent::ApprovalResult { id } => Change::Result { id: id.to_string() },
            ChangeEvent::ArtifactSaved { id } => Change::ArtifactSaved { id: id.to_string() },
            ChangeEvent::ArtifactDeleted { id } => Change::ArtifactDeleted { id: id.to_string() },
            ChangeEvent::GrantsChanged => Change::Grants,
            ChangeEvent::PhonesChanged => Change::Phones,
            ChangeEvent::Resync | ChangeEvent::PastChanged { .. } => return None,
        })
    }
}

/// This console's side of the sharing: its name among the consoles, where its notices go,
/// and whether it listens yet.
pub(super) struct Sharing {
    name: String,
    outbox: mpsc::UnboundedSender<Notice>,
    listening: watch::Receiver<bool>,
}

impl Sharing {
    /// Starts telling and hearing on `store`'s database, for the console `inner` will be.
    /// `None` on SQLite, which only one console opens.
    /// Hearing stops once `closing` is set, giving its connection back before the store
    /// closes.
    pub(super) fn start(
        store: &Store,
        inner: Weak<Inner>,
        closing: watch::Receiver<bool>,
    ) -> Option<Sharing> {
        if !store.is_postgres() {
            return None;
        }
        let name = ulid::Ulid::new().to_string();
        let (outbox, queued) = mpsc::unbounded_channel();
        let (heard, listening) = watch::channel(false);
        tokio::spawn(tell(store.clone(), queued));
        let hearing = Hearing {
            store: store.clone(),
            name: name.clone(),
            inner,
            heard,
            seen: Mutex::default(),
        };
        tokio::spawn(hearing.run(closing));
        Some(Sharing {
            name,
            outbox,
            listening,
        })
    }

    /// Sends `event` to the other consoles, if they should hear of it. In order: notices go
    /// out one at a time, after the change they name was committed.
    pub(super) fn tell(&self, event: &ChangeEvent) {
        if let Some(change) = Change::of(event) {
            let _ = self.outbox.send(Notice {
                from: self.name.clone(),
                change,
            });
        }
    }

    /// Waits until this console hears the others.
    pub(super) async fn listening(&self) {
        let mut rx = self.listening.clone();
        let _ = rx.wait_for(|l| *l).await;
    }
}

/// Sends the notices, one at a time and in order.
async fn tell(store: Store, mut queued: mpsc::UnboundedReceiver<Notice>) {
    while let Some(notice) = queued.recv().await {
        let Ok(payload) = serde_json::to_string(&notice) else {
            continue;
        };
        if let Err(e) = store.notify(&payload).await {
            tracing::warn!(error = %e, "could not tell the other consoles of a change");
        }
    }
}

/// How long to wait before listening again after the database refused.
const RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// How many calls' `created` notices are remembered, so a notice repeated (or forged again)
/// for a call already announced is not announced twice.
const SEEN: usize = 4_096;

/// What hears the other consoles.
struct Hearing {
    store: Store,
    name: String,
    inner: Weak<Inner>,
    heard: watch::Sender<bool>,
    /// The calls announced from notices, oldest first.
    seen: Mutex<VecDeque<ApprovalId>>,
}

impl Hearing {
    /// Hears the other consoles' notices and acts on them as on this console's own changes,
    /// until the console closes or is gone. After a lost connection, everything is read again
    /// (`Resync`) and every waiting agent looks again, since notices may have been missed.
    async fn run(self, mut closing: watch::Receiver<bool>) {
        let mut listener = loop {
            let listened = tokio::select! {
                l = self.store.listen() => l,
                _ = closing.wait_for(|c| *c) => return,
            };
            match listened {
                Ok(Some(l)) => break l,
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen to the other consoles yet");
                    if self.inner.strong_count() == 0 {
                        return;
                    }
                    tokio::time::sleep(RETRY).await;
                }
            }
        };
        self.heard.send_replace(true);
        loop {
            let next = tokio::select! {
                next = listener.next() => next,
                // The listener's connection goes back before the store closes.
                _ = closing.wait_for(|c| *c) => return,
            };
            let Some(inner) = self.inner.upgrade() else {
                return;
            };
            let console = Console { inner };
            match next {
                Ok(Some(payload)) => self.heard(&console, &payload).await,
                Err(e) if e.is_closed() => return,
                Ok(None) | Err(_) => {
                    if let Err(e) = &next {
                        tracing::warn!(error = %e, "lost the other consoles; listening again");
                        tokio::time::sleep(RETRY).await;
                    }
                    console.inner.watchers.notify_all();
                    console.emit_local(ChangeEvent::Resync);
                }
            }
        }
    }

    /// Acts on another console's notice: reads what it names and tells the console's own
    /// waiters and listeners. A notice that is not one, names nothing known or announces a
    /// call already announced is dropped; a waiting agent is woken only by a call that is
    /// decided.
    async fn heard(&self, console: &Console, payload: &str) {
        let Ok(notice) = serde_json::from_str::<Notice>(payload) else {
            tracing::warn!("a notice on the consoles' channel that is not one: dropped");
            return;
        };
        if notice.from == self.name {
            return;
        }
        let approval = |id: &str| ApprovalId::parse(id).ok();
        let artifact = |id: &str| ArtifactId::parse(id).ok();
        let event = match &notice.change {
            Change::Created { id } => match approval(id) {
                Some(id) if self.first_time(&id) => match console.approval(&id).await {
                    Ok(a) => Some(ChangeEvent::ApprovalCreated {
                        approval: Box::new((&a).into()),
                    }),
                    Err(_) => None,
                },
                _ => None,
            },
            Change::Finished { id } => match approval(id) {
                Some(id) => match console.approval(&id).await {
                    Ok(a) if a.status.is_final() => {
                        console.inner.watchers.notify(&id);
                        Some(ChangeEvent::ApprovalFinished {
                            id,
                            status: a.status,
                        })
                    }
                    _ => None,
                },
                None => None,
            },
            Change::Result { id } => approval(id).map(|id| ChangeEvent::ApprovalResult { id }),
            Change::ArtifactSaved { id } => {
                artifact(id).map(|id| ChangeEvent::ArtifactSaved { id })
            }
            Change::ArtifactDeleted { id } => {
                artifact(id).map(|id| ChangeEvent::ArtifactDeleted { id })
            }
            Change::Grants => Some(ChangeEvent::GrantsChanged),
            Change::Phones => Some(ChangeEvent::PhonesChanged),
        };
        if let Some(event) = event {
            console.emit_local(event);
        }
    }

    /// Whether `id` is announced here for the first time (remembering it).
    fn first_time(&self, id: &ApprovalId) -> bool {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.contains(id) {
            return false;
        }
        if seen.len() == SEEN {
            seen.pop_front();
        }
        seen.push_back(id.clone());
        true
    }
}

impl Console {
    /// Waits until this console hears the other consoles on its database (at once on
    /// SQLite): a console serves agents only once a decision made elsewhere reaches them.
    pub async fn listening(&self) {
        if let Some(s) = &self.inner.sharing {
            s.listening().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_what_changed_and_nothing_else() {
        let id = ApprovalId::generate();
        let change = Change::of(&ChangeEvent::ApprovalFinished {
            id: id.clone(),
            status: countersign_domain::approval::Status::Approved,
        })
        .unwrap();
        let text = serde_json::to_string(&Notice {
            from: "A".into(),
            change,
        })
        .unwrap();
        assert_eq!(
            text,
            format!(r#"{{"from":"A","change":{{"kind":"finished","id":"{id}"}}}}"#)
        );
        assert!(Change::of(&ChangeEvent::Resync).is_none());
        assert!(
            serde_json::from_str::<Notice>(r#"{"from":"A","change":{"kind":"approve"}}"#).is_err()
        );
    }
}
