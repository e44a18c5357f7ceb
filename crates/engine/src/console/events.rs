//! Change events: what changed, published to every listener (the window, notifications).

use serde::Serialize;
use tokio::sync::broadcast;
use ts_rs::TS;

use super::{Console, InboxGroup};
use countersign_domain::approval::{Approval, Status};
use countersign_domain::ids::{ApprovalId, ArtifactId};
use countersign_domain::tool::ToolAddress;

/// The name under which change events are forwarded to the UI.
pub const CHANGE_EVENT: &str = "countersign://change";
/// The name under which the window is told to open a page (deep links, notifications).
pub const NAVIGATE_EVENT: &str = "countersign://navigate";
/// Room for change events a slow listener has not read yet.
pub(super) const EVENT_BUFFER: usize = 1024;

/// What changed, so the UI can refresh what shows it. Carries ids, not whole records,
/// except a new approval, which a notification describes.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum ChangeEvent {
    /// A new approval: pending, or already approved by a grant. What a listener needs to
    /// place and announce it, not the whole approval (its card is read when it is shown).
    ApprovalCreated {
        approval: Box<Arrival>,
    },
    /// An approval reached a final state (decided, expired, cancelled).
    ApprovalFinished {
        id: ApprovalId,
        status: Status,
    },
    /// A result was attached.
    ApprovalResult {
        id: ApprovalId,
    },
    ArtifactSaved {
        id: ArtifactId,
    },
    ArtifactDeleted {
        id: ArtifactId,
    },
    /// Grants were created, used or revoked.
    GrantsChanged,
    /// A phone was paired, renamed, revoked or unpaired for disuse.
    PhonesChanged,
    /// Changes were missed (a listener fell behind): read everything again.
    Resync,
    /// Past calls changed while the inbox did not: `count` calls decided by a rule or results
    /// attached. Never published by the console: a listener that holds those changes back
    /// while nothing on screen shows them (the window) sends this in their place, a few times
    /// a second at most.
    PastChanged {
        count: u32,
    },
}

/// A new approval as a change event carries it: a few bounded fields, however large the call.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct Arrival {
    pub id: ApprovalId,
    pub status: Status,
    pub tool: ToolAddress,
    /// Who asks (the requester's name).
    pub requester: String,
    /// The card's title.
    pub title: String,
    /// Who asks from where, with the names' hidden-character marks: the inbox's chip.
    pub group: InboxGroup,
    #[ts(type = "number")]
    pub created_at: i64,
    /// The run it is part of, for a nested call.
    pub parent: Option<ApprovalId>,
}

impl From<&Approval> for Arrival {
    fn from(a: &Approval) -> Self {
        Self {
            id: a.id.clone(),
            status: a.status,
            tool: a.tool.clone(),
            requester: a.requester.name.clone(),
            title: a.call.title().to_owned(),
            group: InboxGroup::new(a.requester.name.clone(), a.requester.cwd.clone()),
            created_at: a.created_at,
            parent: a.parent.clone(),
        }
    }
}

impl Console {
    /// Change events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ChangeEvent> {
        self.inner.events.subscribe()
    }

    /// How many change events have been published so far. A reader that read something, then
    /// began listening, missed nothing if this has not moved since before its read.
    pub fn changes(&self) -> u64 {
        self.inner.changes.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Publishes `event` to this console's listeners and tells the other consoles on its
    /// database.
    pub(super) fn emit(&self, event: ChangeEvent) {
        if let Some(sharing) = &self.inner.sharing {
            sharing.tell(&event);
        }
        self.emit_local(event);
    }

    /// Publishes `event` to this console's listeners only.
    pub(super) fn emit_local(&self, event: ChangeEvent) {
        self.inner
            .changes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // No listener is fine: the desktop may not be attached.
        let _ = self.inner.events.send(event);
    }
}

#[cfg(test)]
mod tests {
    /// The UI imports these names from a generated file, so they are declared only here.
    #[test]
    fn export_event_names() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/api/types");
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "// Generated from crates/engine/src/console/events.rs by `cargo test`. Do not edit.\n\
             export const CHANGE_EVENT = {:?};\nexport const NAVIGATE_EVENT = {:?};\n",
            super::CHANGE_EVENT,
            super::NAVIGATE_EVENT,
        );
        std::fs::write(dir.join("names.ts"), text).unwrap();
    }
}
