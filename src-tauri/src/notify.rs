//! Desktop notifications for new pending approvals: coalesced into bursts, skipped while the
//! person is looking at the inbox, and opening the approval (or the inbox) when activated.

use std::time::Duration;

use countersign::console::ChangeEvent;
use countersign::domain::approval::{Approval, Status};
use countersign::domain::deeplink::LinkTarget;
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

fn show(app: &AppHandle, burst: Vec<Approval>) {
    let (summary, body, target) = match burst.as_slice() {
        [one] => (
            format!("Approval needed: {}", one.tool),
            format!("{} asks: {}", one.requester.name, one.call.title()),
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
    };
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
                    links::open(&app, target.clone());
                }
            }),
            #[cfg(not(all(unix, not(target_os = "macos"))))]
            Ok(_) => drop((app, target)),
            Err(e) => tracing::warn!(error = %e, "desktop notification failed"),
        }
    });
}
