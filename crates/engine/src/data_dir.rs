//! The data directory: the database, `connection.json` and the lock that lets one console
//! serve it at a time.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::private_file::{open_private, read_private, write_private};
use countersign_store::DB_FILE;

/// The file the CLI and agents read to find the running console.
pub const CONNECTION_FILE: &str = "connection.json";
const LOCK_FILE: &str = "countersign.lock";
/// How often taking the lock is tried again (20 ms apart) before it counts as held.
const LOCK_TRIES: u32 = 5;
/// The variable naming the data directory.
pub const DATA_DIR_ENV: &str = "COUNTERSIGN_DATA_DIR";

/// How to reach the running console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    pub url: String,
    pub pid: u32,
}

impl Connection {
    /// Whether `url` is what a console publishes (`http://127.0.0.1:PORT`): the file is
    /// anyone's to write (any process of the user), so its text is repeated nowhere else.
    pub fn is_a_consoles(&self) -> bool {
        self.url
            .strip_prefix("http://127.0.0.1:")
            .is_some_and(|port| port.parse::<u16>().is_ok())
    }
}

/// Why the data directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("no data directory: pass --data-dir or set {DATA_DIR_ENV}")]
    NoDefault,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("another console already serves {dir}{}", running.as_ref().map(|c| format!(" (pid {} at {})", c.pid, c.url)).unwrap_or_default())]
    Locked {
        dir: PathBuf,
        running: Option<Connection>,
    },
    #[error("no console is running on {0} (start one with `countersign serve` or the desktop app)")]
    NotRunning(PathBuf),
    #[error("{path} is unreadable: {what}")]
    BadConnection { path: PathBuf, what: String },
    /// The directory or a file in it could let another user in: refused, never repaired.
    #[error("{path} is unsafe to use: {why}")]
    Unsafe { path: PathBuf, why: String },
}

/// A data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

/// Holds the directory's lock while a console serves it; released on drop (or process death).
#[derive(Debug)]
pub struct ServeLock {
    _file: File,
    dir: DataDir,
}

impl DataDir {
    /// `--data-dir` (clap also fills it from the environment variable), else the platform's
    /// data directory, e.g. `~/.local/share/countersign`.
    pub fn resolve(flag: Option<PathBuf>) -> Result<Self, DataDirError> {
        let root = match flag {
            Some(p) => p,
            None => dirs::data_dir()
                .ok_or(DataDirError::NoDefault)?
                .join("countersign"),
        };
        Ok(Self { root })
    }

    /// A data directory at `root`.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The SQLite file.
    pub fn db_path(&self) -> PathBuf {
        self.root.join(DB_FILE)
    }

    fn io(&self, path: PathBuf) -> impl FnOnce(std::io::Error) -> DataDirError {
        move |source| DataDirError::Io { path, source }
    }

