//! A window that stops answering while an artifact's preview is open is reloaded, so an
//! artifact whose code never yields (an endless loop in an effect or a handler, which the
//! first-render check cannot see) cannot lock the person out of their approvals.
//!
//! WebKitGTK runs the preview frame in the page's own web process and thread: such a loop
//! freezes the whole window. While the artifact page is shown, the shell asks the page a
//! trivial question every [`EVERY`]; with no answer within [`PATIENCE`] it ends the web
//! process, and loads the app again on the inbox, which says what happened. Nothing else is
//! lost: the console runs in the shell, and approvals wait for the person.
#![cfg_attr(
    not(target_os = "linux"),
    allow(
        dead_code,
        reason = "the reload uses the WebKitGTK view, on Linux only"
    )
)]

use std::time::Duration;

/// How often the page is asked while an artifact is shown.
pub const EVERY: Duration = Duration::from_secs(2);
/// How long the page may take to answer.
/// (Generous: a busy machine can hold the page for seconds while a large preview loads.)
pub const PATIENCE: Duration = Duration::from_secs(10);
/// The query the reloaded page reads to say why it was reloaded: it stopped answering with an
/// artifact open, it ran out of memory, or its process ended for another reason.
pub const RECOVERED: &str = "recovered=unresponsive";
pub const RECOVERED_MEMORY: &str = "recovered=memory";
pub const RECOVERED_CRASH: &str = "recovered=crashed";

/// Watches the main window's page while `watching` says an artifact page is shown, and loads
/// the app again whenever its web process ends.
#[cfg(target_os = "linux")]
pub fn install(
    window: &tauri::WebviewWindow,
    watching: std::sync::Arc<dyn Fn() -> bool + Send + Sync>,
) {
    let watched = window.with_webview(move |platform| {
        use std::cell::Cell;
        use std::rc::Rc;
        use webkit2gtk::WebViewExt as _;
        use webkit2gtk::glib::{self, object::ObjectExt as _};

        let view = platform.inner();
        view.connect_web_process_terminated(|v, reason| {
            tracing::warn!(?reason, "the window's web process ended; loading the app again");
            let uri = v.uri().map(|u| u.to_string()).unwrap_or_default();
            let base = uri.split(['?', '#']).next().unwrap_or_default();
            let base = if base.is_empty() { "tauri://localhost/" } else { base };
            // Only an end this watch asked for is blamed on the artifact.
            let why = match reason {
                webkit2gtk::WebProcessTerminationReason::TerminatedByApi => RECOVERED,
                webkit2gtk::WebProcessTerminationReason::ExceededMemoryLimit => RECOVERED_MEMORY,
                _ => RECOVERED_CRASH,
            };
            v.load_uri(&format!("{base}?{why}"));
        });
        // The question in flight, if any.
        /// When the question was asked, and whether it was answered.
        type Question = (std::time::Instant, Rc<Cell<bool>>);
        let pending: Rc<Cell<Option<Question>>> = Rc::new(Cell::new(None));
        let weak = view.downgrade();
        glib::timeout_add_local(EVERY, move || {
            let Some(view) = weak.upgrade() else {
                return glib::ControlFlow::Break;
            };
            match pending.take() {
                Some((asked, answered)) if !answered.get() => {
                    if asked.elapsed() >= PATIENCE {
                        tracing::warn!(
                            "the window did not answer for {PATIENCE:?} with an artifact open; reloading it"
                        );
                        view.terminate_web_process();
                    } else {
                        pending.set(Some((asked, answered)));
                    }
                }
                _ if watching() => {
                    let answered = Rc::new(Cell::new(false));
                    let flag = answered.clone();
                    view.evaluate_javascript(
                        "0",
                        None,
                        None,
                        None::<&webkit2gtk::gio::Cancellable>,
                        move |_| flag.set(true),
                    );
                    pending.set(Some((std::time::Instant::now(), answered)));
                }
                _ => {}
            }
            glib::ControlFlow::Continue
        });
    });
    if let Err(e) = watched {
        tracing::warn!(error = %e, "the window is not watched for freezes");
    }
}

/// Elsewhere WebKit runs frames out of process, or the page cannot be asked this way.
#[cfg(not(target_os = "linux"))]
pub fn install(
    _window: &tauri::WebviewWindow,
    _watching: std::sync::Arc<dyn Fn() -> bool + Send + Sync>,
) {
}
