//! `Console`: the use cases every front door shares, and the change events they emit. Each
//! aggregate has its own module: approvals, artifacts, grants, events.

mod agent_tokens;
mod approvals;
mod artifacts;
mod batch;
mod clock;
mod events;
mod grants;
mod imports;
mod people;
mod phones;
mod shared;
mod team_rules;
mod watchers;

use std::sync::Arc;

use tokio::sync::broadcast;

pub use self::agent_tokens::{AGENT_TOKEN_PREFIX, AgentTokenInfo, MadeToken};
pub use self::approvals::{
    InboxGroup, InboxPage, MAX_DECLINED_AT_ONCE, MAX_NESTED_CALLS, MAX_PRESENTED_AT_ONCE,
};
pub use self::artifacts::Saved;
use self::batch::Batcher;
pub use self::batch::{BatchProbe, DEFAULT_MAX_BATCH};
pub use self::clock::Clock;
pub use self::events::{Arrival, CHANGE_EVENT, ChangeEvent, NAVIGATE_EVENT};

pub use self::grants::{GrantPreview, PreviewCall};
pub use self::imports::{ProposedRule, RuleImport, Taking};
pub use self::people::{
    INVITE_LIFETIME_MS, INVITE_PREFIX, Invitation, PersonInfo, PersonProof, READS_ONLY,
    SESSION_LIFETIME_MS, SignedIn, WINDOW_LINK_LIFETIME_MS, WINDOW_LINK_PREFIX, project_name,
};
pub use self::phones::{
    KEEP_WITHIN_MS, MAX_NAME_CHARS, NOT_KEPT, PairedPhone, Phone, PhoneProof, Proposal,
    Subscription, UNPAIRED_AFTER_MS, browser_text, phone_name,
};
use self::watchers::Watchers;
pub use crate::places::text_digest;
pub use countersign_domain::approval::{InboxEntry, Waiting};
pub use countersign_domain::submission::Submission;
use countersign_store::Store;

/// Opens the SQLite database at `path` as a console does (see [`Store::open`]).
pub async fn open_store(path: &std::path::Path) -> Result<Store, countersign_store::StoreError> {
    Store::open(path).await
}

/// Opens the PostgreSQL database at `url` as a console does (see [`Store::open_postgres`]).
pub async fn open_postgres_store(url: &str) -> Result<Store, countersign_store::StoreError> {
    Store::open_postgres(url).await
}

/// The shared engine: the store, the clock, the waiters and the change events.
#[derive(Clone)]
pub struct Console {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    /// The first-render check artifacts pass before they are saved.
    checker: crate::render_check::RenderCheck,
    batcher: Batcher,
    clock: Clock,
    watchers: Watchers,
    events: broadcast::Sender<ChangeEvent>,
    /// How many change events were published, counted before each is sent.
    changes: std::sync::atomic::AtomicU64,
    /// Set once the console is closing, so long-polls answer at once.
    closing: tokio::sync::watch::Sender<bool>,
    /// The directories no approve rule reaches: the data directory, the home's `bin`.
    protected: Arc<[String]>,
    /// Telling and hearing the other consoles on a shared database; `None` on SQLite.
    sharing: Option<shared::Sharing>,
    /// The versions of repositories' rules files (file, digest) already looked at since the
    /// console started, proposed or not: a file that cannot be proposed is not read into a
    /// proposal again with every call.
    repositories_seen: std::sync::Mutex<std::collections::HashSet<(String, String)>>,
}

impl Console {
    /// A console over an opened store.
    pub fn new(store: Store) -> Self {
        Self::with_clock(store, Clock::system())
    }

    /// A console whose clock can be moved, for tests and simulations of time.
    pub fn with_clock(store: Store, clock: Clock) -> Self {
        Self::with_options(store, clock, DEFAULT_MAX_BATCH)
    }

    /// A console writing at most `max_batch` submissions per transaction (1: one transaction
    /// per submission, the baseline group commit is measured against).
    pub fn with_options(store: Store, clock: Clock, max_batch: usize) -> Self {
        Self::with_probe(store, clock, max_batch, None)
    }

    /// A console whose batch writer calls `probe` on every submission before writing it, so
    /// tests can make a batch fail as an unforeseen fault would and see the writer go on.
    pub fn with_probe(
        store: Store,
        clock: Clock,
        max_batch: usize,
        probe: Option<BatchProbe>,
    ) -> Self {
        let data_dir = store
            .path()
            .and_then(std::path::Path::parent)
            .map(Into::into);
        Self::build(store, clock, max_batch, probe, data_dir)
    }

    /// A console over a store kept outside the data directory `dir` (on PostgreSQL): `dir`
    /// is still what no approve rule reaches.
    pub fn with_data_dir(store: Store, dir: &std::path::Path) -> Self {
        Self::build(
            store,
            Clock::system(),
            DEFAULT_MAX_BATCH,
            None,
            Some(dir.to_path_buf()),
        )
    }

    fn build(
        store: Store,
        clock: Clock,
        max_batch: usize,
        probe: Option<BatchProbe>,
        data_dir: Option<std::path::PathBuf>,
    ) -> Self {
        let batcher = Batcher::spawn(store.clone(), max_batch, probe);
        let protected = crate::places::protected(data_dir.as_deref()).into();
        let (events, _) = broadcast::channel(events::EVENT_BUFFER);
        let closing = tokio::sync::watch::Sender::new(false);
        let hearing_closes = closing.subscribe();
        Self {
            inner: Arc::new_cyclic(|inner| Inner {
                sharing: shared::Sharing::start(&store, inner.clone(), hearing_closes),
                store,
                checker: crate::render_check::RenderCheck::new(),
                batcher,
                clock,
                watchers: Watchers::default(),
                events,
                changes: std::sync::atomic::AtomicU64::new(0),
                closing,
                protected,
                repositories_seen: std::sync::Mutex::default(),
            }),
        }
    }

    /// Answers every long-poll now and every later one at once: the console is closing.
    pub fn close(&self) {
        self.inner.closing.send_replace(true);
    }

    /// The store underneath, for start-up checks and tests.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The clock in use.
    pub fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// How many approvals have an agent waiting on them right now.
    pub fn waiting(&self) -> usize {
        self.inner.watchers.len()
    }

    pub fn now(&self) -> i64 {
        self.inner.clock.now_ms()
    }
}
