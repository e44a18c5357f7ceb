//! The tray icon: the app keeps running there when its window is closed.

use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{App, AppHandle, Wry};

use crate::links;

/// Builds the tray; returns the menu line that shows how many approvals wait.
pub fn build(app: &App) -> tauri::Result<MenuItem<Wry>> {
    let open = MenuItem::with_id(app, "open", "Open Countersign", true, None::<&str>)?;
    let pending = MenuItem::with_id(app, "pending", "No approvals waiting", false, None::<&str>)?;
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

/// The tray line for `n` waiting approvals.
pub fn pending_label(n: i64) -> String {
    match n {
        0 => "No approvals waiting".to_owned(),
        1 => "1 approval waiting".to_owned(),
        n => format!("{n} approvals waiting"),
    }
}
