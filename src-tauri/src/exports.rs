//! History's export while it runs: one at a time, and how it is cancelled. Kept apart from
//! the export itself, so the window's state holds it without reaching into the export.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The export running now, if any: one at a time, and its cancel.
#[derive(Default)]
pub struct Exports {
    running: std::sync::Mutex<Option<Arc<AtomicBool>>>,
}

impl Exports {
    pub fn start(&self) -> Option<Arc<AtomicBool>> {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if running.is_some() {
            return None;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        *running = Some(cancel.clone());
        Some(cancel)
    }

    pub fn end(&self) {
        *self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    pub fn cancel(&self) {
        if let Some(c) = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
        {
            c.store(true, Ordering::Relaxed);
        }
    }
}
