//! The data directory: the database, `connection.json` and the lock that lets one console
//! serve it at a time.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::DB_FILE;
use crate::token::write_private;

/// The file the CLI and agents read to find the running console.
pub const CONNECTION_FILE: &str = "connection.json";
const LOCK_FILE: &str = "countersign.lock";
/// The variable naming the data directory.
pub const DATA_DIR_ENV: &str = "COUNTERSIGN_DATA_DIR";

/// How to reach the running console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    pub url: String,
    pub pid: u32,
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
    /// entries and messages name it the same way from any working directory.
    pub fn create(&self) -> Result<DataDir, DataDirError> {
        std::fs::create_dir_all(&self.root).map_err(self.io(self.root.clone()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let perms = std::fs::Permissions::from_mode(0o700);
            std::fs::set_permissions(&self.root, perms).map_err(self.io(self.root.clone()))?;
        }
        let root = std::fs::canonicalize(&self.root).map_err(self.io(self.root.clone()))?;
        Ok(DataDir { root })
    }

    /// Creates the directory and takes its lock, or says which console holds it.
    pub fn lock(&self) -> Result<ServeLock, DataDirError> {
        let dir = self.create()?;
        let path = dir.root.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(dir.io(path.clone()))?;
        match file.try_lock() {
            Ok(()) => Ok(ServeLock { _file: file, dir }),
            Err(std::fs::TryLockError::WouldBlock) => {
                let running = dir.connection().ok();
                Err(DataDirError::Locked {
                    dir: dir.root,
                    running,
                })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(DataDirError::Io { path, source: e }),
        }
    }

    /// The running console's address, from `connection.json`.
    pub fn connection(&self) -> Result<Connection, DataDirError> {
        let path = self.root.join(CONNECTION_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DataDirError::NotRunning(self.root.clone()));
            }
            Err(source) => return Err(DataDirError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|e| DataDirError::BadConnection {
            path,
            what: e.to_string(),
        })
    }

    /// The directory with symlinks resolved, when it exists.
    pub fn canonical(&self) -> DataDir {
        DataDir {
            root: std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone()),
        }
    }
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
    fn connection_missing_means_not_running() {
        let tmp = tempfile::tempdir().unwrap();
        let err = DataDir::at(tmp.path()).connection().unwrap_err();
        assert!(matches!(err, DataDirError::NotRunning(_)));
    }
}
