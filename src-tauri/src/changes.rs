//! Which changes reach the page, and when. A call a rule decided changes nothing the person
//! sees but History, so with agents working beside an idle window it must cost the window
//! nothing: such changes are held back while no page on screen shows them, and reach a page
//! that does as one summary, at most once per [`QUIET_EVERY`]. Everything the inbox shows (a
//! call that waits, one that left, artifacts, a resync) goes at once.

use countersign_domain::approval::Status;
use countersign_engine::console::ChangeEvent;

/// The shortest time between two summaries of held-back changes.
pub const QUIET_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// The page the window shows, as far as changes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    Inbox,
    History,
    Grants,
    Settings,
    Artifact,
    Approval,
    /// A page this module does not know: it is sent everything.
    Other,
}

impl Page {
    /// The page the UI named (`set_view`).
    pub fn named(name: &str) -> Self {
        match name {
            "inbox" => Self::Inbox,
            "history" => Self::History,
            "grants" => Self::Grants,
            "settings" => Self::Settings,
            "artifact" => Self::Artifact,
            "approval" => Self::Approval,
            _ => Self::Other,
        }
    }

    /// Whether it draws decided calls and their results (History, a call's own page).
    fn shows_past(self) -> bool {
        matches!(self, Self::History | Self::Approval | Self::Other)
    }

    /// Whether it draws grants and their uses.
    fn shows_grants(self) -> bool {
        matches!(
            self,
            Self::Grants | Self::Artifact | Self::Approval | Self::Other
        )
    }
}

/// Where a change goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// To the page at once: the inbox, the sidebar or everything depends on it.
    Now,
    /// Held back: a decided call or a result (History).
    Past,
    /// Held back: a grant made, used or revoked (the Grants page).
    Grants,
}

/// Where `change` goes.
pub fn reach(change: &ChangeEvent) -> Reach {
    match change {
        ChangeEvent::ApprovalCreated { approval } if approval.status != Status::Pending => {
            Reach::Past
        }
        ChangeEvent::ApprovalResult { .. } | ChangeEvent::PastChanged { .. } => Reach::Past,
        ChangeEvent::GrantsChanged => Reach::Grants,
        ChangeEvent::ApprovalCreated { .. }
        | ChangeEvent::ApprovalFinished { .. }
        | ChangeEvent::ArtifactSaved { .. }
        | ChangeEvent::ArtifactDeleted { .. }
        | ChangeEvent::PhonesChanged
        | ChangeEvent::Resync => Reach::Now,
    }
}

/// Whether `change` can change how many calls wait (the tray's line).
pub fn moves_waiting(change: &ChangeEvent) -> bool {
    match change {
        ChangeEvent::ApprovalCreated { approval } => approval.status == Status::Pending,
        ChangeEvent::ApprovalFinished { .. }
        | ChangeEvent::ArtifactDeleted { .. }
        | ChangeEvent::Resync => true,
        ChangeEvent::ApprovalResult { .. }
        | ChangeEvent::ArtifactSaved { .. }
        | ChangeEvent::GrantsChanged
        | ChangeEvent::PhonesChanged
        | ChangeEvent::PastChanged { .. } => false,
    }
}

/// The changes held back, as counts: what they are does not matter, only that pages showing
/// them read again.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Held {
    past: u32,
    grants: bool,
}

impl Held {
    /// Takes in one change; `false` if it is not one to hold back.
    pub fn hold(&mut self, change: &ChangeEvent) -> bool {
        match (reach(change), change) {
            (Reach::Now, _) => return false,
            (Reach::Past, ChangeEvent::PastChanged { count }) => {
                self.past = self.past.saturating_add(*count);
            }
            (Reach::Past, _) => self.past = self.past.saturating_add(1),
            (Reach::Grants, _) => self.grants = true,
        }
        true
    }

    /// Whether `page` shows something held.
    pub fn due_on(&self, page: Page) -> bool {
        (self.past > 0 && page.shows_past()) || (self.grants && page.shows_grants())
    }

    /// What `page` shows of what is held, as changes to send; the rest stays held.
    pub fn take_for(&mut self, page: Page) -> Vec<ChangeEvent> {
        let mut out = Vec::new();
        if self.past > 0 && page.shows_past() {
            out.push(ChangeEvent::PastChanged {
                count: std::mem::take(&mut self.past),
            });
        }
        if self.grants && page.shows_grants() {
            self.grants = false;
            out.push(ChangeEvent::GrantsChanged);
        }
        out
    }

    /// Forgets everything held: the page reads everything again anyway.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use countersign_domain::ids::ApprovalId;
    use countersign_engine::console::Arrival;

    fn created(status: Status) -> ChangeEvent {
        ChangeEvent::ApprovalCreated {
            approval: Box::new(Arrival {
                id: ApprovalId::generate(),
                status,
                tool: countersign_domain::tool::ToolAddress::parse("bench.shell").unwrap(),
                requester: "agent".into(),
                title: "Run a command".into(),
                group: countersign_engine::console::InboxGroup::new("agent".into(), None),
                created_at: 1,
                parent: None,
            }),
        }
    }

    #[test]
    fn a_rule_hit_is_held_while_the_inbox_shows_and_a_waiting_call_never_is() {
        let mut held = Held::default();
        // A rule's hit: the call approved at once, its grant's use counted.
        assert!(held.hold(&created(Status::Approved)));
        assert!(held.hold(&ChangeEvent::GrantsChanged));
        assert!(held.hold(&ChangeEvent::ApprovalResult {
            id: ApprovalId::generate()
        }));
        assert!(!held.due_on(Page::Inbox));
        assert!(held.take_for(Page::Inbox).is_empty());
        assert!(held.take_for(Page::Settings).is_empty());
        // What the inbox shows is never held.
        for now in [
            created(Status::Pending),
            ChangeEvent::ApprovalFinished {
                id: ApprovalId::generate(),
                status: Status::Declined,
            },
            ChangeEvent::Resync,
            ChangeEvent::PhonesChanged,
        ] {
            assert!(!held.hold(&now), "{now:?}");
        }
        // History opened: one summary of the two past changes; the grant's use stays held
        // until a page shows grants.
        assert!(held.due_on(Page::History));
        assert_eq!(
            held.take_for(Page::History),
            vec![ChangeEvent::PastChanged { count: 2 }]
        );
        assert!(!held.due_on(Page::History));
        assert!(held.due_on(Page::Grants));
        assert_eq!(
            held.take_for(Page::Grants),
            vec![ChangeEvent::GrantsChanged]
        );
        assert_eq!(held, Held::default());
    }

    #[test]
    fn a_page_not_known_here_is_sent_everything() {
        let mut held = Held::default();
        held.hold(&created(Status::Approved));
        held.hold(&ChangeEvent::GrantsChanged);
        assert_eq!(Page::named("a page added later"), Page::Other);
        assert_eq!(held.take_for(Page::Other).len(), 2);
    }

    #[test]
    fn the_tray_recounts_only_when_waiting_calls_can_change() {
        assert!(!moves_waiting(&created(Status::Approved)));
        assert!(!moves_waiting(&ChangeEvent::GrantsChanged));
        assert!(moves_waiting(&created(Status::Pending)));
        assert!(moves_waiting(&ChangeEvent::Resync));
    }
}
