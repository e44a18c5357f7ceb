//! Codex's patch format (`apply_patch`), read into files, old and new text.
//!
//! Grammar, from Codex's own parser (`codex-rs/apply-patch/src/parser.rs`, openai/codex
//! @0e0fb63d029055d4aec1d536a3d72f70164ba8a6):
//!
//! ```text
//! start: begin_patch hunk+ end_patch
//! begin_patch: "*** Begin Patch" LF
//! end_patch: "*** End Patch" LF?
//! hunk: add_hunk | delete_hunk | update_hunk
//! add_hunk: "*** Add File: " filename LF add_line+
//! delete_hunk: "*** Delete File: " filename LF
//! update_hunk: "*** Update File: " filename LF change_move? change?
//! change_move: "*** Move to: " filename LF
//! change: (change_context | change_line)+ eof_line?
//! change_context: ("@@" | "@@ " /(.+)/) LF
//! change_line: ("+" | "-" | " ") /(.+)/ LF
//! eof_line: "*** End of File" LF
//! ```
//!
//! Codex trims the whitespace around markers and accepts the patch wrapped in a heredoc
//! (`<<'EOF'` … `EOF`); this reader does the same. Anything else that does not fit is an
//! error, and the call is then shown as the raw patch it is.

/// One file a patch touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchFile {
    /// A new file with this content.
    Add { path: String, content: String },
    /// The file is removed.
    Delete { path: String },
    /// Changed in place (and moved, with `move_to`): each chunk's old and new text, context
    /// on both sides.
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<(String, String)>,
    },
}

/// Reads a whole patch; the error says where it does not fit the grammar.
pub fn parse(patch: &str) -> Result<Vec<PatchFile>, String> {
    let mut lines: Vec<&str> = patch.lines().collect();
    // A heredoc around the patch, as a shell would have passed it.
    if lines.len() >= 4
        && lines
            .first()
            .is_some_and(|l| l.trim_start().starts_with("<<"))
        && let Some(marker) = lines.first().map(|l| {
            l.trim()
                .trim_start_matches("<<")
                .trim_matches(|c| c == '\'' || c == '"')
                .to_owned()
        })
        && lines.last().map(|l| l.trim()) == Some(marker.as_str())
    {
        lines = lines[1..lines.len() - 1].to_vec();
    }
    let mut at = lines.iter().map(|l| l.trim_end_matches('\r')).peekable();
    match at.next().map(str::trim) {
        Some("*** Begin Patch") => {}
        _ => return Err("a patch starts with \"*** Begin Patch\"".into()),
    }
    let mut files = Vec::new();
    loop {
        let Some(line) = at.next() else {
            return Err("the patch does not end with \"*** End Patch\"".into());
        };
        let header = line.trim();
        if header == "*** End Patch" {
            break;
        }
        if header.is_empty() {
            continue;
        }
        if let Some(path) = header.strip_prefix("*** Add File: ") {
            let mut content = String::new();
            while let Some(l) = at.peek().copied() {
                let Some(text) = l.strip_prefix('+') else {
                    break;
                };
                content.push_str(text);
                content.push('\n');
                at.next();
            }
            if content.is_empty() {
                return Err(format!("\"*** Add File: {path}\" has no lines"));
            }
            files.push(PatchFile::Add {
                path: path.trim().to_owned(),
                content,
            });
        } else if let Some(path) = header.strip_prefix("*** Delete File: ") {
            files.push(PatchFile::Delete {
                path: path.trim().to_owned(),
            });
        } else if let Some(path) = header.strip_prefix("*** Update File: ") {
            let mut move_to = None;
            if let Some(to) = at
                .peek()
                .and_then(|l| l.trim().strip_prefix("*** Move to: "))
            {
                move_to = Some(to.trim().to_owned());
                at.next();
            }
            let mut chunks: Vec<(String, String)> = Vec::new();
            let mut open = false;
            while let Some(l) = at.peek().copied() {
                if l.starts_with('*') {
                    if l.trim() == "*** End of File" {
                        at.next();
                    }
                    break;
                }
                at.next();
                if l.trim_end().starts_with("@@") {
                    chunks.push((String::new(), String::new()));
                    open = true;
                    continue;
                }
                if !open {
                    chunks.push((String::new(), String::new()));
                    open = true;
                }
                let Some((old, new)) = chunks.last_mut() else {
                    continue;
                };
                let (mark, text) = match l.chars().next() {
                    Some(c @ ('+' | '-' | ' ')) => (c, &l[1..]),
                    // An empty line inside a chunk is an empty line of context.
                    None => (' ', ""),
                    Some(_) => {
                        return Err(format!(
                            "in \"*** Update File: {path}\": a change line starts with \
                             '+', '-' or ' ': {l:?}"
                        ));
                    }
                };
                if mark != '+' {
                    old.push_str(text);
                    old.push('\n');
                }
                if mark != '-' {
                    new.push_str(text);
                    new.push('\n');
                }
            }
            chunks.retain(|(old, new)| !(old.is_empty() && new.is_empty()));
            if chunks.is_empty() && move_to.is_none() {
                return Err(format!("\"*** Update File: {path}\" changes nothing"));
            }
            files.push(PatchFile::Update {
                path: path.trim().to_owned(),
                move_to,
                chunks,
            });
        } else {
            return Err(format!(
                "{header:?} is not a hunk header (\"*** Add File: \", \"*** Delete File: \" \
                 or \"*** Update File: \")"
            ));
        }
    }
    if files.is_empty() {
        return Err("the patch changes no file".into());
    }
    if at.any(|l| !l.trim().is_empty()) {
        return Err("text follows \"*** End Patch\"".into());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hunk_kind_reads() {
        let patch = "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n\
                     *** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n\
                     @@ fn main() {\n-    let x = 1;\n+    let x = 2;\n     call(x);\n\
                     @@\n-a\n+b\n*** End of File\n*** End Patch\n";
        assert_eq!(
            parse(patch).unwrap(),
            vec![
                PatchFile::Add {
                    path: "docs/new.md".into(),
                    content: "# New\ntext\n".into()
                },
                PatchFile::Delete {
                    path: "old.txt".into()
                },
                PatchFile::Update {
                    path: "src/a.rs".into(),
                    move_to: Some("src/b.rs".into()),
                    chunks: vec![
                        (
                            "    let x = 1;\n    call(x);\n".into(),
                            "    let x = 2;\n    call(x);\n".into()
                        ),
                        ("a\n".into(), "b\n".into()),
                    ],
                },
            ]
        );
    }

    #[test]
    fn a_heredoc_wrapper_and_spaces_around_markers_are_taken() {
        let patch = "<<'EOF'\n  *** Begin Patch  \n*** Update File: a\n-x\n+y\n*** End Patch\nEOF";
        assert_eq!(parse(patch).unwrap().len(), 1);
    }

    #[test]
    fn what_does_not_fit_is_an_error() {
        for bad in [
            "",
            "*** Begin Patch\n*** End Patch\n",
            "*** Begin Patch\n*** Add File: a\n*** End Patch\n",
            "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
            "*** Begin Patch\n*** Update File: a\nx\n*** End Patch\n",
            "*** Begin Patch\n*** Rename File: a\n*** End Patch\n",
            "*** Begin Patch\n*** Delete File: a\n",
            "*** Begin Patch\n*** Delete File: a\n*** End Patch\nrm -rf /\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
