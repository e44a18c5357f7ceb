//! What the window's commands share: the running console and the window's own state.

use std::sync::{Mutex, PoisonError};

use countersign_engine::server::Server;

use crate::settings::Prefs;

/// The running console and what the window keeps beside it.
pub struct Desktop {
    pub server: Server,
    prefs: Mutex<Prefs>,
    /// The page the UI shows: notifications the person is already looking at are skipped, and
    /// changes no page on screen shows are held back (`changes.rs`).
    view: tokio::sync::watch::Sender<String>,
    /// History's export running now, if any.
    pub exports: crate::exports::Exports,
    /// The phone's listener while it is on.
    pub phone: tokio::sync::Mutex<Option<countersign_phone::PhoneServer>>,
    /// The listener for agents on other machines while it is on.
    pub machines: tokio::sync::Mutex<Option<countersign_phone::team::TeamListener>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Desktop {
    /// Wraps a started console.
    pub fn new(server: Server) -> Self {
        let prefs = Prefs::load(server.dir().root());
        Self {
            server,
            prefs: Mutex::new(prefs),
            view: tokio::sync::watch::Sender::new("inbox".into()),
            exports: crate::exports::Exports::default(),
            phone: tokio::sync::Mutex::new(None),
            machines: tokio::sync::Mutex::new(None),
        }
    }

    pub fn prefs(&self) -> Prefs {
        lock(&self.prefs).clone()
    }

    /// Changes and saves the preferences.
    pub fn set_prefs(&self, prefs: Prefs) -> std::io::Result<()> {
        prefs.save(self.server.dir().root())?;
        *lock(&self.prefs) = prefs;
        Ok(())
    }

    pub fn view(&self) -> String {
        self.view.borrow().clone()
    }

    pub fn set_view(&self, page: String) {
        self.view.send_if_modified(|v| {
            let changed = *v != page;
            *v = page;
            changed
        });
    }

    /// The page the UI shows, as it changes.
    pub fn views(&self) -> tokio::sync::watch::Receiver<String> {
        self.view.subscribe()
    }
}
