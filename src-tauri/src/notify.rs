//! Desktop notifications for new pending approvals: coalesced into bursts, skipped while the
//! person is looking at the inbox, and opening the approval (or the inbox) when clicked.
//!
//! They go through Tauri's notification plugin on every OS; it reports a click on Linux (the
//! desktop notification server's `default` action), macOS and Windows alike. See
//! docs/decisions/0013-packages-links-notifications.md.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use countersign_domain::approval::Status;
use countersign_domain::deeplink::LinkTarget;
use countersign_domain::verbatim::reveal;
use countersign_engine::console::Arrival;
use countersign_engine::console::{ChangeEvent, Waiting};
use tauri::{AppHandle, Manager as _};
use tauri_plugin_notification::NotificationExt as _;
use tokio::sync::broadcast::error::RecvError;

use crate::links;
use crate::state::Desktop;

/// A burst of new approvals ends once none has arrived for this long, and makes one
/// notification.
const QUIET: Duration = Duration::from_millis(400);
/// A burst is announced at the latest this long after its first approval, even while more keep
/// arriving: a stream that never pauses is not left unannounced.
const LONGEST: Duration = Duration::from_secs(5);
/// How many distinct tools a burst's notification names.
const NAMED: usize = 5;
/// How many distinct agents a burst counts by itself (when what waits cannot be read).
const AGENTS_COUNTED: usize = 100;

/// New pending approvals that arrived together: what the notification says, kept small
/// however many arrive.
struct Burst {
    first: Arrival,
    /// How many arrived that the listener saw.
    count: u64,
    /// The listener fell behind during the burst: more may have arrived than it counted.
    missed: bool,
    /// The first distinct tools, at most [`NAMED`] + 1 (one more says there are more).
    tools: Vec<String>,
    /// The distinct requesters, at most [`AGENTS_COUNTED`].
    agents: Vec<String>,
}

impl Burst {
    fn new(first: Arrival) -> Self {
        Self {
            tools: vec![first.tool.to_string()],
            agents: vec![first.requester.clone()],
            first,
            count: 1,
            missed: false,
        }
    }

    fn add(&mut self, a: &Arrival) {
        self.count += 1;
        if self.agents.len() < AGENTS_COUNTED && !self.agents.contains(&a.requester) {
            self.agents.push(a.requester.clone());
        }
        let tool = a.tool.to_string();
        if self.tools.len() <= NAMED && !self.tools.contains(&tool) {
            self.tools.push(tool);
        }
    }
}

/// What the listener saw next.
enum Next {
    Pending(Box<Arrival>),
    /// It fell behind and missed some events.
    Missed,
    Closed,
}

/// Listens for new pending approvals and notifies, once per burst.
pub fn spawn(app: AppHandle, mut events: tokio::sync::broadcast::Receiver<ChangeEvent>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let mut burst = match next(&mut events).await {
                Next::Pending(a) => Burst::new(*a),
                Next::Missed => continue,
                Next::Closed => return,
            };
            let last = tokio::time::Instant::now() + LONGEST;
            loop {
                let until = (tokio::time::Instant::now() + QUIET).min(last);
                tokio::select! {
                    n = next(&mut events) => match n {
                        Next::Pending(a) => burst.add(&a),
                        Next::Missed => burst.missed = true,
                        Next::Closed => break,
                    },
                    _ = tokio::time::sleep_until(until) => break,
                }
            }
            if should_notify(&app) {
                let waiting = match app.try_state::<Desktop>() {
                    Some(d) => d.server.console.waiting_calls().await.ok(),
                    None => None,
                };
                // A lone approval withdrawn or decided meanwhile is not announced.
                if burst.count == 1 && !burst.missed {
                    let still = match app.try_state::<Desktop>() {
                        Some(d) => d.server.console.approval(&burst.first.id).await.ok(),
                        None => None,
                    };
                    if still.is_some_and(|a| a.status != Status::Pending) {
                        continue;
                    }
                }
                if let Some(texts) = texts(&burst, waiting) {
                    show(&app, texts);
                }
            }
        }
    });
}

async fn next(events: &mut tokio::sync::broadcast::Receiver<ChangeEvent>) -> Next {
    loop {
        match events.recv().await {
            Ok(ChangeEvent::ApprovalCreated { approval }) if approval.status == Status::Pending => {
                return Next::Pending(approval);
            }
            Ok(_) => {}
            Err(RecvError::Lagged(_)) => return Next::Missed,
            Err(RecvError::Closed) => return Next::Closed,
        }
    }
}

