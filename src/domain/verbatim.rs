//! Finds the characters that change what a reader sees, so they can be shown as labelled marks.

use serde::Serialize;
use ts_rs::TS;

/// What kind of hidden character a mark stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum MarkKind {
    Bidi,
    ZeroWidth,
    Control,
    Ansi,
    TrailingWhitespace,
}

/// One hidden character (or escape sequence, or run of trailing whitespace) in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
pub struct Mark {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset just past the last byte.
    pub end: usize,
    pub kind: MarkKind,
    /// What to show in place of the bytes, e.g. `U+202E RIGHT-TO-LEFT OVERRIDE`.
    pub label: String,
}

/// The longest escape sequence taken as one mark; longer ones are cut into several.
const MAX_ESCAPE_CHARS: usize = 64;

fn bidi_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{061C}' => "ARABIC LETTER MARK",
        _ => return None,
    })
}

fn zero_width_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{2060}' => "WORD JOINER",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => return None,
    })
}

fn control_name(c: char) -> &'static str {
    match c {
        '\0' => "NULL",
        '\u{7}' => "BELL",
        '\u{8}' => "BACKSPACE",
        '\u{B}' => "LINE TABULATION",
        '\u{C}' => "FORM FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{1B}' => "ESCAPE",
        '\u{7F}' => "DELETE",
        '\u{85}' => "NEXT LINE",
        '\u{9B}' => "CONTROL SEQUENCE INTRODUCER",
        c if (c as u32) < 0x20 => "C0 CONTROL",
        _ => "C1 CONTROL",
    }
}

/// Tab and line feed are ordinary layout; every other C0/C1 control is hidden.
fn is_hidden_control(c: char) -> bool {
    c.is_control() && c != '\t' && c != '\n'
}

