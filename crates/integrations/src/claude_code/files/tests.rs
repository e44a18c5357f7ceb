//! The file tools' cards against files as they are: what a person reviewing the change sees.

use serde_json::{Value, json};

use super::*;
use crate::claude_code::HookPayload;
use countersign_domain::coverage::coverage;
use countersign_domain::diff::{LineKind, render};

/// Ten numbered lines, `line 1` to `line 10`.
fn ten_lines() -> String {
    (1..=10).map(|i| format!("line {i}\n")).collect()
}

fn submission(
    tool: &str,
    input: Value,
    state: FileState,
) -> countersign_domain::submission::Submission {
    let p = HookPayload::parse(
        &json!({"session_id": "s", "cwd": "/app", "hook_event_name": "PreToolUse",
                "tool_name": tool, "tool_input": input, "tool_use_id": "t"})
        .to_string(),
    )
    .unwrap();
    let s = p.submission(30, &|_| state.clone().into()).unwrap();
    s.validate().unwrap();
    assert!(
        coverage(&s.call, s.raw_input.as_ref()).is_complete(),
        "{tool} over {state:?}: everything it runs is on its card"
    );
    s
}

fn diff_card(s: &countersign_domain::submission::Submission) -> (&str, &[FileDiff]) {
    let CallView::Diff(d) = &s.call else {
        panic!("a diff card: {:?}", s.call)
    };
    (&d.title, &d.diffs)
}

