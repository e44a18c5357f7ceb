//! Wakes agents waiting on an approval when it reaches a final state.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio::sync::watch;

use countersign_domain::ids::ApprovalId;

/// One watch channel per approval someone is waiting on.
#[derive(Default)]
pub struct Watchers {
    channels: Mutex<HashMap<ApprovalId, watch::Sender<()>>>,
}

impl Watchers {
    /// A receiver that changes (or closes) when `id` is finished. Subscribe before reading the
    /// state, so a decision between the read and the wait is not missed.
    pub fn subscribe(&self, id: &ApprovalId) -> watch::Receiver<()> {
        let mut map = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        map.entry(id.clone())
            .or_insert_with(|| watch::channel(()).0)
            .subscribe()
    }

    /// Wakes everyone waiting on `id`.
    pub fn notify(&self, id: &ApprovalId) {
        let sender = self
            .channels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        if let Some(s) = sender {
            s.send_replace(());
        }
    }

    /// Wakes everyone waiting on any call: each reads its call again.
    pub fn notify_all(&self) {
        let all =
            std::mem::take(&mut *self.channels.lock().unwrap_or_else(PoisonError::into_inner));
        for s in all.into_values() {
            s.send_replace(());
        }
    }

    /// Drops the channel of `id` once nobody waits on it, so the map stays bounded.
    pub fn forget_if_unwatched(&self, id: &ApprovalId) {
        let mut map = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if map.get(id).is_some_and(|s| s.receiver_count() == 0) {
            map.remove(id);
        }
    }

    /// How many approvals have waiters (for tests and metrics).
    pub fn len(&self) -> usize {
        self.channels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}
