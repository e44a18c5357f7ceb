//! What the files a Claude Code call would change hold now, read on the agent's machine for the
//! call's card (the hook and the MCP permission prompt). The agent controls these files, so a
//! read never follows a symbolic link at the file, never opens a FIFO, socket or device, takes
//! at most 8 MiB and 5 s, and whatever goes wrong is said on the card: it never decides the
//! call. A link anywhere on the way to the file is named on the card.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use countersign_domain::call::ThroughLink;
use countersign_domain::limits::MAX_PATH_BYTES;
use countersign_engine::console::Submission;
use countersign_integrations::claude_code::{FileState, HookError, HookPayload, Looked};

/// The largest file read for a card.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// How long reading one file may take (a hung network mount) before the card says so.
const READ_DEADLINE: Duration = Duration::from_secs(5);
/// Room left in a submission for what the request adds around it.
const SUBMISSION_MARGIN: usize = 64 * 1024;
/// The longest link target named on a card; titles are short.
const MAX_TARGET_SHOWN: usize = 300;
/// The most components of a path looked through for links. A path the system resolves has
/// fewer (Linux takes 4,096 bytes, so at most 2,048 `/x` components), and a card's title, which
/// holds the path, takes 1,000 bytes.
const MAX_COMPONENTS: usize = 2048;

/// The submission for `payload`, its cards showing what the files it changes hold now. A file
/// that would make the request larger than the console accepts is said to be too large.
pub async fn submission(payload: &HookPayload, expires_in_s: u64) -> Result<Submission, HookError> {
    let mut found = BTreeMap::new();
    for path in payload.files_changed() {
        let state = look(&path, payload.cwd.as_deref()).await;
        found.insert(path, state);
    }
    let not_read = || Looked::from(FileState::Unreadable("it was not read".to_owned()));
    let s = payload.submission(expires_in_s, &|p| {
        found.get(p).cloned().unwrap_or_else(not_read)
    })?;
    let room = countersign_engine::api::MAX_SUBMISSION_BYTES - SUBMISSION_MARGIN;
    if serde_json::to_vec(&s).map_or(usize::MAX, |v| v.len()) <= room {
        return Ok(s);
    }
    payload.submission(expires_in_s, &|p| match found.get(p) {
        Some(Looked {
            state: FileState::Text(t),
            through_link,
        }) => Looked {
            state: FileState::Unreadable(format!(
                "it holds {} bytes; with the new text, more than Countersign takes in one request",
                t.len()
            )),
            through_link: through_link.clone(),
        },
        Some(other) => other.clone(),
        None => not_read(),
    })
}

