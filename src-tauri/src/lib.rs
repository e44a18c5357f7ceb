//! Countersign's desktop window: a thin shell over the core `Console`. It runs the local API
//! in-process, forwards change events to the UI, notifies, follows deep links and lives in
//! the tray when its window is closed.

mod changes;
mod commands;
mod error;
mod export;
mod exports;
mod launch;
mod links;
mod machines;
mod notify;
mod phone;
mod preview;
mod settings;
mod state;
mod stderr_filter;
mod team;
mod tray;
mod watchdog;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use countersign_domain::deeplink::LinkTarget;
use countersign_engine::console::{CHANGE_EVENT, ChangeEvent};
use countersign_engine::data_dir::DataDir;
use countersign_engine::server::Server;
use tauri::{Emitter as _, Manager as _, RunEvent, WindowEvent};
use tracing_subscriber::EnvFilter;

pub use crate::state::Desktop;

/// The window's command line.
#[derive(Debug, Parser)]
#[command(
    name = "countersign-desktop",
    version,
    about = "Countersign's approval console"
)]
struct Args {
    /// The data directory (default: the platform's, e.g. ~/.local/share/countersign).
    #[arg(long, env = "COUNTERSIGN_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Port for the local API (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Register the countersign:// scheme for the current user, then run.
    #[arg(long)]
    register_scheme: bool,
    /// countersign:// links to open.
    links: Vec<String>,
}

/// The commands the UI may call, shared by the app and its tests.
pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        launch::console_ready,
        launch::take_link,
        commands::approval,
        commands::decide,
        commands::decline_group,
        commands::preview_grant,
        commands::check_call,
        commands::history,
        commands::history_facets,
        commands::history_count,
        commands::artifacts,
        commands::artifact_titles,
        commands::inbox_page,
        commands::changes,
        commands::approvals,
        commands::artifact,
        commands::rename_artifact,
        commands::delete_artifact,
        commands::artifact_versions,
        commands::version_diff,
        commands::restore_version,
        commands::grants,
        commands::artifact_grants,
        commands::revoke_grant,
        commands::rule_imports,
        commands::propose_import,
        commands::export_rules,
        commands::save_rules_export,
        commands::decide_import,
        commands::set_grant_watch,
        commands::revoke_artifact_grants,
        commands::carry_artifact_grants,
        commands::result_reports,
        commands::settings,
        commands::reveal_token,
        commands::rotate_token,
        commands::set_notifications,
        commands::set_view,
        commands::agents,
        commands::install_agent_hook,
        commands::remove_agent_hook,
        machines::machine_settings,
        machines::machines_start,
        machines::machines_stop,
        machines::create_agent_token,
        machines::revoke_agent_token,
        team::team_connection,
        team::team_connect,
        team::team_disconnect,
        team::team_inbox,
        team::team_open,
        export::export_history,
        export::cancel_export,
        phone::phone_settings,
        phone::phone_start,
        phone::phone_stop,
        phone::phone_code,
        phone::phone_hide_code,
        phone::rename_phone,
        phone::keep_phone,
        phone::revoke_phone,
    ]
}