fn should_notify(app: &AppHandle) -> bool {
    let Some(d) = app.try_state::<Desktop>() else {
        return false;
    };
    if !d.prefs().notifications {
        return false;
    }
    let watching = app
        .get_webview_window("main")
        .is_some_and(|w| w.is_visible().unwrap_or(false) && w.is_focused().unwrap_or(false));
    !(watching && d.view() == "inbox")
}

/// Text an agent sent, as a notification may show it: hidden characters as their labelled
/// marks.
fn safe(text: &str) -> String {
    reveal(text)
}

/// The body as the OS's notification server takes it. Linux servers read a little markup in
/// bodies (`<b>`, `<a href>`), so it is escaped there; macOS and Windows show text as given.
fn for_server(body: &str) -> String {
    if cfg!(all(unix, not(target_os = "macos"))) {
        body.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    } else {
        body.to_owned()
    }
}

/// The summary, body and target of the notification for a burst of new approvals, given what
/// is waiting now (when it could be read). None when nothing is waiting any more.
fn texts(burst: &Burst, waiting: Option<Waiting>) -> Option<(String, String, LinkTarget)> {
    if burst.count == 1 && !burst.missed {
        let one = &burst.first;
        return Some((
            format!("Approval needed: {}", one.tool),
            format!("{} asks: {}", safe(&one.requester), safe(&one.title)),
            LinkTarget::Approval { id: one.id.clone() },
        ));
    }
    // Unread, the burst counts itself.
    let waiting = waiting.unwrap_or(Waiting {
        calls: i64::try_from(burst.count).unwrap_or(i64::MAX),
        agents: i64::try_from(burst.agents.len()).unwrap_or(i64::MAX),
    });
    if waiting.calls <= 0 {
        return None;
    }
    let summary = crate::tray::waiting_label(waiting);
    let named = burst.tools.iter().take(NAMED).map(|t| safe(t));
    let named = named.collect::<Vec<_>>().join(", ");
    let mut body = if burst.missed {
        format!("New: {named}")
    } else {
        format!("{} new: {named}", burst.count)
    };
    if burst.tools.len() > NAMED {
        body.push_str(" and other tools");
    }
    Some((summary, body, LinkTarget::Inbox))
}

/// How many shown notifications remember what a click opens; older ones open the inbox.
const REMEMBERED: usize = 64;

/// What each recent notification opens when clicked, by the notification's id.
#[derive(Default)]
pub struct Targets {
    next: Mutex<(i32, VecDeque<(i32, LinkTarget)>)>,
}

impl Targets {
    fn remember(&self, target: LinkTarget) -> i32 {
        let mut guard = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (next, shown) = &mut *guard;
        *next = next.wrapping_add(1).max(1);
        if shown.len() == REMEMBERED {
            shown.pop_front();
        }
        shown.push_back((*next, target));
        *next
    }

    fn target(&self, id: i32) -> LinkTarget {
        let guard = self
            .next
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard
            .1
            .iter()
            .find(|(n, _)| *n == id)
            .map_or(LinkTarget::Inbox, |(_, t)| t.clone())
    }
}

/// Opens what a clicked notification names. Registered before the first notification is shown
/// (the plugin reports clicks only for notifications shown after a handler exists).
pub fn on_click(app: &AppHandle) {
    app.manage(Targets::default());
    let handle = app.clone();
    let registered = app.notification().on_action(move |performed| {
        if performed.action_id() != "tap" {
            return;
        }
        let target = match (performed.notification(), handle.try_state::<Targets>()) {
            (Some(n), Some(targets)) => targets.target(n.id()),
            _ => LinkTarget::Inbox,
        };
        // On Linux a click arrives as a signal any program on the session bus can send, so
        // it shows the window without taking the keyboard, like a link.
        links::open(&handle, target, links::Focus::Ask);
    });
    if let Err(e) = registered {
        tracing::warn!(error = %e, "clicks on notifications will not open anything");
    }
}

fn show(app: &AppHandle, (summary, body, target): (String, String, LinkTarget)) {
    let id = match app.try_state::<Targets>() {
        Some(targets) => targets.remember(target),
        None => 0,
    };
    let shown = app
        .notification()
        .builder()
        .id(id)
        .title(summary)
        .body(for_server(&body))
        .show();
    if let Err(e) = shown {
        tracing::warn!(error = %e, "desktop notification failed");
    }
}

