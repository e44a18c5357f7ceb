//! The scanner itself: an iterator over the hidden characters of a text, in order, that holds
//! a few words of state and builds no labels. A field of 8 MiB of `\r` is millions of hits;
//! counting them costs no memory, and only the marks a card lists get a label.

use std::iter::Peekable;
use std::str::CharIndices;

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};
use unicode_script::{Script, UnicodeScript as _};
use unicode_security::MixedScript as _;

use super::{BLANK_RUN, MAX_ESCAPE_CHARS, MarkKind};

/// One hidden character, escape sequence or run, before its label is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Hit {
    pub start: usize,
    pub end: usize,
    pub kind: MarkKind,
    /// The script of the word a confusable letter sits in (its label names it).
    pub script: Option<Script>,
}

pub(super) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

pub(super) fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

pub(super) fn is_tag(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

pub(super) fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' | '\u{180B}'..='\u{180D}' | '\u{180F}')
}

/// Default-ignorable code points not yet assigned: a renderer draws nothing for them, and a
/// later Unicode version may give them a meaning.
pub(super) fn is_unassigned_ignorable(c: char) -> bool {
    matches!(c, '\u{2065}' | '\u{FFF0}'..='\u{FFF8}' | '\u{E0080}'..='\u{E00FF}' | '\u{E01F0}'..='\u{E0FFF}')
}

/// Characters that draw nothing though they are not format characters.
fn is_filler(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{FFA0}'
    )
}

/// The kind of a single hidden character other than those handled as runs (escape
/// sequences, tags, whitespace, blank lines).
pub(super) fn hidden_kind(c: char) -> Option<MarkKind> {
    if c.is_ascii() {
        return (c.is_ascii_control() && c != '\t' && c != '\n').then_some(MarkKind::Control);
    }
    Some(if is_bidi(c) {
        MarkKind::Bidi
    } else if is_zero_width(c) {
        MarkKind::ZeroWidth
    } else if is_variation_selector(c) {
        MarkKind::VariationSelector
    } else if c.is_control() {
        MarkKind::Control
    } else if is_filler(c) {
        MarkKind::Filler
    } else if matches!(c, '\u{2028}' | '\u{2029}') {
        MarkKind::Separator
    } else if is_unassigned_ignorable(c) {
        MarkKind::Format
    } else {
        match c.general_category() {
            GeneralCategory::Format => MarkKind::Format,
            GeneralCategory::SpaceSeparator => MarkKind::Space,
            _ => return None,
        }
    })
}

/// Length in bytes of the ANSI escape sequence starting at `s` (which starts with ESC).
pub(super) fn escape_len(s: &str) -> usize {
    let mut chars = s.char_indices().skip(1).take(MAX_ESCAPE_CHARS);
    let cut = || {
        s.char_indices()
            .nth(MAX_ESCAPE_CHARS)
            .map_or(s.len(), |(i, _)| i)
    };
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
            cut()
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
            cut()
        }
        Some((i, c)) if ('\u{20}'..='\u{7E}').contains(&c) => i + c.len_utf8(),
        _ => 1,
    }
}

/// Where the blank lines starting at `at` (the start of a line) end, when there are at least
/// [`BLANK_RUN`] of them: the span to mark ends before the last blank line's line feed.
/// Reads at most [`BLANK_RUN`] lines past a run, so calling it at every line start stays
/// linear.
fn blank_run(text: &str, at: usize) -> Option<usize> {
    let mut count = 0;
    let mut last_newline = at;
    let mut pos = at;
    while let Some(n) = text[pos..].find('\n') {
        let line = &text[pos..pos + n];
        if !line.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            break;
        }
        count += 1;
        last_newline = pos + n;
        pos += n + 1;
    }
    (count >= BLANK_RUN).then_some(last_newline)
}

/// How many blank lines a blank-lines mark spans (its span ends before the last line feed).
pub(super) fn blank_lines_in(span: &str) -> usize {
    span.bytes().filter(|&b| b == b'\n').count() + 1
}

/// Every hidden character, escape sequence and run except mixed-script letters, in order.
struct Plain<'a> {
    text: &'a str,
    rest: Peekable<CharIndices<'a>>,
    line_start: bool,
}

impl Iterator for Plain<'_> {
    type Item = Hit;

    fn next(&mut self) -> Option<Hit> {
        let text = self.text;
        loop {
            let (i, c) = self.rest.next()?;
            let at_line_start = std::mem::replace(&mut self.line_start, c == '\n');
            let hit = |end: usize, kind| Hit {
                start: i,
                end,
                kind,
                script: None,
            };
            let (found, skip_to) =
                if let Some(end) = at_line_start.then(|| blank_run(text, i)).flatten() {
                    (Some(hit(end, MarkKind::BlankLines)), Some(end))
                } else if c == '\u{1B}' {
                    let end = i + escape_len(&text[i..]);
                    (Some(hit(end, MarkKind::Ansi)), Some(end))
                } else if c == '\r' && self.rest.peek().is_some_and(|&(_, n)| n == '\n') {
                    // CRLF is a line ending, not a hidden character.
                    (None, None)
                } else if is_tag(c) {
                    let end = text[i..]
                        .find(|t: char| !is_tag(t))
                        .map_or(text.len(), |n| i + n);
                    (Some(hit(end, MarkKind::Tag)), Some(end))
                } else if c == ' ' || c == '\t' {
                    let end = text[i..]
                        .find(|ch: char| ch != ' ' && ch != '\t')
                        .map_or(text.len(), |n| i + n);
                    let after = &text[end..];
                    let trailing =
                        after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n");
                    (
                        trailing.then(|| hit(end, MarkKind::TrailingWhitespace)),
                        Some(end),
                    )
                } else {
                    (hidden_kind(c).map(|k| hit(i + c.len_utf8(), k)), None)
                };
            if let Some(end) = skip_to {
                while self.rest.peek().is_some_and(|&(j, _)| j < end) {
                    if let Some((_, skipped)) = self.rest.next() {
                        self.line_start = skipped == '\n';
                    }
                }
            }
            if found.is_some() {
                return found;
            }
        }
    }
}