#[test]
fn a_write_over_a_file_shows_the_file_it_replaces() {
    let input = json!({"file_path": "/app/a.txt", "content": "line 1\nline two\n"});
    let s = submission("Write", input, FileState::Text("line 1\nline 2\n".into()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(title, "Write /app/a.txt: replaces the existing file");
    assert_eq!(diffs[0].old_text.as_deref(), Some("line 1\nline 2\n"));
    assert_eq!(diffs[0].on_disk, Some(OnDisk::Whole));
    let r = render(&diffs[0]);
    assert!(!r.new_file);
    assert_eq!((r.added, r.removed), (1, 1), "only the line that changes");
}

#[test]
fn a_write_of_a_new_path_is_a_new_file() {
    let input = json!({"file_path": "/app/new.txt", "content": "hi\n"});
    let s = submission("Write", input, FileState::Missing);
    let (title, diffs) = diff_card(&s);
    assert_eq!(title, "Write /app/new.txt");
    assert_eq!(
        (diffs[0].old_text.as_deref(), &diffs[0].on_disk),
        (None, &None)
    );
    assert!(render(&diffs[0]).new_file);
}

#[test]
fn a_write_over_a_file_that_could_not_be_read_never_passes_for_a_new_file() {
    let input = json!({"file_path": "/app/a.txt", "content": "hi\n"});
    let why = "it is a symbolic link to /home/me/.bashrc";
    let s = submission("Write", input, FileState::Unreadable(why.into()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(
        title,
        format!("Write /app/a.txt: replaces an existing file (could not be read: {why})")
    );
    assert_eq!(diffs[0].old_text, None);
    assert_eq!(
        diffs[0].on_disk,
        Some(OnDisk::Unreadable(Unread { reason: why.into() }))
    );
    assert!(!render(&diffs[0]).new_file);
}

#[test]
fn an_edit_is_shown_at_its_line_with_the_lines_around_it() {
    let input = json!({"file_path": "/app/a.txt", "old_string": "line 6", "new_string": "six"});
    let s = submission("Edit", input, FileState::Text(ten_lines()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(title, "Edit /app/a.txt");
    assert_eq!(
        diffs[0].old_text.as_deref(),
        Some("line 6"),
        "the fragment as sent"
    );
    assert_eq!(
        diffs[0].on_disk,
        Some(OnDisk::At(Excerpt {
            line: 3,
            before: "line 3\nline 4\nline 5\n".into(),
            after: "\nline 7\nline 8\nline 9\n".into(),
        }))
    );
    let h = &render(&diffs[0]).hunks[0];
    let lines: Vec<_> = h
        .lines
        .iter()
        .map(|l| (l.kind, l.old_line, l.new_line))
        .collect();
    assert_eq!(
        lines,
        [
            (LineKind::Context, Some(3), Some(3)),
            (LineKind::Context, Some(4), Some(4)),
            (LineKind::Context, Some(5), Some(5)),
            (LineKind::Removed, Some(6), None),
            (LineKind::Added, None, Some(6)),
            (LineKind::Context, Some(7), Some(7)),
            (LineKind::Context, Some(8), Some(8)),
            (LineKind::Context, Some(9), Some(9)),
        ]
    );
}

#[test]
fn context_stops_at_the_file_s_ends_and_a_long_line_is_cut() {
    let text = ten_lines();
    let at = |needle: &str| {
        let start = text.find(needle).unwrap();
        excerpt(&text, start, start + needle.len())
    };
    let first = at("line 1\n");
    assert_eq!((first.line, first.before.as_str()), (1, ""));
    assert_eq!(
        first.after, "line 2\nline 3\nline 4\n",
        "a fragment ending a line"
    );
    let last = at("line 10");
    assert_eq!((last.line, last.after.as_str()), (7, "\n"));
    // One long line of two-byte letters: each side is cut at a letter, and numbered still.
    let long = format!("a\n{}x{}\nb\n", "é".repeat(5000), "é".repeat(5000));
    let start = long.find('x').unwrap();
    let e = excerpt(&long, start, start + 1);
    assert!(e.before.len() <= MAX_CONTEXT_BYTES && e.after.len() <= MAX_CONTEXT_BYTES);
    assert!(e.before.starts_with('é') && e.after.ends_with('é'));
    assert_eq!(e.line, 2);
}

#[test]
fn an_edit_that_cannot_be_placed_says_why_and_shows_the_fragment_alone() {
    let edit = |old: &str, every: bool, state: FileState| {
        let input = json!({"file_path": "/app/a.txt", "old_string": old, "new_string": "x",
                           "replace_all": every});
        let s = submission("Edit", input, state);
        let (title, diffs) = diff_card(&s);
        (title.to_owned(), diffs[0].on_disk.clone())
    };
    let text = || FileState::Text(ten_lines());
    assert_eq!(
        edit("line 11", false, text()),
        (
            "Edit /app/a.txt (the text to replace is not in the file)".into(),
            None
        )
    );
    assert_eq!(
        edit("line 1", false, text()).0,
        "Edit /app/a.txt (the text to replace is in the file 2 times, at lines 1, 10)"
    );
    assert_eq!(
        edit("line", true, text()).0,
        "Edit /app/a.txt (every occurrence: 10, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"
    );
    let (_, at) = edit("line 7", true, text());
    assert!(matches!(at, Some(OnDisk::At(Excerpt { line: 4, .. }))));
    assert_eq!(
        edit("a", false, FileState::Missing).0,
        "Edit /app/a.txt (the file does not exist)"
    );
    let (title, on_disk) = edit(
        "a",
        false,
        FileState::Unreadable("permission denied".into()),
    );
    assert_eq!(
        title,
        "Edit /app/a.txt (could not read the file: permission denied)"
    );
    assert!(matches!(on_disk, Some(OnDisk::Unreadable(_))));
}

#[test]
fn an_edit_with_nothing_to_replace_over_a_file_shows_the_file_it_replaces() {
    let input = json!({"file_path": "/app/a.txt", "old_string": "", "new_string": "new\n"});
    let s = submission("Edit", input.clone(), FileState::Text("old\n".into()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(title, "Edit /app/a.txt (replaces the existing file)");
    assert_eq!(diffs[0].old_text.as_deref(), Some("old\n"));
    assert_eq!(diffs[0].on_disk, Some(OnDisk::Whole));
    let s = submission("Edit", input, FileState::Missing);
    assert_eq!(diff_card(&s).1[0].old_text, None, "a new file");
}

#[test]
fn multi_edit_changes_are_placed_in_the_file_as_the_ones_before_leave_it() {
    let input = json!({"file_path": "/app/a.txt", "edits": [
        {"old_string": "line 2\n", "new_string": "two\nand a half\n"},
        {"old_string": "line 8", "new_string": "eight"},
        {"old_string": "and a half", "new_string": "½"}]});
    let s = submission("MultiEdit", input, FileState::Text(ten_lines()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(title, "Edit /app/a.txt: 3 changes");
    let line = |i: usize| match &diffs[i].on_disk {
        Some(OnDisk::At(e)) => e.line + e.before.matches('\n').count() as u32,
        other => panic!("change {i} not placed: {other:?}"),
    };
    // Line 8 is line 9 once line 2 became two lines; the third change is in the first's text.
    assert_eq!([line(0), line(1), line(2)], [2, 9, 3]);

    let input = json!({"file_path": "/app/a.txt", "edits": [
        {"old_string": "line 2", "new_string": "two"},
        {"old_string": "line 2", "new_string": "again"},
        {"old_string": "line 3", "new_string": "three"}]});
    let s = submission("MultiEdit", input, FileState::Text(ten_lines()));
    let (title, diffs) = diff_card(&s);
    assert_eq!(
        title,
        "Edit /app/a.txt: 3 changes (change 2 is not in the file)"
    );
    assert!(diffs[0].on_disk.is_some());
    assert_eq!((&diffs[1].on_disk, &diffs[2].on_disk), (&None, &None));
}

#[test]
fn what_the_file_holds_is_shown_but_its_marks_do_not_count_against_the_call() {
    // Trailing spaces and a zero-width space in the file, none in the change.
    let file = "a  \nb\u{200b}\nline 3\nc\n";
    let input = json!({"file_path": "/app/a.txt", "old_string": "line 3", "new_string": "x"});
    let s = submission("Edit", input, FileState::Text(file.into()));
    let call = serde_json::to_value(&s.call).unwrap();
    assert_eq!(s.hidden_marks(&call), 0);
    let r = render(&diff_card(&s).1[0]);
    let shown: usize = r.hunks[0]
        .lines
        .iter()
        .flat_map(|l| &l.segments)
        .map(|seg| seg.marks.len())
        .sum();
    assert_eq!(shown, 2, "the file's own marks are shown in the diff");
    let input = json!({"file_path": "/app/a.txt", "content": "new\u{200b}\n"});
    let s = submission("Write", input, FileState::Text(file.into()));
    let call = serde_json::to_value(&s.call).unwrap();
    assert_eq!(
        s.hidden_marks(&call),
        2,
        "the new text's mark, in the card and the raw input"
    );
}

#[test]
fn only_the_file_tools_name_a_file_to_read() {
    let files = |tool: &str, input: Value| {
        HookPayload::parse(
            &json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input})
                .to_string(),
        )
        .unwrap()
        .files_changed()
    };
    assert_eq!(
        files("Write", json!({"file_path": "/a", "content": ""})),
        ["/a"]
    );
    assert_eq!(
        files(
            "Edit",
            json!({"file_path": "/b", "old_string": "x", "new_string": "y"})
        ),
        ["/b"]
    );
    assert_eq!(
        files(
            "MultiEdit",
            json!({"file_path": "/c", "edits": [
            {"old_string": "x", "new_string": "y"}]})
        ),
        ["/c"]
    );
    // Not changed, or not a file tool's input: nothing is read.
    assert!(files("Read", json!({"file_path": "/etc/shadow"})).is_empty());
    assert!(files("Edit", json!({"file_path": "/d"})).is_empty());
    assert!(files("Bash", json!({"command": "cat /etc/shadow"})).is_empty());
}

/// `/app/notes` is a link: every file tool's card says so in its title and marks each diff,
/// whether the file is there, new, or cannot be read.
#[test]
fn a_path_through_a_link_is_said_on_every_file_card() {
    let link = ThroughLink {
        link: "/app/notes".into(),
        target: Some("/home/u/.claude".into()),
    };
    let card = |tool: &str, input: Value, state: FileState| {
        let p = HookPayload::parse(
            &json!({"session_id": "s", "cwd": "/app", "hook_event_name": "PreToolUse",
                    "tool_name": tool, "tool_input": input, "tool_use_id": "t"})
            .to_string(),
        )
        .unwrap();
        let looked = Looked {
            state,
            through_link: Some(link.clone()),
        };
        let s = p.submission(30, &|_| looked.clone()).unwrap();
        s.validate().unwrap();
        assert!(coverage(&s.call, s.raw_input.as_ref()).is_complete());
        let (title, diffs) = diff_card(&s);
        assert!(
            diffs.iter().all(|d| d.through_link.as_ref() == Some(&link)),
            "{title}"
        );
        title.to_owned()
    };
    let path = "/app/notes/settings.json";
    assert_eq!(
        card(
            "Write",
            json!({"file_path": path, "content": "{}"}),
            FileState::Text("{\"hooks\": {}}".into())
        ),
        format!("Write {path}: replaces the existing file; reached through a symbolic link")
    );
    assert_eq!(
        card(
            "Write",
            json!({"file_path": path, "content": "{}"}),
            FileState::Missing
        ),
        format!("Write {path}: reached through a symbolic link")
    );
    assert_eq!(
        card(
            "Edit",
            json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            FileState::Missing
        ),
        format!("Edit {path} (the file does not exist; reached through a symbolic link)")
    );
    assert_eq!(
        card(
            "Edit",
            json!({"file_path": path, "old_string": "", "new_string": "b"}),
            FileState::Missing
        ),
        format!("Edit {path} (reached through a symbolic link)")
    );
    assert_eq!(
        card(
            "MultiEdit",
            json!({"file_path": path, "edits": [{"old_string": "line 2", "new_string": "2"},
                                               {"old_string": "line 3", "new_string": "3"}]}),
            FileState::Text(ten_lines())
        ),
        format!("Edit {path}: 2 changes (reached through a symbolic link)")
    );
}
