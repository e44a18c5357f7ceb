//! Files only their owner may read: opened without following a symlink, created 0600, replaced
//! atomically. The data directory's lock and connection files and the token's file use them.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;

/// Opens (creating if needed, or only creating with `new`) a file readable by the owner
/// only, never through a symlink, and only a regular file: a FIFO planted in its place is
/// refused at once rather than waited on for ever.
pub fn open_private(path: &Path, new: bool) -> std::io::Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if new {
        opts.create_new(true);
    } else {
        opts.create(true).truncate(false);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK);
    }
    regular(opts.open(path)?)
}

/// `file` if it is a regular file (`O_NONBLOCK` changes nothing for one); an error otherwise.
fn regular(file: File) -> std::io::Result<File> {
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ))
    }
}

/// Reads a small private file, never through a symlink, and only a regular file.
pub fn read_private(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut opts,
        nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK,
    );
    let mut text = String::new();
    regular(opts.open(path)?)?.read_to_string(&mut text)?;
    Ok(text)
}

/// Writes `bytes` to `path` readable by the owner only, replacing it atomically. The
/// temporary file is created exclusively and never through a symlink; the rename replaces a
/// symlink at `path` rather than writing through it.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = match open_private(&tmp, true) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // Left by a crash, or planted: removing unlinks the name, never its target.
            std::fs::remove_file(&tmp)?;
            open_private(&tmp, true)?
        }
        Err(e) => return Err(e),
    };
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}