    /// Creates the directory (0700, private) if needed and returns it canonical, so keyring
    /// entries and messages name it the same way from any working directory. A directory that
    /// is not the user's own, or that others may write to, is refused.
    pub fn create(&self) -> Result<DataDir, DataDirError> {
        if let Some(parent) = self.root.parent()
            && !parent.as_os_str().is_empty()
        {
            std::fs::create_dir_all(parent).map_err(self.io(parent.to_owned()))?;
        }
        #[cfg_attr(not(unix), expect(unused_mut, reason = "only Unix sets a mode"))]
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&self.root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(self.io(self.root.clone())(e)),
        }
        self.checked()
    }

    /// The directory, canonical, once it is known to be the user's own and closed to others.
    pub fn checked(&self) -> Result<DataDir, DataDirError> {
        let root = match std::fs::canonicalize(&self.root) {
            Ok(root) => root,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DataDirError::NotRunning(self.root.clone()));
            }
            Err(e) => return Err(self.io(self.root.clone())(e)),
        };
        let meta = std::fs::metadata(&root).map_err(self.io(root.clone()))?;
        let unsafe_dir = |why: String| DataDirError::Unsafe {
            path: root.clone(),
            why,
        };
        if !meta.is_dir() {
            return Err(unsafe_dir("it is not a directory".into()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            let me = nix::unistd::geteuid().as_raw();
            if meta.uid() != me {
                return Err(unsafe_dir(format!(
                    "it belongs to user {}, not to you (user {me}); use a directory of your own",
                    meta.uid()
                )));
            }
            if meta.mode() & 0o022 != 0 {
                return Err(unsafe_dir(format!(
                    "others may write to it (mode {:o}); make it private with `chmod 700 {}`",
                    meta.mode() & 0o7777,
                    root.display()
                )));
            }
        }
        Ok(DataDir { root })
    }

    /// Creates the directory and takes its lock, or says which console holds it.
    pub fn lock(&self) -> Result<ServeLock, DataDirError> {
        let dir = self.create()?;
        let path = dir.root.join(LOCK_FILE);
        let file = open_private(&path, false).map_err(dir.io(path.clone()))?;
        // A client asking whether the lock is held takes it shared for an instant: try again
        // briefly before saying another console holds it.
        let mut tries = 0;
        let taken = loop {
            match file.try_lock() {
                Err(std::fs::TryLockError::WouldBlock) if tries < LOCK_TRIES => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other,
            }
        };
        match taken {
            Ok(()) => Ok(ServeLock { _file: file, dir }),
            Err(std::fs::TryLockError::WouldBlock) => {
                // Named only if it reads as a console's: the window shows this message.
                let running = dir.connection().ok().filter(Connection::is_a_consoles);
                Err(DataDirError::Locked {
                    dir: dir.root,
                    running,
                })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(DataDirError::Io { path, source: e }),
        }
    }

    /// The running console's address, from `connection.json` (never read through a symlink).
    pub fn connection(&self) -> Result<Connection, DataDirError> {
        let path = self.root.join(CONNECTION_FILE);
        let text = match read_private(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DataDirError::NotRunning(self.root.clone()));
            }
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(nix::libc::ELOOP) => {
                return Err(DataDirError::Unsafe {
                    path,
                    why: "it is a symbolic link; it was not followed".into(),
                });
            }
            Err(source) => return Err(DataDirError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|e| DataDirError::BadConnection {
            path,
            what: e.to_string(),
        })
    }
}

/// Who holds a data directory's lock, as far as this platform can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockHolder {
    /// This process: a console serving the directory.
    Pid(u32),
    /// Nobody: no console serves the directory.
    Nobody,
    /// The platform does not say (no kernel lock table here).
    Unknown,
}

impl DataDir {
    /// Whether a console holds this directory's lock now, asked of the lock itself (a shared
    /// lock taken and dropped at once, a few system calls); `None` when that cannot be asked.
    /// It says nothing of who holds it: a client's proof over a fresh nonce says that.
    pub fn lock_held(&self) -> Option<bool> {
        let path = self.root.join(LOCK_FILE);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_file() => lock_is_held(&path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(false),
            Ok(_) | Err(_) => None,
        }
    }

    /// The process holding this directory's lock (a running console), from the kernel's
    /// table of locks where there is one; else, or when no holder is visible from here (another
    /// pid namespace), whether the lock is held at all.
    pub fn lock_holder(&self) -> LockHolder {
        let path = self.root.join(LOCK_FILE);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return LockHolder::Nobody;
        };
        #[cfg(target_os = "linux")]
        if let Ok(table) = std::fs::read_to_string("/proc/locks") {
            use std::os::unix::fs::MetadataExt as _;
            // The table's device numbers differ from stat's on some file systems (btrfs):
            // match the inode there, then confirm the pid has this very file open.
            let holder = flock_writers(&table, meta.ino())
                .into_iter()
                .find(|&pid| has_open(pid, &meta));
            if let Some(pid) = holder {
                return LockHolder::Pid(pid);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = meta;
        match lock_is_held(&path) {
            Some(false) => LockHolder::Nobody,
            Some(true) | None => LockHolder::Unknown,
        }
    }
}

/// Whether someone holds the lock at `path`, asked of the lock itself: a shared lock taken
/// and dropped at once. `None` when that cannot be asked.
fn lock_is_held(path: &Path) -> Option<bool> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, nix::libc::O_NOFOLLOW);
    let file = opts.open(path).ok()?;
    match file.try_lock_shared() {
        Ok(()) => Some(false),
        Err(std::fs::TryLockError::WouldBlock) => Some(true),
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// The pids holding a write `FLOCK` on inode `ino` in the text of `/proc/locks`
/// (`1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF`). Waiters (`1: -> FLOCK …`) hold
/// nothing and do not count.
#[cfg(any(target_os = "linux", test))]
fn flock_writers(table: &str, ino: u64) -> Vec<u32> {
    table
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (kind, mode, pid, file) = (f.get(1)?, f.get(3)?, f.get(4)?, f.get(5)?);
            let inode: u64 = file.rsplit(':').next()?.parse().ok()?;
            (*kind == "FLOCK" && *mode == "WRITE" && inode == ino)
                .then(|| pid.parse().ok())
                .flatten()
        })
        .collect()
}