/// Runs the window until it quits.
pub fn run() -> ExitCode {
    if let Err(e) = stderr_filter::install() {
        eprintln!("countersign-desktop: the log is not filtered: {e}");
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("COUNTERSIGN_LOG").unwrap_or_else(|_| EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let dir = match DataDir::resolve(args.data_dir.clone()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("countersign-desktop: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Managed before the plugins start: a second launch's link is held from the first moment.
    let (reporter, launch) = launch::Launch::new();
    let app = tauri::Builder::default()
        .manage(launch)
        .plugin(tauri_plugin_single_instance::init(|app, argv, _cwd| {
            links::second_launch(app, argv);
        }))
        .plugin(tauri_plugin_deep_link::init())
        .plugin(tauri_plugin_notification::init())
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(handler())
        .register_uri_scheme_protocol(preview::SCHEME, |_ctx, request| preview::respond(&request))
        .setup(move |app| setup(app, &dir, &args, reporter))
        .on_window_event(|window, event| {
            // Closing the window keeps the app in the tray, so notifications still arrive.
            // A window whose console could not start quits instead: there is nothing to keep.
            if let WindowEvent::CloseRequested { api, .. } = event {
                let failed = window
                    .try_state::<launch::Launch>()
                    .is_some_and(|l| l.failed());
                if failed {
                    window.app_handle().exit(1);
                } else {
                    api.prevent_close();
                    let _ = window.hide();
                }
            }
        })
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        Err(e) => {
            eprintln!("countersign-desktop: {e}");
            return ExitCode::FAILURE;
        }
    };
    app.run(|app, event| {
        if let RunEvent::Exit = event {
            if let Some(l) = app.try_state::<launch::Launch>() {
                l.exit();
            }
            if let Some(d) = app.try_state::<Desktop>() {
                d.server.withdraw();
            }
        }
    });
    ExitCode::SUCCESS
}

fn setup(
    app: &mut tauri::App,
    dir: &DataDir,
    args: &Args,
    reporter: launch::Reporter,
) -> Result<(), Box<dyn std::error::Error>> {
    if args.register_scheme {
        #[cfg(any(target_os = "linux", windows))]
        {
            use tauri_plugin_deep_link::DeepLinkExt as _;
            if let Err(e) = app.deep_link().register_all() {
                tracing::warn!(error = %e, "could not register the countersign:// scheme");
            }
        }
    }

    let pending_line = match tray::build(app) {
        Ok(line) => Some(line),
        Err(e) => {
            tracing::warn!(error = %e, "no tray icon");
            None
        }
    };
    if let Some(window) = app.get_webview_window("main") {
        let handle = app.handle().clone();
        let watching = std::sync::Arc::new(move || {
            handle
                .try_state::<Desktop>()
                .is_some_and(|d| d.view() == "artifact")
        });
        watchdog::install(&window, watching);
    }
    notify::on_click(app.handle());

    // Links: on Linux and Windows the OS starts the app with the link as an argument (a
    // second start hands it over through the single-instance plugin); on macOS the OS hands
    // it to the running app, which the deep-link plugin reports. All go through the same
    // strict parser, and none takes the keyboard. The UI takes a link once its console serves.
    #[cfg(target_os = "macos")]
    {
        use tauri_plugin_deep_link::DeepLinkExt as _;
        let handle = app.handle().clone();
        app.deep_link().on_open_url(move |event| {
            if let Some(url) = event.urls().last() {
                links::open(
                    &handle,
                    LinkTarget::from_link(url.as_str()),
                    links::Focus::Ask,
                );
            }
        });
    }
    if let Some(link) = args.links.last() {
        links::open(app.handle(), LinkTarget::from_link(link), links::Focus::Ask);
    }

    // The console starts on the runtime while the window's page loads (`launch.rs`). Setup
    // runs in the one instance the single-instance plugin let through: a second launch has
    // already handed over its arguments and ended, and starts no console.
    let handle = app.handle().clone();
    let (dir, port) = (dir.clone(), args.port);
    // On a thread of its own, inside the runtime (the console spawns its tasks there: the
    // sweeper, the reloader `countersign token --rotate` signals): its start reads files and
    // may ask a keyring, which blocks, and its future is not `Send` (sqlx's migrations).
    tauri::async_runtime::spawn_blocking(move || {
        match tauri::async_runtime::block_on(Server::start(&dir, port)) {
            // Quit while it started: what it published is taken back at once.
            Ok(server) if handle.state::<launch::Launch>().exiting() => server.withdraw(),
            Ok(server) => {
                tracing::info!(url = %server.url, "local API listening");
                serve(&handle, server, pending_line);
                reporter.serving();
            }
            Err(e) => {
                eprintln!("countersign-desktop: {e}");
                reporter.failed(&e.to_string());
                // Said where the person looks: the window comes back if they had closed it,
                // and the tray says it too.
                if let Some(line) = &pending_line {
                    let _ = line.set_text("Countersign could not start");
                }
                links::show(&handle, links::Focus::Take);
            }
        }
    });
    Ok(())
}

/// Once the console serves: the window's state, and what follows its changes.
fn serve(
    app: &tauri::AppHandle,
    server: Server,
    pending_line: Option<tauri::menu::MenuItem<tauri::Wry>>,
) {
    let events = server.console.subscribe();
    let notifications = server.console.subscribe();
    let console = server.console.clone();
    app.manage(Desktop::new(server));
    let views = app.state::<Desktop>().views();
    forward(app.clone(), console, events, views, pending_line);
    notify::spawn(app.clone(), notifications);
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(d) = handle.try_state::<Desktop>() {
            phone::resume(&handle, &d).await;
            machines::resume(&d).await;
        }
    });
}

/// The shortest time between two batches of changes sent to the window: in a burst, what
/// arrives meanwhile goes in the next batch, so the page handles tens of events per frame
/// rather than one script run per event.
const BATCH_GAP: std::time::Duration = std::time::Duration::from_millis(30);
/// The most changes in one batch: what is left goes in the next, so one message stays small
/// enough for the page to take in a frame or two.
const BATCH_MOST: usize = 256;

/// Forwards changes to the UI, in batches (each a list, in order), and keeps the tray's
/// pending count current. Changes no page on screen shows (a call a rule decided, a result, a
/// grant's use) are held back and reach a page that shows them as one summary at most once per
/// [`changes::QUIET_EVERY`] (`changes.rs`): agents working on rule hits leave an idle window
/// idle.
fn forward(
    app: tauri::AppHandle,
    console: countersign_engine::console::Console,
    mut events: tokio::sync::broadcast::Receiver<ChangeEvent>,
    mut views: tokio::sync::watch::Receiver<String>,
    pending_line: Option<tauri::menu::MenuItem<tauri::Wry>>,
) {
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    use tokio::time::Instant;
    tauri::async_runtime::spawn(async move {
        // The calls already waiting when the console started (the line says none until then).
        if let (Some(line), Ok(w)) = (&pending_line, console.waiting_calls().await) {
            let _ = line.set_text(tray::waiting_label(w));
        }
        let mut last: Option<Instant> = None;
        let mut held = changes::Held::default();
        let mut last_summary: Option<Instant> = None;
        let send = |batch: &[ChangeEvent]| {
            if let Err(e) = app.emit(CHANGE_EVENT, batch) {
                tracing::warn!(error = %e, "could not forward changes to the window");
            }
        };
        loop {
            let page = changes::Page::named(&views.borrow_and_update());
            // A summary is due once the page shows something held, spaced out in a burst.
            let summary_at = held
                .due_on(page)
                .then(|| last_summary.map_or_else(Instant::now, |t| t + changes::QUIET_EVERY));
            // Missed some: the UI reads everything again.
            let first = tokio::select! {
                got = events.recv() => match got {
                    Ok(e) => e,
                    Err(RecvError::Lagged(_)) => ChangeEvent::Resync,
                    Err(RecvError::Closed) => return,
                },
                seen = views.changed() => {
                    if seen.is_err() {
                        return;
                    }
                    continue;
                }
                () = tokio::time::sleep_until(summary_at.unwrap_or_else(Instant::now)),
                    if summary_at.is_some() =>
                {
                    send(&held.take_for(page));
                    last_summary = Some(Instant::now());
                    continue;
                }
            };
            let mut batch = Vec::new();
            let mut waiting_moved = false;
            let mut take = |e: ChangeEvent, batch: &mut Vec<ChangeEvent>| {
                waiting_moved |= changes::moves_waiting(&e);
                if matches!(e, ChangeEvent::Resync) {
                    held.clear();
                }
                if !held.hold(&e) {
                    batch.push(e);
                }
            };
            take(first, &mut batch);
            if batch.is_empty() {
                // Held back: nothing to send, nothing to wait for.
                continue;
            }
            // A change after a quiet moment goes at once; in a burst, the next batch waits
            // for the gap and takes everything that came meanwhile.
            if let Some(last) = last {
                tokio::time::sleep_until(last + BATCH_GAP).await;
            }
            while batch.len() < BATCH_MOST {
                match events.try_recv() {
                    Ok(e) => take(e, &mut batch),
                    Err(TryRecvError::Lagged(_)) => take(ChangeEvent::Resync, &mut batch),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Closed) => return,
                }
            }
            send(&batch);
            last = Some(Instant::now());
            // The tray counts once per batch, and only when the waiting calls can have changed.
            if waiting_moved
                && let (Some(line), Ok(w)) = (&pending_line, console.waiting_calls().await)
            {
                let _ = line.set_text(tray::waiting_label(w));
            }
        }
    });
}