/// Whether notifications reach the person, in words for the Settings page.
pub async fn status(app: &AppHandle) -> String {
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        let _ = app;
        let asked = tauri::async_runtime::spawn_blocking(notify_rust::get_server_information);
        match tokio::time::timeout(Duration::from_secs(2), asked).await {
            Ok(Ok(Ok(server))) => format!(
                "Shown by {} {}; clicking one opens the approval.",
                server.name, server.version
            ),
            _ => "No notification service answers in this desktop session: waiting approvals \
                  show only in the window and the tray."
                .to_owned(),
        }
    }
    #[cfg(any(target_os = "macos", windows))]
    {
        // The plugin cannot read the OS's setting on desktop (it answers "granted"), so the
        // page says where the setting lives rather than claim a state.
        let _ = app;
        #[cfg(target_os = "macos")]
        let setting = "System Settings → Notifications → Countersign";
        #[cfg(windows)]
        let setting = "Settings → System → Notifications";
        format!(
            "Sent to the system, which shows them unless turned off in {setting}; clicking \
             one while it is on screen opens the approval."
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval(requester: &str, title: &str) -> Arrival {
        Arrival {
            id: countersign_domain::ids::ApprovalId::generate(),
            status: Status::Pending,
            tool: countersign_domain::tool::ToolAddress::parse("claude-code.Bash").unwrap(),
            requester: requester.to_owned(),
            title: title.to_owned(),
            group: countersign_engine::console::InboxGroup::new(requester.to_owned(), None),
            created_at: 0,
            parent: None,
        }
    }

    fn on(tool: &str) -> Arrival {
        let mut a = approval("agent", "Run");
        a.tool = countersign_domain::tool::ToolAddress::parse(tool).unwrap();
        a
    }

    #[test]
    fn a_burst_of_a_thousand_is_one_notification_of_bounded_size() {
        let mut burst = Burst::new(on("a.one"));
        for i in 1..1000 {
            burst.add(&on(&format!("a.t{}", i % 7)));
        }
        assert_eq!(burst.count, 1000);
        assert!(burst.tools.len() <= NAMED + 1, "{:?}", burst.tools);
        let w = |calls, agents| Some(Waiting { calls, agents });
        let (summary, body, target) = texts(&burst, w(1004, 3)).unwrap();
        assert_eq!(summary, "1004 calls from 3 agents waiting");
        assert_eq!(
            body,
            "1000 new: a.one, a.t1, a.t2, a.t3, a.t4 and other tools"
        );
        assert_eq!(target, LinkTarget::Inbox);
        // Unread, the burst counts itself; nothing waiting any more, nothing is said.
        assert_eq!(
            texts(&burst, None).unwrap().0,
            "1000 calls from 1 agent waiting"
        );
        assert!(texts(&burst, w(0, 0)).is_none());
        // Fallen behind: the count it saw is not said, what waits is.
        let mut behind = Burst::new(on("a.one"));
        behind.missed = true;
        let (summary, body, _) = texts(&behind, w(40, 2)).unwrap();
        assert_eq!(
            (summary.as_str(), body.as_str()),
            ("40 calls from 2 agents waiting", "New: a.one")
        );
        let mut two = Burst::new(on("a.one"));
        two.add(&approval("Codex", "Run"));
        assert_eq!(
            texts(&two, w(2, 2)).unwrap().1,
            "2 new: a.one, claude-code.Bash"
        );
        // Unread, the burst counts its agents itself.
        assert_eq!(
            texts(&two, None).unwrap().0,
            "2 calls from 2 agents waiting"
        );
    }

    #[test]
    fn notifications_carry_marks_and_no_markup() {
        let one = Burst::new(approval("<b>Claude</b>\u{202E}", "Run \u{1b}[2Jtests\u{7}"));
        let (_, body, _) = texts(
            &one,
            Some(Waiting {
                calls: 1,
                agents: 1,
            }),
        )
        .unwrap();
        assert_eq!(
            body,
            "<b>Claude</b>⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩ asks: \
             Run ⟨ANSI escape ESC[2J⟩tests⟨U+0007 BELL⟩"
        );
        assert!(!body.chars().any(|c| c.is_control()), "{body:?}");
        #[cfg(all(unix, not(target_os = "macos")))]
        assert_eq!(
            for_server(&body),
            "&lt;b&gt;Claude&lt;/b&gt;⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩ asks: \
             Run ⟨ANSI escape ESC[2J⟩tests⟨U+0007 BELL⟩"
        );
    }

    #[test]
    fn a_click_opens_what_its_notification_named_and_old_ones_the_inbox() {
        let targets = Targets::default();
        let a = countersign_domain::ids::ApprovalId::generate();
        let first = targets.remember(LinkTarget::Approval { id: a.clone() });
        assert_eq!(targets.target(first), LinkTarget::Approval { id: a });
        for _ in 0..REMEMBERED {
            targets.remember(LinkTarget::Inbox);
        }
        assert_eq!(
            targets.target(first),
            LinkTarget::Inbox,
            "forgotten, not wrong"
        );
        assert_eq!(targets.target(-7), LinkTarget::Inbox);
    }
}
