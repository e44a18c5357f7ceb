//! The cards of Claude Code's file tools (Write, Edit, MultiEdit), showing the file as it is:
//! the whole file a write replaces, where an edit lands with the lines around it, or why the
//! file could not be read, and the symbolic link the path goes through. Mapping only: the
//! caller reads the file (the hook, on the agent's machine) and passes what it found.

use serde::Deserialize;

use countersign_domain::call::{
    CallView, DiffCall, Excerpt, FileDiff, FileLocation, OnDisk, ThroughLink, Unread,
};

/// What a path held when the caller looked, for the card of a call that changes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// Nothing is there: a write makes a new file.
    Missing,
    /// A regular file's text.
    Text(String),
    /// Something is there but it could not be read, and why.
    Unreadable(String),
}

/// What the caller found at a path a call changes: what is there, and the first symbolic link
/// on the way to it (a directory above the file, or the file itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Looked {
    pub state: FileState,
    pub through_link: Option<ThroughLink>,
}

impl From<FileState> for Looked {
    fn from(state: FileState) -> Self {
        Looked {
            state,
            through_link: None,
        }
    }
}

/// Said in a title when the path goes through a link; the diff names the link and its target.
const THROUGH_A_LINK: &str = "reached through a symbolic link";

/// Lines of the file shown on each side of an edit, as many as the diff view keeps around a
/// change.
const CONTEXT_LINES: usize = 3;
/// At most this much of the file on each side of an edit: one line of a minified file can be
/// megabytes.
const MAX_CONTEXT_BYTES: usize = 4096;
/// Lines named in a title for a text found more than once.
const MAX_LINES_NAMED: usize = 10;

#[derive(Deserialize)]
pub(super) struct Edit {
    file_path: String,
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

#[derive(Deserialize)]
pub(super) struct MultiEdit {
    file_path: String,
    edits: Vec<OneEdit>,
}

#[derive(Deserialize)]
struct OneEdit {
    old_string: String,
    new_string: String,
    #[serde(default)]
    replace_all: bool,
}

#[derive(Deserialize)]
pub(super) struct Write {
    file_path: String,
    content: String,
}

impl Edit {
    pub(super) fn path(&self) -> &str {
        &self.file_path
    }
}

impl MultiEdit {
    pub(super) fn path(&self) -> &str {
        &self.file_path
    }