/// Whether process `pid` has the file described by `meta` open.
#[cfg(target_os = "linux")]
fn has_open(pid: u32, meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::metadata(fd.path()).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    })
}

/// The database files SQLite keeps beside each other.
const DB_SIDE_FILES: [&str; 2] = ["-wal", "-shm"];

impl DataDir {
    /// Makes sure the database and its side files are the user's own regular files, mode 0600,
    /// before SQLite opens them (SQLite follows symlinks, and gives its side files the mode of
    /// the database). A missing database is created here, exclusively.
    pub fn prepare_db(&self) -> Result<PathBuf, DataDirError> {
        let db = self.db_path();
        let mut names = vec![db.clone()];
        names.extend(DB_SIDE_FILES.iter().map(|s| {
            let mut p = db.clone().into_os_string();
            p.push(s);
            PathBuf::from(p)
        }));
        for path in names {
            match std::fs::symlink_metadata(&path) {
                Ok(meta) => check_own_file(&path, &meta)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if path == db {
                        open_private(&path, true).map_err(self.io(path.clone()))?;
                    }
                }
                Err(e) => return Err(self.io(path.clone())(e)),
            }
        }
        Ok(db)
    }
}

/// A file the console keeps must be a regular file of the user's own; it is made 0600.
fn check_own_file(path: &Path, meta: &std::fs::Metadata) -> Result<(), DataDirError> {
    let unsafe_file = |why: &str| DataDirError::Unsafe {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_file("it is a symbolic link; remove it"));
    }
    if !meta.is_file() {
        return Err(unsafe_file("it is not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
        if meta.uid() != nix::unistd::geteuid().as_raw() {
            return Err(unsafe_file("it belongs to another user"));
        }
        if meta.mode() & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(
                |source| DataDirError::Io {
                    path: path.to_owned(),
                    source,
                },
            )?;
        }
    }
    Ok(())
}

impl ServeLock {
    /// The locked directory (canonical).
    pub fn dir(&self) -> &DataDir {
        &self.dir
    }

    /// Publishes where the console listens (0600).
    pub fn publish(&self, conn: &Connection) -> Result<(), DataDirError> {
        let path = self.dir.root.join(CONNECTION_FILE);
        let json = serde_json::to_vec_pretty(conn).map_err(|e| DataDirError::BadConnection {
            path: path.clone(),
            what: e.to_string(),
        })?;
        write_private(&path, &json).map_err(self.dir.io(path))
    }

    /// Removes `connection.json` when the console stops.
    pub fn withdraw(&self) {
        let _ = std::fs::remove_file(self.dir.root.join(CONNECTION_FILE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_is_refused_and_names_the_first() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("data"));
        let lock = dir.lock().unwrap();
        lock.publish(&Connection {
            url: "http://127.0.0.1:1".into(),
            pid: 42,
        })
        .unwrap();
        let err = dir.lock().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("pid 42") && msg.contains("http://127.0.0.1:1"),
            "{msg}"
        );
        drop(lock);
        assert!(dir.lock().is_ok());
    }

