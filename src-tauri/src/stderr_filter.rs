//! Keeps the window's invoke key out of the log. Tauri writes the key it expected to stderr
//! whenever a message reaches the shell without it, which an artifact's frame can cause; a
//! process that reads the log (a journal, a terminal) could then forge calls to the shell with
//! it. The process's stderr goes through a pipe to a thread that writes every line on to the
//! real stderr, except that one, which it replaces with a refusal that names no key.
#![cfg_attr(
    not(unix),
    allow(
        dead_code,
        reason = "the filter runs on Unix only (a pipe in place of stderr)"
    )
)]

/// What Tauri's line about a message without the key contains.
const MARKER: &[u8] = b"__TAURI_INVOKE_KEY__";
/// What is written instead.
pub const REFUSAL: &str = "countersign-desktop: a message reached the shell without the \
    window's key (from a page or an artifact's frame); it was refused";

/// The line as it goes on to the real stderr.
fn filtered(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if line.windows(MARKER.len()).any(|w| w == MARKER) {
        format!("{REFUSAL}\n").into_bytes().into()
    } else {
        line.into()
    }
}

/// Puts the filter between the process and its stderr.
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    use std::io::{BufRead as _, Write as _};
    let real = std::fs::File::from(nix::unistd::dup(std::io::stderr())?);
    let (read, write) = nix::unistd::pipe()?;
    nix::unistd::dup2_stderr(&write)?;
    drop(write);
    std::thread::Builder::new()
        .name("stderr-filter".into())
        .spawn(move || {
            let mut lines = std::io::BufReader::new(std::fs::File::from(read));
            let mut real = real;
            let mut line = Vec::new();
            while matches!(lines.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                let _ = real.write_all(&filtered(&line));
                line.clear();
            }
        })?;
    Ok(())
}

/// Elsewhere the log is left as it is.
#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_line_is_replaced_and_others_pass() {
        let leak = b"__TAURI_INVOKE_KEY__ expected 1234abcd but received guessed\n";
        let out = filtered(leak);
        assert!(!String::from_utf8_lossy(&out).contains("1234abcd"));
        assert!(String::from_utf8_lossy(&out).contains("refused"));
        let other = b"WARN something else\n";
        assert_eq!(&*filtered(other), other);
    }
}