    pub(super) fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

impl Write {
    pub(super) fn path(&self) -> &str {
        &self.file_path
    }
}

fn card(title: String, path: String, diffs: Vec<FileDiff>) -> CallView {
    CallView::Diff(DiffCall {
        title,
        diffs,
        locations: Some(vec![FileLocation { path, line: None }]),
        content: None,
    })
}

fn titled(action: &str, path: &str, notes: &[String]) -> String {
    if notes.is_empty() {
        format!("{action} {path}")
    } else {
        format!("{action} {path} ({})", notes.join("; "))
    }
}

/// A file replaced whole: old to new when it could be read, a new file when nothing is there,
/// and never a new file when something is there that could not be read.
fn whole(path: &str, new_text: String, state: FileState) -> (FileDiff, Option<String>) {
    let (old_text, on_disk, note) = match state {
        FileState::Missing => (None, None, None),
        FileState::Text(old) => (
            Some(old),
            Some(OnDisk::Whole),
            Some("replaces the existing file".to_owned()),
        ),
        FileState::Unreadable(reason) => (
            None,
            Some(OnDisk::Unreadable(Unread {
                reason: reason.clone(),
            })),
            Some(format!(
                "replaces an existing file (could not be read: {reason})"
            )),
        ),
    };
    let diff = FileDiff {
        path: path.to_owned(),
        old_text,
        new_text,
        replace_all: None,
        on_disk,
        through_link: None,
    };
    (diff, note)
}

/// Write: the whole file, old to new.
pub(super) fn write(w: Write, looked: Looked) -> CallView {
    let (mut diff, note) = whole(&w.file_path, w.content, looked.state);
    let mut notes: Vec<String> = note.into_iter().collect();
    linked(&mut diff, looked.through_link.as_ref(), &mut notes);
    let title = if notes.is_empty() {
        format!("Write {}", w.file_path)
    } else {
        format!("Write {}: {}", w.file_path, notes.join("; "))
    };
    card(title, w.file_path, vec![diff])
}

/// Marks a diff whose path goes through a link, and says so in the title's notes.
fn linked(diff: &mut FileDiff, link: Option<&ThroughLink>, notes: &mut Vec<String>) {
    if let Some(link) = link {
        diff.through_link = Some(link.clone());
        notes.push(THROUGH_A_LINK.to_owned());
    }
}

/// Edit: the fragment in place in the file, with its line and the lines around it.
pub(super) fn edit(e: Edit, looked: Looked) -> CallView {
    let every = e.replace_all.then_some(true);
    let Looked {
        state,
        through_link,
    } = looked;
    // Nothing to replace: the edit makes the file, or replaces a file that is there.
    if e.old_string.is_empty() {
        let (mut diff, note) = whole(&e.file_path, e.new_string, state);
        diff.replace_all = every;
        let mut notes: Vec<String> = note.into_iter().collect();
        linked(&mut diff, through_link.as_ref(), &mut notes);
        return card(
            titled("Edit", &e.file_path, &notes),
            e.file_path,
            vec![diff],
        );
    }
    let mut notes = Vec::new();
    let on_disk = match state {
        FileState::Text(text) => {
            let found = Found::of(&text, &e.old_string);
            match found.count {
                0 => {
                    notes.push("the text to replace is not in the file".to_owned());
                    None
                }
                1 => {
                    if e.replace_all {
                        notes.push("every occurrence".to_owned());
                    }
                    found.first(&text, &e.old_string)
                }
                n if e.replace_all => {
                    notes.push(format!("every occurrence: {n}, {}", found.lines()));
                    None
                }
                n => {
                    notes.push(format!(
                        "the text to replace is in the file {n} times, {}",
                        found.lines()
                    ));
                    None
                }
            }
        }
        other => {
            if e.replace_all {
                notes.push("every occurrence".to_owned());
            }
            not_read(other, &mut notes)
        }
    };
    let mut diff = FileDiff {
        path: e.file_path.clone(),
        old_text: Some(e.old_string),
        new_text: e.new_string,
        replace_all: every,
        on_disk,
        through_link: None,
    };
    linked(&mut diff, through_link.as_ref(), &mut notes);
    card(
        titled("Edit", &e.file_path, &notes),
        e.file_path,
        vec![diff],
    )
}

/// A file that is not there or could not be read, for an edit: said in a note, and an
/// unreadable file marked on its diffs.
fn not_read(state: FileState, notes: &mut Vec<String>) -> Option<OnDisk> {
    match state {
        FileState::Missing => {
            notes.push("the file does not exist".to_owned());
            None
        }
        FileState::Unreadable(reason) => {
            notes.push(format!("could not read the file: {reason}"));
            Some(OnDisk::Unreadable(Unread { reason }))
        }
        FileState::Text(_) => None,
    }
}

/// MultiEdit: each change in place in the file as the changes before it leave it, until one
/// cannot be placed (Claude Code then refuses them all).
pub(super) fn multi_edit(m: MultiEdit, looked: Looked) -> CallView {
    let n = m.edits.len();
    let mut notes = Vec::new();
    let mut places: Vec<Option<OnDisk>> = vec![None; n];
    match looked.state {
        FileState::Text(mut text) => {
            for (i, e) in m.edits.iter().enumerate() {
                let found = Found::of(&text, &e.old_string);
                let k = i + 1;
                match found.count {
                    _ if e.old_string.is_empty() => {
                        notes.push(format!("change {k} has no text to find"));
                        break;
                    }
                    0 => {
                        notes.push(format!("change {k} is not in the file"));
                        break;
                    }
                    1 => {
                        places[i] = found.first(&text, &e.old_string);
                        text = text.replacen(&e.old_string, &e.new_string, 1);
                    }
                    c if e.replace_all => {
                        notes.push(format!("change {k}: {c} occurrences, {}", found.lines()));
                        text = text.replace(&e.old_string, &e.new_string);
                    }
                    c => {
                        notes.push(format!("change {k} is in the file {c} times"));
                        break;
                    }
                }
            }
        }
        FileState::Missing if m.edits.first().is_some_and(|e| e.old_string.is_empty()) => {}
        other => {
            let on_disk = not_read(other, &mut notes);
            places = vec![on_disk; n];
        }
    }
    let every = m.edits.iter().filter(|e| e.replace_all).count();
    if every > 0 {
        notes.insert(0, format!("{every} replacing every occurrence"));
    }
    // Every change is to the same path, so each diff carries the link.
    if looked.through_link.is_some() {
        notes.push(THROUGH_A_LINK.to_owned());
    }
    let title = format!(
        "Edit {}: {n} change{}{}",
        m.file_path,
        if n == 1 { "" } else { "s" },
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        }
    );
    let diffs = m
        .edits
        .into_iter()
        .zip(places)
        .map(|(e, on_disk)| FileDiff {
            path: m.file_path.clone(),
            old_text: Some(e.old_string),
            new_text: e.new_string,
            replace_all: e.replace_all.then_some(true),
            on_disk,
            through_link: looked.through_link.clone(),
        })
        .collect();
    card(title, m.file_path, diffs)
}

/// Where a text occurs in a file: how many times, and the lines of the first few.
struct Found {
    count: usize,
    first_at: Option<usize>,
    lines: Vec<usize>,
}

impl Found {
    fn of(text: &str, needle: &str) -> Self {
        let mut found = Found {
            count: 0,
            first_at: None,
            lines: Vec::new(),
        };
        if needle.is_empty() {
            return found;
        }
        // Lines counted as the search goes, so a file full of matches is read once.
        let (mut line, mut counted_to) = (1, 0);
        for (at, _) in text.match_indices(needle) {
            found.count += 1;
            if found.lines.len() < MAX_LINES_NAMED {
                line += text[counted_to..at].matches('\n').count();
                counted_to = at;
                found.lines.push(line);
            }
            found.first_at.get_or_insert(at);
        }
        found
    }

