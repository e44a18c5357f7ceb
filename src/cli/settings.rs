//! An agent's own files that say where its flow goes when its hook gives no answer
//! ([`HookAgent::settings_to_read`]: Codex's configuration and transcript), read for the hook's
//! fail-safe answer. Each is read only if it is an ordinary file, without waiting on a FIFO,
//! and at most [`MAX_BYTES`] of it (a transcript's last part).

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use countersign_integrations::hook::{Env, HookAgent};

/// The most read of one file.
const MAX_BYTES: u64 = 1024 * 1024;

/// Each file `agent` wants for `payload`, with its text where it could be read.
pub fn read(agent: &dyn HookAgent, payload: Option<&Value>) -> Vec<(PathBuf, Option<String>)> {
    let home = dirs::home_dir();
    let var = |k: &str| std::env::var(k).ok();
    let env = Env {
        home: home.as_deref(),
        var: &var,
    };
    agent
        .settings_to_read(payload, &env)
        .into_iter()
        .map(|w| {
            let text = text_of(&w.path, w.tail);
            (w.path, text)
        })
        .collect()
}

/// The file's text (its last [`MAX_BYTES`] with `tail`, else its first), lossily as UTF-8;
/// `None` when it is not an ordinary file that can be opened.
fn text_of(path: &Path, tail: bool) -> Option<String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let mut file = options.open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    if tail && meta.len() > MAX_BYTES {
        file.seek(SeekFrom::Start(meta.len() - MAX_BYTES)).ok()?;
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