/// Shows an escape sequence with its invisible bytes spelled out, e.g. `ESC[31m`.
fn spell(seq: &str) -> String {
    seq.chars()
        .map(|c| match c {
            '\u{1B}' => "ESC".to_owned(),
            '\u{7}' => "BEL".to_owned(),
            c if c.is_control() => format!("\\u{{{:X}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// Length in bytes of the ANSI escape sequence starting at `s` (which starts with ESC).
fn escape_len(s: &str) -> usize {
    let mut chars = s.char_indices().skip(1).take(MAX_ESCAPE_CHARS);
    match chars.next() {
        // CSI: parameters and intermediates, then one final byte.
        Some((_, '[')) => {
            for (i, c) in chars {
                if ('\u{40}'..='\u{7E}').contains(&c) {
                    return i + c.len_utf8();
                }
                if !('\u{20}'..='\u{3F}').contains(&c) {
                    return i;
                }
            }
            s.char_indices()
                .nth(MAX_ESCAPE_CHARS)
                .map_or(s.len(), |(i, _)| i)
        }
        // OSC and other strings: until BEL or ESC \.
        Some((_, ']' | 'P' | '_' | '^' | 'X')) => {
            let mut prev_esc = false;
            for (i, c) in chars {
                if c == '\u{7}' || (prev_esc && c == '\\') {
                    return i + c.len_utf8();
                }
                prev_esc = c == '\u{1B}';
            }
            s.char_indices()
                .nth(MAX_ESCAPE_CHARS)
                .map_or(s.len(), |(i, _)| i)
        }
        Some((i, c)) if ('\u{20}'..='\u{7E}').contains(&c) => i + c.len_utf8(),
        _ => 1,
    }
}

/// Every hidden character, escape sequence and run of trailing whitespace in `text`, in order.
pub fn scan(text: &str) -> Vec<Mark> {
    let mut marks = Vec::new();
    let mut rest = text.char_indices().peekable();
    while let Some((i, c)) = rest.next() {
        let mark = |len: usize, kind, label: String| Mark {
            start: i,
            end: i + len,
            kind,
            label,
        };
        if c == '\u{1B}' {
            let len = escape_len(&text[i..]);
            let seq = &text[i..i + len];
            marks.push(mark(
                len,
                MarkKind::Ansi,
                format!("ANSI escape {}", spell(seq)),
            ));
            while rest.peek().is_some_and(|&(j, _)| j < i + len) {
                rest.next();
            }
        } else if c == '\r' && rest.peek().is_some_and(|&(_, n)| n == '\n') {
            // CRLF is a line ending, not a hidden character.
        } else if let Some(name) = bidi_name(c) {
            marks.push(mark(c.len_utf8(), MarkKind::Bidi, label(c, name)));
        } else if let Some(name) = zero_width_name(c) {
            marks.push(mark(c.len_utf8(), MarkKind::ZeroWidth, label(c, name)));
        } else if is_hidden_control(c) {
            marks.push(mark(
                c.len_utf8(),
                MarkKind::Control,
                label(c, control_name(c)),
            ));
        } else if c == ' ' || c == '\t' {
            let run_end = text[i..]
                .find(|ch: char| ch != ' ' && ch != '\t')
                .map_or(text.len(), |n| i + n);
            let at_line_end = text[run_end..].is_empty()
                || text[run_end..].starts_with('\n')
                || text[run_end..].starts_with("\r\n");
            if at_line_end {
                let n = run_end - i;
                let what = if n == 1 { "character" } else { "characters" };
                marks.push(Mark {
                    start: i,
                    end: run_end,
                    kind: MarkKind::TrailingWhitespace,
                    label: format!("{n} trailing whitespace {what}"),
                });
            }
            while rest.peek().is_some_and(|&(j, _)| j < run_end) {
                rest.next();
            }
        }
    }
    marks
}

fn label(c: char, name: &str) -> String {
    format!("U+{:04X} {name}", c as u32)
}

/// Every string in a JSON value (keys included), for scanning a whole call.
pub fn json_strings(value: &serde_json::Value) -> Vec<&str> {
    fn walk<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
        match v {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    out.push(k);
                    walk(x, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out
}

/// How many marks all strings of a JSON value carry.
pub fn count_in_json(value: &serde_json::Value) -> usize {
    json_strings(value).into_iter().map(|s| scan(s).len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_has_no_marks() {
        assert!(scan("cargo test --all\nls -la\r\n\tindented").is_empty());
        assert!(scan("").is_empty());
        assert!(scan("héllo wörld ✓").is_empty());
    }

    #[test]
    fn rlo_is_labelled() {
        let m = scan("echo \u{202E}gnp.exe");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].kind, MarkKind::Bidi);
        assert_eq!(m[0].label, "U+202E RIGHT-TO-LEFT OVERRIDE");
        assert_eq!((m[0].start, m[0].end), (5, 8));
    }

    #[test]
    fn ansi_sequences_are_one_mark() {
        let m = scan("a\u{1b}[31mred\u{1b}[0m b");
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].label, "ANSI escape ESC[31m");
        assert_eq!(
            &"a\u{1b}[31mred\u{1b}[0m b"[m[0].start..m[0].end],
            "\u{1b}[31m"
        );
        let osc = scan("\u{1b}]0;title\u{7}x");
        assert_eq!(osc.len(), 1);
        assert_eq!(osc[0].end, "\u{1b}]0;title\u{7}".len());
        assert_eq!(scan("\u{1b}").len(), 1);
    }

    #[test]
    fn trailing_whitespace_and_controls() {
        let m = scan("ls  \nrm -rf x\t\ny\r z\u{7}");
        let kinds: Vec<_> = m.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                MarkKind::TrailingWhitespace,
                MarkKind::TrailingWhitespace,
                MarkKind::Control,
                MarkKind::Control
            ]
        );
        assert_eq!(m[0].label, "2 trailing whitespace characters");
        assert!(scan("a b").is_empty());
        assert_eq!(scan("end ").len(), 1);
    }

    #[test]
    fn zero_width_and_bom() {
        let m = scan("a\u{200B}b\u{FEFF}");
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|m| m.kind == MarkKind::ZeroWidth));
    }

    #[test]
    fn json_keys_and_values_are_scanned() {
        let v = serde_json::json!({"a\u{200D}": ["x", {"y": "z\u{202A}"}], "n": 1});
        assert_eq!(count_in_json(&v), 2);
    }

    const PLANTS: &[char] = &[
        '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
        '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{200C}',
        '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{0}', '\u{7}', '\u{8}', '\u{7F}', '\u{85}',
        '\u{9B}',
    ];

    proptest! {
        #[test]
        fn scan_never_panics_and_spans_are_char_boundaries(s in "\\PC*|[\\x00-\\x7f\\u{80}-\\u{9f}\\u{200b}-\\u{206f}]{0,64}") {
            for m in scan(&s) {
                prop_assert!(m.start < m.end && m.end <= s.len());
                prop_assert!(s.is_char_boundary(m.start) && s.is_char_boundary(m.end));
            }
        }

        #[test]
        fn every_planted_mark_is_found(
            words in proptest::collection::vec("[a-zA-Z0-9 ./_-]{0,8}[a-zA-Z0-9./_-]", 1..10),
            plant_idx in proptest::collection::vec(0..PLANTS.len(), 1..10),
        ) {
            let mut text = String::new();
            let mut planted = Vec::new();
            for (w, p) in words.iter().zip(plant_idx.iter().cycle()) {
                text.push_str(w);
                planted.push(text.len());
                text.push(PLANTS[*p]);
            }
            let marks = scan(&text);
            for at in planted {
                prop_assert!(marks.iter().any(|m| m.start == at), "missed mark at {} in {:?}", at, text);
            }
        }
    }
}
