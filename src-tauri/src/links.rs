//! Deep links from the command line, at a cold start or forwarded by a second launch. Each is
//! parsed by the core's strict grammar; anything else becomes an "unsupported link" notice.

use countersign::console::NAVIGATE_EVENT;
use countersign::domain::deeplink::LinkTarget;
use tauri::{AppHandle, Emitter as _, Manager as _};

use crate::state::Desktop;

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

/// Shows the window and has it open `target` (the UI takes it with `take_link`).
pub fn open(app: &AppHandle, target: LinkTarget) {
    if let Some(d) = app.try_state::<Desktop>() {
        d.hold_link(target);
    }
    show(app);
    if let Err(e) = app.emit(NAVIGATE_EVENT, ()) {
        tracing::warn!(error = %e, "could not tell the window to navigate");
    }
}

/// Brings the main window to the front.
pub fn show(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.show();
        let _ = w.unminimize();
        let _ = w.set_focus();
    }
}

/// A second launch handed over its arguments: open its links, or just show the window.
pub fn second_launch(app: &AppHandle, argv: Vec<String>) {
    let links = in_args(argv.get(1..).unwrap_or_default());
    match links.last() {
        Some(link) => open(app, LinkTarget::from_link(link)),
        None => show(app),
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
