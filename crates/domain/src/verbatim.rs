//! Finds the characters that change what a reader sees, so they can be shown as labelled marks.
//!
//! What counts (DESIGN §3): bidi controls, zero-width characters, every other format character
//! (Unicode category Cf), tag characters (decoded and shown as the text they spell), variation
//! selectors, fillers, line and paragraph separators, non-ASCII spaces, C0/C1 controls other
//! than tab and line feed, ANSI escape sequences, trailing whitespace, runs of blank lines, and
//! letters of another script inside a word (UTS #39 mixed-script confusables).

mod hits;

use serde::Serialize;
use ts_rs::TS;
use unicode_script::Script;

use self::hits::{Hit, Hits, blank_lines_in, look_alike};

/// What kind of hidden character a mark stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum MarkKind {
    Bidi,
    ZeroWidth,
    /// Any other format character (Unicode category Cf), e.g. a soft hyphen.
    Format,
    /// A run of tag characters: invisible text that models read.
    Tag,
    VariationSelector,
    /// A character that draws nothing, e.g. a Hangul filler.
    Filler,
    /// A line or paragraph separator.
    Separator,
    /// A space other than U+0020.
    Space,
    Control,
    Ansi,
    TrailingWhitespace,
    /// Blank lines that would push what follows out of view.
    BlankLines,
    /// A letter of another script inside a word, e.g. a Cyrillic `і` in `github.com`.
    Confusable,
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
/// This many blank lines in a row, or more, are collapsed behind one mark.
pub const BLANK_RUN: usize = 3;
/// The longest decoded tag text shown in a label; the rest is counted.
const MAX_TAG_LABEL_CHARS: usize = 200;

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

/// `U+00AD SOFT HYPHEN`: the code point and its Unicode name.
pub fn char_label(c: char) -> String {
    let name = if c.is_control() {
        control_name(c).to_owned()
    } else {
        unicode_names2::name(c).map_or_else(|| "UNNAMED CHARACTER".to_owned(), |n| n.to_string())
    };
    format!("U+{:04X} {name}", c as u32)
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

/// The label of a run of tag characters: the text it spells.
fn tag_label(run: &str) -> String {
    let mut text = String::new();
    let mut shown = 0;
    let mut others = 0;
    for c in run.chars() {
        let ascii = (c as u32).wrapping_sub(0xE0000);
        match char::from_u32(ascii) {
            Some(a) if (0x20..0x7F).contains(&ascii) && shown < MAX_TAG_LABEL_CHARS => {
                if a == '"' || a == '\\' {
                    text.push('\\');
                }
                text.push(a);
                shown += 1;
            }
            Some(_) if (0x20..0x7F).contains(&ascii) => others += 1,
            _ => others += 1,
        }
    }
    match (shown, others) {
        (0, _) => format!("TAG CHARACTERS ×{}", run.chars().count()),
        (_, 0) => format!("TAG TEXT \"{text}\""),
        (_, n) => format!("TAG TEXT \"{text}\" +{n} more tag characters"),
    }
}

/// The most marks listed for one text. Beyond them a text's marks are only counted: an 8 MiB
/// field of `\r` is millions of marks, which no card could show and no window could draw.
pub const MAX_MARKS: usize = 1_000;

/// The marks of one text as a card lists them: the first [`MAX_MARKS`], in order, and how
/// many more the text carries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub marks: Vec<Mark>,
    /// Marks past the first [`MAX_MARKS`], counted, not listed.
    pub more: usize,
}

impl Found {
    /// Whether the text carries no marks at all.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty() && self.more == 0
    }

    /// How many marks the text carries, listed or not.
    pub fn total(&self) -> usize {
        self.marks.len() + self.more
    }
}

/// The hidden characters, escape sequences, runs of trailing whitespace and blank lines, and
/// mixed-script letters of `text`: the first [`MAX_MARKS`] listed in order (spans never
/// overlap), the rest counted. One pass, linear in the text; memory bounded by the list.
pub fn scan(text: &str) -> Found {
    scan_listing(text, MAX_MARKS)
}

/// The most marks one card, artifact or diff lists across all its texts: a card of 100,000
/// short fields (arguments, diff lines, source lines) would otherwise list 1,000 in each.
pub const MAX_LISTED: usize = 5_000;

/// [`scan`], listing at most `limit` marks (and never more than [`MAX_MARKS`]).
pub fn scan_listing(text: &str, limit: usize) -> Found {
    let mut hits = Hits::new(text);
    let marks: Vec<Mark> = hits
        .by_ref()
        .take(limit.min(MAX_MARKS))
        .map(|h| mark(text, h))
        .collect();
    Found {
        marks,
        more: hits.count(),
    }
}

/// What is left of a budget of listed marks, shared by several texts of one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listing(usize);

impl Default for Listing {
    fn default() -> Self {
        Listing(MAX_LISTED)
    }
}

impl Listing {
    /// A budget of `n` listed marks.
    pub fn of(n: usize) -> Self {
        Listing(n)
    }

    /// Scans `text`, listing what the budget has left and spending it.
    pub fn scan(&mut self, text: &str) -> Found {
        let found = scan_listing(text, self.0);
        self.0 -= found.marks.len().min(self.0);
        found
    }
}

/// A hit with its label written.
fn mark(text: &str, h: Hit) -> Mark {
    let span = text.get(h.start..h.end).unwrap_or_default();
    let label = match h.kind {
        MarkKind::BlankLines => format!("{} blank lines", blank_lines_in(span)),
        MarkKind::Ansi => format!("ANSI escape {}", spell(span)),
        MarkKind::Tag => tag_label(span),
        MarkKind::TrailingWhitespace => {
            let n = span.len();
            let what = if n == 1 { "character" } else { "characters" };
            format!("{n} trailing whitespace {what}")
        }
        MarkKind::Confusable => {
            let c = span.chars().next().unwrap_or_default();
            let script = h.script.unwrap_or(Script::Latin);
            format!(
                "{} in a {} word, looks like \"{}\"",
                char_label(c),
                script.full_name(),
                look_alike(c).unwrap_or_default()
            )
        }
        _ => char_label(span.chars().next().unwrap_or_default()),
    };
    Mark {
        start: h.start,
        end: h.end,
        kind: h.kind,
        label,
    }
}

/// `text` with every mark replaced by `⟨label⟩`: what a plain-text surface (a notification,
/// a terminal) shows instead of the hidden characters. Every mark, however many: the text is
/// written as it is read, never listed first.
pub fn reveal(text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for h in Hits::new(text) {
        // Spans never overlap; should one ever, it is skipped rather than cut mid-character.
        let Some(before) = text.get(at..h.start) else {
            continue;
        };
        out.push_str(before);
        out.push('⟨');
        out.push_str(&mark(text, h).label);
        out.push('⟩');
        at = h.end;
    }
    if at == 0 {
        return text.to_owned();
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
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
    json_strings(value).into_iter().map(count).sum()
}

/// How many marks a text carries: all of them, however many, counted without being listed.
pub fn count(text: &str) -> usize {
    Hits::new(text).count()
}

#[cfg(test)]
mod tests;