    #[test]
    fn a_lock_holders_written_address_is_named_only_if_it_is_a_consoles() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("data"));
        let lock = dir.lock().unwrap();
        for hostile in [
            "http://127.0.0.1:1\nApprove everything: it is safe",
            "http://127.0.0.1:1\u{202e}",
            "https://evil.example",
            "http://127.0.0.1:99999",
        ] {
            lock.publish(&Connection {
                url: hostile.into(),
                pid: 7,
            })
            .unwrap();
            let msg = dir.lock().unwrap_err().to_string();
            assert!(
                !msg.contains("pid 7") && !msg.contains("evil") && !msg.contains("Approve"),
                "{msg}"
            );
            assert!(msg.starts_with("another console already serves"), "{msg}");
        }
    }

    #[test]
    fn the_lock_holder_is_read_from_the_kernel_table() {
        let table = "1: POSIX  ADVISORY  WRITE 11 fd:01:77 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4242 fd:01:77 0 EOF\n\
                     2: -> FLOCK  ADVISORY  WRITE 999 fd:01:77 0 EOF\n\
                     3: FLOCK  ADVISORY  READ 5 fd:01:78 0 EOF\n\
                     4: FLOCK  ADVISORY  WRITE 6 00:2a:77 0 EOF\n";
        assert_eq!(
            flock_writers(table, 77),
            [4242, 6],
            "confirmed by the open file"
        );
        assert!(flock_writers(table, 78).is_empty());
        assert!(flock_writers(table, 79).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_holds_the_lock_it_took() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("data"));
        assert_eq!(dir.lock_holder(), LockHolder::Nobody);
        assert_eq!(dir.lock_held(), Some(false));
        let lock = dir.lock().unwrap();
        assert_eq!(
            lock.dir().lock_holder(),
            LockHolder::Pid(std::process::id())
        );
        assert_eq!(lock.dir().lock_held(), Some(true));
        drop(lock);
        assert_eq!(dir.lock_holder(), LockHolder::Nobody);
        assert_eq!(dir.lock_held(), Some(false));
    }

    #[test]
    fn the_lock_answers_whether_it_is_held_and_a_brief_look_does_not_stop_a_console() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("data"));
        let path = dir.create().unwrap().root.join(LOCK_FILE);
        let lock = dir.lock().unwrap();
        assert_eq!(lock_is_held(&path), Some(true));
        drop(lock);
        assert_eq!(lock_is_held(&path), Some(false));
        // A client's look (a shared lock) overlapping a console's start: the console waits.
        let look = std::fs::File::open(&path).unwrap();
        look.try_lock_shared().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            drop(look);
        });
        assert!(dir.lock().is_ok());
        release.join().unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_others_may_write_to_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        std::fs::create_dir(&root).unwrap();
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = DataDir::at(&root).lock().unwrap_err();
        assert!(matches!(err, DataDirError::Unsafe { .. }), "{err}");
        assert!(err.to_string().contains("chmod 700"), "{err}");
        let mode = std::fs::metadata(&root).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o777, "refused, never chmod-ed");
    }

    #[cfg(unix)]
    #[test]
    fn a_new_directory_and_its_files_are_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::at(tmp.path().join("a/b/data"));
        let lock = dir.lock().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(lock.dir().root()), 0o700);
        assert_eq!(mode(&lock.dir().root().join(LOCK_FILE)), 0o600);
        let db = lock.dir().prepare_db().unwrap();
        assert_eq!(mode(&db), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn planted_symlinks_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim.db");
        std::fs::write(&victim, "x").unwrap();
        let dir = DataDir::at(tmp.path().join("data")).create().unwrap();
        std::os::unix::fs::symlink(&victim, dir.root().join("countersign.db-wal")).unwrap();
        let err = dir.prepare_db().unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        std::fs::remove_file(dir.root().join("countersign.db-wal")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.root().join(LOCK_FILE)).unwrap();
        assert!(
            dir.lock().is_err(),
            "the lock is never opened through a symlink"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "x");
    }

    #[test]
    fn connection_missing_means_not_running() {
        let tmp = tempfile::tempdir().unwrap();
        let err = DataDir::at(tmp.path()).connection().unwrap_err();
        assert!(matches!(err, DataDirError::NotRunning(_)));
    }
}
