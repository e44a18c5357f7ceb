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

/// How many words of a command line are looked at on disk, at most.
const MAX_WORDS_LOOKED_AT: usize = 256;

/// The words of a terminal call (and the values of `--opt=value` words) that name a path going
/// through a symbolic link, from `cwd`: a link inside the project may lead anywhere, so no
/// prefix covers an operand through one. Words past the first [`MAX_WORDS_LOOKED_AT`] are not
/// looked at and are all in it. Empty for other calls.
pub fn linked_words(call: &CallView, cwd: Option<&str>) -> Vec<String> {
    let Some(segments) = countersign_domain::grant::command_segments(call) else {
        return Vec::new();
    };
    let base = match call {
        CallView::Terminal(t) => t.cwd.as_deref().or(cwd),
        _ => cwd,
    };
    let mut out = std::collections::BTreeSet::new();
    for (n, word) in operands(&segments).enumerate() {
        // Past the words looked at, a word is taken to go through a link: not known not to.
        if n >= MAX_WORDS_LOOKED_AT {
            out.insert(word);
            continue;
        }
        let path = Path::new(&word);
        let full = match (path.is_absolute(), base) {
            (true, _) => path.to_path_buf(),
            (false, Some(b)) if Path::new(b).is_absolute() => Path::new(b).join(path),
            // Nowhere to look from: not known not to go through a link.
            _ => {
                out.insert(word);
                continue;
            }
        };
        if through_a_link(&full) {
            out.insert(word);
        }
    }
    // Sorted, as the reader looks words up in it.
    out.into_iter().collect()
}

/// The words of a command's segments that may name a path: every operand, and the value of
/// each `--option=value`.
fn operands(segments: &[Vec<String>]) -> impl Iterator<Item = String> + '_ {
    segments
        .iter()
        .flat_map(|s| s.iter().skip(1))
        .flat_map(|w| {
            let value = w
                .strip_prefix('-')
                .and_then(|o| o.split_once('='))
                .map(|(_, v)| v.to_owned());
            std::iter::once(w.clone()).chain(value)
        })
        .filter(|w| !w.is_empty() && !w.starts_with('-'))
}

/// For a call of another machine, whose disk cannot be looked at from here: every word of a
/// terminal call that may name a path, as not known not to go through a link.
pub fn unseen_words(call: &CallView) -> Vec<String> {
    let Some(segments) = countersign_domain::grant::command_segments(call) else {
        return Vec::new();
    };
    let out: std::collections::BTreeSet<String> = operands(&segments).collect();
    out.into_iter().collect()
}

/// Whether a component of `path` (past the root) is a symbolic link.
fn through_a_link(path: &Path) -> bool {
    let mut so_far = std::path::PathBuf::new();
    for c in path.components() {
        so_far.push(c);
        if matches!(c, Component::RootDir | Component::Prefix(_)) {
            continue;
        }
        match std::fs::symlink_metadata(&so_far) {
            Ok(meta) if meta.file_type().is_symlink() => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

/// What is at each path of a diff call, as this machine sees it now; empty for other calls.
pub fn disk_facts(call: &CallView) -> Vec<OnDiskFacts> {
    let CallView::Diff(d) = call else {
        return Vec::new();
    };
    d.diffs.iter().map(|f| looked(&f.path)).collect()
}

/// Where `path` really lands: its deepest existing folder resolved, then the rest as written.
fn real_path(path: &Path) -> Option<String> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        rest.push(existing.file_name()?.to_owned());
        existing = existing.parent()?.to_path_buf();
    }
    let mut real = std::fs::canonicalize(&existing).ok()?;
    for part in rest.iter().rev() {
        real.push(part);
    }
    Some(real.display().to_string())
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
            facts.real = real_path(p);
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

    #[cfg(unix)]
    #[test]
    fn words_through_a_link_and_words_not_looked_at_are_linked_and_sorted() {
        use countersign_domain::call::TerminalCall;
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        let call = |command: String| {
            CallView::Terminal(TerminalCall {
                title: "t".into(),
                command,
                args: None,
                description: None,
                cwd: Some(root.display().to_string()),
                env: None,
                options: Some([("shell".to_owned(), "bash".into())].into()),
            })
        };
        let linked = linked_words(
            &call("tar -cf out/x.tar --file=out/y src; cat out".into()),
            None,
        );
        assert_eq!(linked, ["out", "out/x.tar", "out/y"]);
        // A long line: what lies past the words looked at counts as linked, not as plain.
        let many: Vec<String> = (0..MAX_WORDS_LOOKED_AT + 2)
            .map(|i| format!("f{i}"))
            .collect();
        let linked = linked_words(&call(format!("cat {}", many.join(" "))), None);
        let last = many.last().unwrap();
        assert!(
            linked.contains(last) && !linked.contains(&many[0]),
            "{linked:?}"
        );
        assert!(linked.windows(2).all(|w| w[0] < w[1]), "sorted");
        // Another machine's call: every operand and option value, whatever is on this disk.
        let unseen = unseen_words(&call("tar -cf out/x.tar --file=out/y src; cat".into()));
        assert_eq!(unseen, ["out/x.tar", "out/y", "src"]);
    }
}

/// A project's rules file as a call from it found it: its text, or why it could not be read
/// (which no repository rule matches), and its digest.
#[derive(Debug, Clone)]
pub struct Repository {
    pub text: Option<String>,
    pub digest: String,
}

/// The rules file of `project`, when it keeps one.
pub fn repository(project: Option<&str>) -> Option<Repository> {
    use std::io::Read as _;
    let project = project.filter(|p| p.starts_with('/'))?;
    let path = std::path::Path::new(project).join(countersign_domain::import::REPOSITORY_RULES);
    let unreadable = |why: String| {
        Some(Repository {
            text: None,
            digest: format!("unreadable: {why}"),
        })
    };
    // Opened without waiting (a FIFO put there would hold the thread until a writer came),
    // then read only if it is a plain file.
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = match options.open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return unreadable(e.to_string()),
    };
    match file.metadata() {
        Ok(m) if m.is_file() => {}
        Ok(_) => return unreadable("not a plain file".into()),
        Err(e) => return unreadable(e.to_string()),
    }
    let limit = u64::try_from(countersign_domain::import::MAX_FILE_BYTES).unwrap_or(u64::MAX);
    let mut text = String::new();
    match file.take(limit + 1).read_to_string(&mut text) {
        Ok(n) if u64::try_from(n).unwrap_or(u64::MAX) <= limit => Some(Repository {
            digest: text_digest(&text),
            text: Some(text),
        }),
        Ok(_) => Some(Repository {
            text: None,
            digest: "unreadable: too large".into(),
        }),
        Err(e) => Some(Repository {
            text: None,
            digest: format!("unreadable: {e}"),
        }),
    }
}

/// SHA-256 of a rules file's text, as hex.
pub fn text_digest(text: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