/// What `path` holds now, and the link on the way to it; a relative path is taken from `cwd`.
pub async fn look(path: &str, cwd: Option<&str>) -> Looked {
    let given = Path::new(path);
    let full: PathBuf = if given.is_absolute() {
        given.to_owned()
    } else {
        match cwd.map(Path::new).filter(|c| c.is_absolute()) {
            Some(dir) => dir.join(given),
            None => {
                return FileState::Unreadable(
                    "the path is relative, with no working directory to take it from".into(),
                )
                .into();
            }
        }
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    // A thread of its own rather than the runtime's blocking pool, which is waited for at
    // exit: a read stuck in the kernel must not keep the hook from answering and exiting.
    let started = std::thread::Builder::new()
        .name("countersign-read".into())
        .spawn(move || {
            let _ = tx.send(look_now(&full));
        });
    if let Err(e) = started {
        return FileState::Unreadable(format!("reading it could not start: {e}")).into();
    }
    match tokio::time::timeout(READ_DEADLINE, rx).await {
        Ok(Ok(looked)) => looked,
        Ok(Err(_)) => FileState::Unreadable("reading it failed".into()).into(),
        Err(_) => FileState::Unreadable(format!(
            "reading it took longer than {} s",
            READ_DEADLINE.as_secs()
        ))
        .into(),
    }
}

/// The first link on the way to `path`, then what the file holds. The file is read through a
/// link above it, as the write would go through it: what is shown is what the write replaces.
fn look_now(path: &Path) -> Looked {
    match first_link(path) {
        Ok(through_link) => Looked {
            state: read(path),
            through_link,
        },
        Err(why) => FileState::Unreadable(why).into(),
    }
}

/// The first symbolic link on the way to `path`: a directory above the file or the file
/// itself, looked at from the root one component at a time without following any.
/// `O_NOFOLLOW` guards the last component only, and a link above the file sends the change
/// where its written path does not say (`notes -> ~/.claude` makes `notes/settings.json` the
/// agent's own settings).
fn first_link(path: &Path) -> Result<Option<ThroughLink>, String> {
    if path.components().nth(MAX_COMPONENTS).is_some() {
        return Err(format!(
            "its path has more than {MAX_COMPONENTS} components, more than Countersign looks \
             through"
        ));
    }
    let mut at = PathBuf::new();
    for part in path.components() {
        at.push(part);
        // The root, a drive, `..`: not a name that can be a link (the one before `..` was
        // looked at already).
        if !matches!(part, Component::Normal(_)) {
            continue;
        }
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Ok(Some(ThroughLink {
                    link: at.to_string_lossy().into_owned(),
                    target: std::fs::read_link(&at).ok().and_then(|t| {
                        t.to_str()
                            .filter(|t| t.len() <= MAX_PATH_BYTES)
                            .map(str::to_owned)
                    }),
                }));
            }
            Ok(_) => {}
            // Nothing there, so nothing further down either: the write makes what is missing.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(reason(&e)),
        }
    }
    Ok(None)
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`] of UTF-8 text, and nothing else.
fn read(path: &Path) -> FileState {
    // Looked at first, without following a link: a link, FIFO, socket or device is never opened.
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileState::Missing,
        Err(e) => return FileState::Unreadable(reason(&e)),
    };
    if let Some(why) = not_a_file(&meta, path).or_else(|| too_large(&meta)) {
        return FileState::Unreadable(why);
    }
    let file = match open(path) {
        Ok(f) => f,
        Err(e) => return FileState::Unreadable(reason(&e)),
    };
    // What was opened decides: the path may name something else since it was looked at.
    let meta = match file.metadata() {
        Ok(m) => m,
        Err(e) => return FileState::Unreadable(reason(&e)),
    };
    if let Some(why) = not_a_file(&meta, path).or_else(|| too_large(&meta)) {
        return FileState::Unreadable(why);
    }
    // One byte more than the file says it holds: a file growing as it is read, or one that
    // says it is empty and is not (`/proc`), is never taken for what it was.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    if let Err(e) = file.take(meta.len() + 1).read_to_end(&mut bytes) {
        return FileState::Unreadable(reason(&e));
    }
    if u64::try_from(bytes.len()).ok() != Some(meta.len()) {
        return FileState::Unreadable(
            "it changed as it was read, or it is not an ordinary file (it does not hold the size \
             it gives)"
                .into(),
        );
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileState::Text(text),
        Err(_) => FileState::Unreadable("it is not UTF-8 text".into()),
    }
}

/// Opens for reading without following a link put at the path since it was looked at, without
/// waiting for a FIFO's writer and without taking a terminal.
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt as _;
        // FILE_FLAG_OPEN_REPARSE_POINT: a link is opened as itself, and then refused.
        options.custom_flags(0x0020_0000);
    }
    options.open(path)
}

fn reason(e: &std::io::Error) -> String {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return "it is a symbolic link".into();
    }
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

fn too_large(meta: &std::fs::Metadata) -> Option<String> {
    (meta.len() > MAX_FILE_BYTES).then(|| {
        format!(
            "it is larger than {} MiB ({} bytes)",
            MAX_FILE_BYTES / (1024 * 1024),
            meta.len()
        )
    })
}

/// Why what is at `path` is not a regular file to read, naming a link's target.
fn not_a_file(meta: &std::fs::Metadata, path: &Path) -> Option<String> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_symlink() {
        return Some(match std::fs::read_link(path) {
            Ok(target) => {
                let target = target.display().to_string();
                if target.len() > MAX_TARGET_SHOWN {
                    format!("it is a symbolic link, to a path of {} bytes", target.len())
                } else {
                    format!("it is a symbolic link to {target}")
                }
            }
            Err(_) => "it is a symbolic link".into(),
        });
    }
    if kind.is_dir() {
        return Some("it is a directory".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return Some("it is a named pipe (FIFO)".into());
        }
        if kind.is_socket() {
            return Some("it is a socket".into());
        }
        if kind.is_block_device() || kind.is_char_device() {
            return Some("it is a device".into());
        }
    }
    Some("it is not a regular file".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(path: &Path) -> FileState {
        read(path)
    }

    #[test]
    fn a_regular_file_is_read_and_nothing_else_is() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a.txt");
        std::fs::write(&file, "one\ntwo\n").unwrap();
        assert_eq!(state(&file), FileState::Text("one\ntwo\n".into()));
        assert_eq!(state(&tmp.path().join("none")), FileState::Missing);
        assert_eq!(
            state(&tmp.path().join("none/deeper")),
            FileState::Missing,
            "a write makes its directories"
        );
        let why = |p: &Path| match state(p) {
            FileState::Unreadable(why) => why,
            other => panic!("{}: {other:?}", p.display()),
        };
        assert_eq!(why(tmp.path()), "it is a directory");
        #[cfg(unix)]
        {
            let link = tmp.path().join("link");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert_eq!(
                why(&link),
                format!("it is a symbolic link to {}", file.display())
            );
            assert_eq!(why(Path::new("/dev/null")), "it is a device");
        }
        let big = tmp.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        assert!(
            why(&big).starts_with("it is larger than 8 MiB"),
            "{}",
            why(&big)
        );
        let binary = tmp.path().join("bin");
        std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
        assert_eq!(why(&binary), "it is not UTF-8 text");
        #[cfg(target_os = "linux")]
        assert!(
            why(Path::new("/proc/self/status")).contains("not an ordinary file"),
            "a /proc file says it is empty and is not"
        );
    }

    #[tokio::test]
    async fn a_relative_path_is_taken_from_the_working_directory() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.txt"), "hi").unwrap();
        let cwd = tmp.path().to_str().unwrap();
        assert_eq!(
            look("a.txt", Some(cwd)).await,
            FileState::Text("hi".into()).into()
        );
        assert!(matches!(
            look("a.txt", None).await.state,
            FileState::Unreadable(_)
        ));
    }

    /// `proj/notes` links to a `.claude` directory elsewhere.
    #[cfg(unix)]
    #[test]
    fn a_link_on_the_way_is_named_wherever_it_is() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let claude = root.join("home/.claude");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(claude.join("settings.json"), "{}\n").unwrap();
        let proj = root.join("proj");
        std::fs::create_dir(&proj).unwrap();
        std::fs::write(proj.join("plain.txt"), "plain\n").unwrap();
        let notes = proj.join("notes");
        std::os::unix::fs::symlink(&claude, &notes).unwrap();
        let link = |at: &Path, to: &Path| {
            Some(ThroughLink {
                link: at.to_str().unwrap().to_owned(),
                target: Some(to.to_str().unwrap().to_owned()),
            })
        };

        // Read through the directory link, as the write would go, and the link named.
        let through = look_now(&notes.join("settings.json"));
        assert_eq!(through.state, FileState::Text("{}\n".into()));
        assert_eq!(through.through_link, link(&notes, &claude));
        // A new file below it, and deeper still.
        for new in ["new.json", "a/b/c.json"] {
            let looked = look_now(&notes.join(new));
            assert_eq!(looked.state, FileState::Missing, "{new}");
            assert_eq!(looked.through_link, link(&notes, &claude), "{new}");
        }
        // The file itself a link: not read, and named.
        let file_link = proj.join("settings.json");
        std::os::unix::fs::symlink(claude.join("settings.json"), &file_link).unwrap();
        let itself = look_now(&file_link);
        assert!(matches!(itself.state, FileState::Unreadable(_)));
        assert_eq!(
            itself.through_link,
            link(&file_link, &claude.join("settings.json"))
        );
        // A relative target is named as written; a dangling one still counts.
        let rel = proj.join("rel");
        std::os::unix::fs::symlink("../home/.claude", &rel).unwrap();
        assert_eq!(
            look_now(&rel.join("x")).through_link,
            link(&rel, Path::new("../home/.claude"))
        );
        let dangling = proj.join("gone");
        std::os::unix::fs::symlink(root.join("nowhere"), &dangling).unwrap();
        let looked = look_now(&dangling.join("x.txt"));
        assert_eq!(looked.state, FileState::Missing);
        assert_eq!(looked.through_link, link(&dangling, &root.join("nowhere")));
        // No link on the way: nothing named, and `..` after a real directory is no link.
        assert_eq!(look_now(&proj.join("plain.txt")).through_link, None);
        assert_eq!(look_now(&proj.join("none/deeper/x")).through_link, None);
        assert_eq!(
            look_now(&proj.join("../proj/plain.txt")),
            FileState::Text("plain\n".into()).into()
        );
        // A link named first, from the root down: the one closest to the root.
        assert_eq!(
            look_now(&rel.join("../proj/notes/settings.json")).through_link,
            link(&rel, Path::new("../home/.claude"))
        );
    }

    #[test]
    fn a_path_too_deep_to_look_through_is_not_read() {
        let deep: PathBuf = std::iter::once("/".to_owned())
            .chain((0..MAX_COMPONENTS).map(|i| format!("d{i}")))
            .collect();
        let looked = look_now(&deep);
        assert_eq!(looked.through_link, None);
        assert!(
            matches!(&looked.state, FileState::Unreadable(why) if why.contains("components")),
            "{looked:?}"
        );
    }
}