    /// The first occurrence, in place.
    fn first(&self, text: &str, needle: &str) -> Option<OnDisk> {
        self.first_at
            .map(|at| OnDisk::At(excerpt(text, at, at + needle.len())))
    }

    /// "at lines 3, 9, 12", with "…" when there are more.
    fn lines(&self) -> String {
        let named: Vec<String> = self.lines.iter().map(usize::to_string).collect();
        let more = if self.count > self.lines.len() {
            ", …"
        } else {
            ""
        };
        format!("at lines {}{more}", named.join(", "))
    }
}

/// The file's text around `start..end`: CONTEXT_LINES whole lines on each side of the lines the
/// fragment spans, at most MAX_CONTEXT_BYTES a side.
fn excerpt(text: &str, start: usize, end: usize) -> Excerpt {
    let mut from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    for _ in 0..CONTEXT_LINES {
        if from == 0 {
            break;
        }
        // `from - 1` is the newline that ends the line above.
        from = text[..from - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    if start - from > MAX_CONTEXT_BYTES {
        from = ceil_char(text, start - MAX_CONTEXT_BYTES);
    }
    // The rest of the fragment's last line (none when it ends a line), then CONTEXT_LINES more.
    let ends_a_line = text[..end].ends_with('\n');
    let mut to = end;
    for _ in 0..CONTEXT_LINES + usize::from(!ends_a_line) {
        if to == text.len() {
            break;
        }
        to = text[to..].find('\n').map_or(text.len(), |i| to + i + 1);
    }
    if to - end > MAX_CONTEXT_BYTES {
        to = floor_char(text, end + MAX_CONTEXT_BYTES);
    }
    let line = 1 + text[..from].matches('\n').count();
    Excerpt {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        before: text[from..start].to_owned(),
        after: text[end..to].to_owned(),
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests;
