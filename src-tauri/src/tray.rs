//! The tray icon: the app keeps running there when its window is closed.

use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{App, AppHandle, Wry};

use countersign_engine::console::Waiting;

use crate::links;

/// Builds the tray; returns the menu line that shows how many approvals wait.
pub fn build(app: &App) -> tauri::Result<MenuItem<Wry>> {
    let open = MenuItem::with_id(app, "open", "Open Countersign", true, None::<&str>)?;
    let pending = MenuItem::with_id(app, "pending", "No calls waiting", false, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit Countersign", true, None::<&str>)?;
    let separator = PredefinedMenuItem::separator(app)?;
    let menu = Menu::with_items(app, &[&open, &pending, &separator, &quit])?;
    let mut tray = TrayIconBuilder::with_id("main")
        .menu(&menu)
        .tooltip("Countersign")
        .on_menu_event(|app: &AppHandle, event| match event.id.as_ref() {
            "open" => links::show(app, links::Focus::Take),
            "quit" => app.exit(0),
            _ => {}
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    Ok(pending)
}

/// The tray's and a burst notification's line for what waits: "5 calls from 2 agents
/// waiting".
pub fn waiting_label(w: Waiting) -> String {
    let agents = match w.agents {
        ..=1 => "1 agent".to_owned(),
        n => format!("{n} agents"),
    };
    match w.calls {
        ..=0 => "No calls waiting".to_owned(),
        1 => "1 call waiting".to_owned(),
        n => format!("{n} calls from {agents} waiting"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_how_many_calls_from_how_many_agents() {
        let label = |calls, agents| waiting_label(Waiting { calls, agents });
        assert_eq!(label(0, 0), "No calls waiting");
        assert_eq!(label(1, 1), "1 call waiting");
        assert_eq!(label(3, 1), "3 calls from 1 agent waiting");
        assert_eq!(label(12, 3), "12 calls from 3 agents waiting");
    }
}
