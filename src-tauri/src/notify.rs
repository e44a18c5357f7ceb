//! Desktop notifications for new pending approvals: coalesced into bursts, skipped while the
//! person is looking at the inbox, and opening the approval (or the inbox) when activated.

use std::time::Duration;

use countersign::console::ChangeEvent;
use countersign::domain::approval::{Approval, Status};
use countersign::domain::deeplink::LinkTarget;
use countersign::domain::verbatim::reveal;
use tauri::{AppHandle, Manager as _};
use tokio::sync::broadcast::error::RecvError;

use crate::links;
use crate::state::Desktop;

/// How long to wait for more approvals before notifying, so a burst makes one notification.
const BURST: Duration = Duration::from_millis(400);

/// Listens for new pending approvals and notifies.
pub fn spawn(app: AppHandle, mut events: tokio::sync::broadcast::Receiver<ChangeEvent>) {
    tauri::async_runtime::spawn(async move {
        loop {
            let first = match next_pending(&mut events).await {
                Some(a) => a,
                None => return,
            };
            let mut burst = vec![first];
            let until = tokio::time::Instant::now() + BURST;
            loop {
                tokio::select! {
                    a = next_pending(&mut events) => match a {
                        Some(a) => burst.push(a),
                        None => break,
                    },
                    _ = tokio::time::sleep_until(until) => break,
                }
            }
            if should_notify(&app) {
                show(&app, burst);
            }
        }
    });
}

async fn next_pending(
    events: &mut tokio::sync::broadcast::Receiver<ChangeEvent>,
) -> Option<Approval> {
    loop {
        match events.recv().await {
            Ok(ChangeEvent::ApprovalCreated { approval }) if approval.status == Status::Pending => {
                return Some(*approval);
            }
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return None,
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
/// marks, and the markup notification servers read in bodies escaped.
fn safe(text: &str) -> String {
    reveal(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The summary, body and target of the notification for a burst of new approvals.
fn texts(burst: &[Approval]) -> (String, String, LinkTarget) {
    match burst {
        [one] => (
            format!("Approval needed: {}", one.tool),
            format!(
                "{} asks: {}",
                safe(&one.requester.name),
                safe(one.call.title())
            ),
            LinkTarget::Approval { id: one.id.clone() },
        ),
        many => (
            format!("{} approvals waiting", many.len()),
            many.iter()
                .map(|a| a.tool.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            LinkTarget::Inbox,
        ),
    }
}

fn show(app: &AppHandle, burst: Vec<Approval>) {
    let (summary, body, target) = texts(&burst);
    let app = app.clone();
    // Waiting for the person to activate it blocks; each notification gets its own thread.
    std::thread::spawn(move || {
        let shown = notify_rust::Notification::new()
            .appname("Countersign")
            .summary(&summary)
            .body(&body)
            .action("default", "Open")
            .show();
        match shown {
            #[cfg(all(unix, not(target_os = "macos")))]
            Ok(handle) => handle.wait_for_action(|action| {
                if action == "default" {
                    links::open(&app, target.clone(), links::Focus::Take);
                }
            }),
            #[cfg(not(all(unix, not(target_os = "macos"))))]
            Ok(_) => drop((app, target)),
            Err(e) => tracing::warn!(error = %e, "desktop notification failed"),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use countersign::console::Submission;

    fn approval(requester: &str, title: &str) -> Approval {
        let s: Submission = serde_json::from_value(serde_json::json!({
            "tool": "claude-code.Bash",
            "requester": { "name": requester },
            "call": { "card": "terminal", "title": title, "command": "ls" },
        }))
        .unwrap();
        Approval {
            id: countersign::domain::ids::ApprovalId::generate(),
            tool: s.tool,
            tool_parts: None,
            artifact_id: None,
            requester: s.requester,
            call: s.call,
            raw_input: None,
            status: countersign::domain::approval::Status::Pending,
            digest: String::new(),
            hidden_marks: 0,
            decided_by: None,
            reason: None,
            granted: None,
            created_at: 0,
            expires_at: 0,
            decided_at: None,
            result: None,
            result_at: None,
            acp_options: None,
            call_id: None,
            parent: None,
        }
    }

    #[test]
    fn notifications_carry_marks_and_no_markup() {
        let (_, body, _) = texts(&[approval("<b>Claude</b>\u{202E}", "Run \u{1b}[2Jtests\u{7}")]);
        assert_eq!(
            body,
            "&lt;b&gt;Claude&lt;/b&gt;⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩ asks: \
             Run ⟨ANSI escape ESC[2J⟩tests⟨U+0007 BELL⟩"
        );
        assert!(!body.chars().any(|c| c.is_control()), "{body:?}");
    }
}
