//! History's Export button: the same filters as the window's search, saved where the person
//! picks in the OS's save dialog (Tauri's dialog plugin), written by the same code as
//! `countersign history export` from a read-only snapshot of the database, with progress
//! events and a cancel. The file appears only once it is whole: it is written beside its
//! place under a temporary name and moved there at the end, so a cancelled or failed export
//! leaves nothing behind.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use countersign_domain::history::HistoryQuery;
use countersign_engine::export::{Format, History};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Emitter as _, State};
use tauri_plugin_dialog::DialogExt as _;
use ts_rs::TS;

use countersign_engine::error::ErrorCode;

use crate::error::{CommandError, CommandResult};
use crate::state::Desktop;

/// The event an export's progress is sent as.
pub const PROGRESS_EVENT: &str = "countersign://history-export";

/// When set, the save dialog is not shown: the export goes to this path, as if the person had
/// picked it. For scripted runs of the window (its end-to-end tests), where no one can click
/// through the OS's dialog.
pub const SAVE_AS_ENV: &str = "COUNTERSIGN_EXPORT_TO";

/// The format the person chose.
#[derive(Debug, Clone, Copy, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ExportFormat {
    Jsonl,
    Csv,
}

/// How far an export has come, as the window shows it.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct ExportProgress {
    #[ts(type = "number")]
    pub written: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// A finished export.
#[derive(Debug, Clone, Serialize, TS)]
#[ts(export)]
pub struct Exported {
    #[ts(type = "number")]
    pub written: u64,
    pub path: String,
}

/// A writer that stops once the export is cancelled.
struct Cancellable<W> {
    out: W,
    cancel: Arc<AtomicBool>,
}

impl<W: Write> Write for Cancellable<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("the export was cancelled"));
        }
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Asks where to save, in the OS's dialog (or [`SAVE_AS_ENV`]); `None` when the person
/// cancelled it.
async fn save_as(app: &AppHandle, format: ExportFormat) -> Result<Option<PathBuf>, CommandError> {
    if let Some(path) = std::env::var_os(SAVE_AS_ENV) {
        return Ok(Some(PathBuf::from(path)));
    }
    let (name, ext) = match format {
        ExportFormat::Jsonl => ("JSON Lines", "jsonl"),
        ExportFormat::Csv => ("CSV", "csv"),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_title("Export History")
        .set_file_name(format!("countersign-history.{ext}"))
        .add_filter(name, &[ext])
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    let picked = rx.await.ok().flatten();
    match picked {
        None => Ok(None),
        Some(p) => p.into_path().map(Some).map_err(|e| {
            CommandError::new(
                ErrorCode::ExportFailed,
                format!("that place cannot be written: {e}"),
            )
        }),
    }
}

/// Exports the calls `query` matches in `format` to a file the person picks; progress goes out
/// as [`PROGRESS_EVENT`]. Answers what was written, or `None` when the dialog was cancelled.
#[tauri::command]
pub async fn export_history(
    app: AppHandle,
    d: State<'_, Desktop>,
    query: HistoryQuery,
    format: ExportFormat,
) -> CommandResult<Option<Exported>> {
    query.check().map_err(|e| {
        CommandError::new(
            ErrorCode::InvalidRequest,
            format!("{}: {}", e.field, e.message),
        )
    })?;
    let Some(cancel) = d.exports.start() else {
        return Err(CommandError::new(
            ErrorCode::ExportCancelled,
            "an export is already running: wait for it, or cancel it",
        ));
    };
    let result = run(&app, &d, &query, format, cancel).await;
    d.exports.end();
    result
}

async fn run(
    app: &AppHandle,
    d: &Desktop,
    query: &HistoryQuery,
    format: ExportFormat,
    cancel: Arc<AtomicBool>,
) -> CommandResult<Option<Exported>> {
    let failed =
        |e: &dyn std::fmt::Display| CommandError::new(ErrorCode::ExportFailed, e.to_string());
    let Some(path) = save_as(app, format).await? else {
        return Ok(None);
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), ToOwned::to_owned);
    let mut history = History::open(&d.server.dir().db_path())
        .await
        .map_err(|e| failed(&e))?;
    let total = history.count(query).await.map_err(|e| failed(&e))?;
    let _ = app.emit(PROGRESS_EVENT, ExportProgress { written: 0, total });
    let temp = tempfile::Builder::new()
        .prefix(".countersign-export-")
        .tempfile_in(&dir)
        .map_err(|e| failed(&format!("cannot write in {}: {e}", dir.display())))?;
    let out = Cancellable {
        out: std::io::BufWriter::new(temp.as_file()),
        cancel: cancel.clone(),
    };
    let format = match format {
        ExportFormat::Jsonl => Format::Jsonl,
        ExportFormat::Csv => Format::Csv,
    };
    let written = history
        .write(query, format, out, |written| {
            let _ = app.emit(PROGRESS_EVENT, ExportProgress { written, total });
        })
        .await;
    if cancel.load(Ordering::Relaxed) {
        // The temporary file goes with `temp`.
        return Err(CommandError::new(
            ErrorCode::ExportCancelled,
            "the export was cancelled; nothing was saved",
        ));
    }
    let written = written.map_err(|e| failed(&e))?;
    temp.as_file().sync_all().map_err(|e| failed(&e))?;
    temp.persist(&path)
        .map_err(|e| failed(&format!("cannot save {}: {}", path.display(), e.error)))?;
    Ok(Some(Exported {
        written,
        path: path.display().to_string(),
    }))
}

/// Cancels the export running now (the file it began is not kept).
#[tauri::command]
pub fn cancel_export(d: State<'_, Desktop>) {
    d.exports.cancel();
}