/// Characters that make up host names, paths and identifiers.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c.script(), Script::Inherited)
        || matches!(
            c,
            '.' | '-' | '_' | '/' | ':' | '@' | '~' | '+' | '%' | '\\'
        )
}

/// The script a mixed word is read in: Latin when it has Latin letters (hosts, paths and
/// identifiers are), else the script with the most letters.
fn main_script(word: &str) -> Script {
    let mut counts: Vec<(Script, usize)> = Vec::new();
    for c in word.chars() {
        let s = c.script();
        if matches!(s, Script::Common | Script::Inherited | Script::Unknown) {
            continue;
        }
        match counts.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    if counts.iter().any(|(s, _)| *s == Script::Latin) {
        return Script::Latin;
    }
    counts
        .into_iter()
        .max_by_key(|&(_, n)| n)
        .map_or(Script::Latin, |(s, _)| s)
}

/// What a letter looks like (its UTS #39 skeleton), when that is another visible text.
pub(super) fn look_alike(c: char) -> Option<String> {
    let own = c.to_string();
    let looks: String = unicode_security::skeleton(&own).collect();
    (looks != own && !looks.trim().is_empty()).then_some(looks)
}

/// The letters of a minority script inside a word that mixes scripts (UTS #39), when they
/// look like a letter of another script, in order.
struct Confusables<'a> {
    text: &'a str,
    words: Peekable<CharIndices<'a>>,
    /// The mixed word being read: the next byte to look at, its end, its main script.
    word: Option<(usize, usize, Script)>,
    /// The first escape sequence that ends after the last letter looked at: a letter inside
    /// one is part of that sequence's mark. Escape sequences are found the way [`Plain`]
    /// finds them (no other run can hold an ESC), so the two passes agree.
    escape: Option<(usize, usize)>,
}

impl Confusables<'_> {
    fn in_escape(&mut self, at: usize) -> bool {
        while let Some((_, end)) = self.escape.filter(|&(_, end)| end <= at) {
            self.escape = self.text[end..].find('\u{1B}').map(|n| {
                let start = end + n;
                (start, start + escape_len(&self.text[start..]))
            });
        }
        self.escape.is_some_and(|(start, _)| start <= at)
    }

    /// The next word that mixes scripts: its start, end and main script.
    fn next_word(&mut self) -> Option<(usize, usize, Script)> {
        while let Some((start, c)) = self.words.next() {
            if !is_word_char(c) {
                continue;
            }
            let mut end = start + c.len_utf8();
            while let Some(&(j, d)) = self.words.peek() {
                if !is_word_char(d) {
                    break;
                }
                end = j + d.len_utf8();
                self.words.next();
            }
            let word = &self.text[start..end];
            if !word.is_ascii() && !word.is_single_script() {
                return Some((start, end, main_script(word)));
            }
        }
        None
    }
}

impl Iterator for Confusables<'_> {
    type Item = Hit;

    fn next(&mut self) -> Option<Hit> {
        loop {
            let (at, end, main) = match self.word {
                Some(w) if w.0 < w.1 => w,
                _ => {
                    self.word = Some(self.next_word()?);
                    continue;
                }
            };
            let Some(c) = self.text[at..end].chars().next() else {
                self.word = None;
                continue;
            };
            let next = at + c.len_utf8();
            self.word = Some((next, end, main));
            let script = c.script();
            if matches!(script, Script::Common | Script::Inherited | Script::Unknown)
                || script == main
                || hidden_kind(c).is_some()
                || self.in_escape(at)
                || look_alike(c).is_none()
            {
                continue;
            }
            return Some(Hit {
                start: at,
                end: next,
                kind: MarkKind::Confusable,
                script: Some(main),
            });
        }
    }
}

/// Every hidden character, escape sequence, run and mixed-script letter of a text, in order;
/// spans never overlap (a letter is never a hidden character, nor inside a run).
pub(super) struct Hits<'a> {
    plain: Peekable<Plain<'a>>,
    confusables: Option<Peekable<Confusables<'a>>>,
}

impl<'a> Hits<'a> {
    pub fn new(text: &'a str) -> Self {
        let plain = Plain {
            text,
            rest: text.char_indices().peekable(),
            line_start: true,
        };
        // Pure ASCII has no letters of other scripts.
        let confusables = (!text.is_ascii()).then(|| {
            Confusables {
                text,
                words: text.char_indices().peekable(),
                word: None,
                escape: text.find('\u{1B}').map(|s| (s, s + escape_len(&text[s..]))),
            }
            .peekable()
        });
        Self {
            plain: plain.peekable(),
            confusables,
        }
    }
}

impl Iterator for Hits<'_> {
    type Item = Hit;

    fn next(&mut self) -> Option<Hit> {
        let letter_first = match (self.plain.peek(), self.confusables.as_mut()) {
            (plain, Some(conf)) => match (plain, conf.peek()) {
                (Some(p), Some(l)) => l.start < p.start,
                (None, Some(_)) => true,
                _ => false,
            },
            _ => false,
        };
        if letter_first {
            self.confusables.as_mut().and_then(Iterator::next)
        } else {
            self.plain.next()
        }
    }
}
