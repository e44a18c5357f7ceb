//! The console starts beside the window, not before it. Opening the database, migrating it and
//! reading the token took the main thread for 200–500 ms at a cold start, and the page could
//! not load meanwhile. Now the window's page loads while the console starts on the runtime;
//! the page's first command waits for [`console_ready`], and a console that could not start is
//! said in the window (and on stderr) instead of a window that never appears.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use countersign_domain::deeplink::LinkTarget;
use countersign_domain::verbatim;
use countersign_engine::error::ErrorCode;
use tauri::State;
use tokio::sync::watch;

use crate::error::{CommandError, CommandResult};

/// How the console's start went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Started {
    /// Still starting.
    Not,
    /// Serving: the window's `Desktop` state is managed.
    Yes,
    /// It could not start, and why (the same sentence stderr got).
    Failed(String),
}

/// What the window holds from its first moment, before its console has started.
pub struct Launch {
    started: watch::Receiver<Started>,
    /// A link that arrived before the UI could take it (a cold start, or a second launch
    /// while the console was starting).
    link: Mutex<Option<LinkTarget>>,
    /// The app is quitting: a console that finishes its start now withdraws at once.
    exiting: AtomicBool,
}

/// Reports the start's outcome; dropped without one (the start panicked), it reports a
/// failure, so the page never waits for ever and closing the window quits.
pub struct Reporter(watch::Sender<Started>);

impl Reporter {
    pub fn serving(&self) {
        self.0.send_replace(Started::Yes);
    }

    /// The reason, as the window will show it: hidden characters named, and short.
    pub fn failed(&self, why: &str) {
        let mut shown = verbatim::reveal(why);
        if shown.chars().count() > MAX_REASON {
            shown = shown.chars().take(MAX_REASON).collect::<String>() + "…";
        }
        self.0.send_replace(Started::Failed(shown));
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        if *self.0.borrow() == Started::Not {
            self.failed("its start stopped unexpectedly (see the log)");
        }
    }
}

/// The longest reason the window shows.
const MAX_REASON: usize = 2_000;

impl Launch {
    /// The state, and what the console's start reports through.
    pub fn new() -> (Reporter, Self) {
        let (tx, started) = watch::channel(Started::Not);
        let launch = Self {
            started,
            link: Mutex::new(None),
            exiting: AtomicBool::new(false),
        };
        (Reporter(tx), launch)
    }

    /// The app is quitting.
    pub fn exit(&self) {
        self.exiting.store(true, Ordering::SeqCst);
    }

    pub fn exiting(&self) -> bool {
        self.exiting.load(Ordering::SeqCst)
    }

    /// Whether the console's start failed (the window then quits when it is closed).
    pub fn failed(&self) -> bool {
        matches!(*self.started.borrow(), Started::Failed(_))
    }

    /// Keeps a link for the UI to take once it is ready.
    pub fn hold_link(&self, target: LinkTarget) {
        *self.link.lock().unwrap_or_else(PoisonError::into_inner) = Some(target);
    }

    pub fn take_link(&self) -> Option<LinkTarget> {
        self.link
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Waits until the console has started; its failure as the error every command gets.
    pub async fn ready(&self) -> CommandResult<()> {
        let mut started = self.started.clone();
        let outcome = match started.wait_for(|s| *s != Started::Not).await {
            Ok(s) => s.clone(),
            Err(_) => Started::Failed("its start ended without a word".into()),
        };
        match outcome {
            Started::Yes => Ok(()),
            Started::Failed(why) => Err(not_started(&why)),
            Started::Not => Err(not_started("its start ended without a word")),
        }
    }
}

fn not_started(why: &str) -> CommandError {
    CommandError::new(
        ErrorCode::ConsoleNotStarted,
        format!("Countersign's console could not start: {why}"),
    )
}

/// The page's first command: answers once the console serves, or with why it could not start.
#[tauri::command]
pub async fn console_ready(launch: State<'_, Launch>) -> CommandResult<()> {
    launch.ready().await
}

#[tauri::command]
pub fn take_link(launch: State<'_, Launch>) -> Option<LinkTarget> {
    launch.take_link()
}
