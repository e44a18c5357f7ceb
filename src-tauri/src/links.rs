//! Deep links from the command line, at a cold start or forwarded by a second launch. Each is
//! parsed by the core's strict grammar; anything else becomes an "unsupported link" notice.

use countersign_domain::deeplink::LinkTarget;
use countersign_engine::console::NAVIGATE_EVENT;
use tauri::{AppHandle, Emitter as _, Manager as _};

use crate::launch::Launch;

/// The links among command-line arguments: every argument that is not an option or an
/// option's value. Exactly as given, so the core's parser sees what the OS passed.
pub fn in_args(args: &[String]) -> Vec<String> {
    let mut links = Vec::new();
    let mut skip_value = false;
    for a in args {
        if skip_value {
            skip_value = false;
        } else if a == "--data-dir" || a == "--port" {
            skip_value = true;
        } else if !a.starts_with("--") {
            links.push(a.clone());
        }
    }
    links
}

/// Whether showing the window may take the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The person asked (the tray, a notification they clicked): come to the front.
    Take,
    /// Anyone could have asked (a link — an agent can run `xdg-open`):
    /// show the window and ask for attention, but leave the keyboard where it is, so keys
    /// typed into another program never land on a card.
    Ask,
}

/// Shows the window and has it open `target` (the UI takes it with `take_link`).
pub fn open(app: &AppHandle, target: LinkTarget, focus: Focus) {
    if let Some(l) = app.try_state::<Launch>() {
        l.hold_link(target);
    }
    show(app, focus);
    if let Err(e) = app.emit(NAVIGATE_EVENT, ()) {
        tracing::warn!(error = %e, "could not tell the window to navigate");
    }
}

/// Shows the main window; with [`Focus::Take`], in front and focused.
pub fn show(app: &AppHandle, focus: Focus) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.show();
        let _ = w.unminimize();
        match focus {
            Focus::Take => {
                let _ = w.set_focus();
            }
            Focus::Ask => {
                let attention = tauri::UserAttentionType::Informational;
                let _ = w.request_user_attention(Some(attention));
            }
        }
    }
}

/// A second launch handed over its arguments: open its links, or just show the window.
pub fn second_launch(app: &AppHandle, argv: Vec<String>) {
    let links = in_args(argv.get(1..).unwrap_or_default());
    match links.last() {
        Some(link) => open(app, LinkTarget::from_link(link), Focus::Ask),
        // Started from a launcher, or by any program that can run it (the package puts it
        // on PATH): shown, but the keyboard stays where it is.
        None => show(app, Focus::Ask),
    }
}

#[cfg(test)]
mod tests {
    use super::in_args;

    #[test]
    fn options_and_their_values_are_not_links() {
        let args: Vec<String> = [
            "--data-dir",
            "/tmp/x",
            "countersign://approvals/a",
            "--port",
            "9",
            "junk",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(in_args(&args), ["countersign://approvals/a", "junk"]);
    }
}
