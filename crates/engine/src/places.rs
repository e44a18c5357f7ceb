//! What the console itself knows of the machine a rule is about: the directories no approve
//! rule reaches (its own data directory, the home directory's `bin`), and what is really at a
//! diff's paths — a symbolic link on the way, other hard links to the file — which the agent's
//! own account of the file cannot be trusted to say.

use std::path::{Component, Path};

use countersign_domain::call::CallView;
use countersign_domain::grant::OnDiskFacts;

/// The directories no approve rule reaches, for a console whose data directory is `data_dir`:
/// that directory (where `connection.json` tells every hook where the console is), and the
/// home directory's `bin` (on the PATH of many shells).
pub fn protected(data_dir: Option<&Path>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(dir) = data_dir {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        out.push(dir.display().to_string());
    }
    if let Some(home) = dirs::home_dir() {
        out.push(home.join("bin").display().to_string());
    }
    out
}

/// What is at each path of a diff call, as this machine sees it now; empty for other calls.
pub fn disk_facts(call: &CallView) -> Vec<OnDiskFacts> {
    let CallView::Diff(d) = call else {
        return Vec::new();
    };
    d.diffs.iter().map(|f| looked(&f.path)).collect()
}

/// What is at `path`: a symbolic link on the way to it (or it), and other hard links to it.
fn looked(path: &str) -> OnDiskFacts {
    let mut facts = OnDiskFacts {
        path: path.to_owned(),
        ..OnDiskFacts::default()
    };
    let p = Path::new(path);
    if !p.is_absolute() {
        return facts;
    }
    let mut so_far = std::path::PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(_) | Component::RootDir | Component::Prefix(_) => so_far.push(c),
            // `.` and `..` make the path not plain: the domain never approves it.
            Component::CurDir | Component::ParentDir => return facts,
        }
        let Ok(meta) = std::fs::symlink_metadata(&so_far) else {
            // Nothing there yet: a new file in a new folder.
            return facts;
        };
        if meta.file_type().is_symlink() {
            facts.through_link = true;
            return facts;
        }
        if so_far.as_os_str() == p.as_os_str() && meta.is_file() {
            facts.hard_links = more_than_one_link(&meta);
        }
    }
    facts
}

#[cfg(unix)]
fn more_than_one_link(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.nlink() > 1
}

/// Windows does not say a file's link count through a stable interface: a folder rule there
/// relies on the written path and symbolic links.
#[cfg(not(unix))]
fn more_than_one_link(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_on_the_way_and_other_names_of_a_file_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let plain = root.join("plain.txt");
        std::fs::write(&plain, "x").unwrap();
        let f = looked(plain.to_str().unwrap());
        assert!(!f.through_link && !f.hard_links);
        // A second name for the same file.
        std::fs::hard_link(&plain, root.join("other.txt")).unwrap();
        assert!(looked(plain.to_str().unwrap()).hard_links);
        // A folder that is a link, and a file under it.
        std::fs::create_dir(root.join("real")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
            let under = root.join("link/new.txt");
            assert!(looked(under.to_str().unwrap()).through_link);
        }
        // Nothing there yet.
        let new = root.join("real/new/deeper.txt");
        assert_eq!(
            looked(new.to_str().unwrap()),
            OnDiskFacts {
                path: new.display().to_string(),
                ..OnDiskFacts::default()
            }
        );
        let p = protected(Some(&root));
        assert_eq!(p[0], root.display().to_string());
    }
}
