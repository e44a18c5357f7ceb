#![no_main]
//! Any text: the scanner never panics, its marks are ordered, in bounds, on char boundaries,
//! at most `MAX_MARKS` are listed, and listed and counted ones add up to what `count` finds.

use countersign_domain::verbatim::{MAX_MARKS, count, scan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let found = scan(&text);
    assert!(found.marks.len() <= MAX_MARKS);
    assert_eq!(found.total(), count(&text));
    let mut last = 0;
    for m in &found.marks {
        assert!(m.start >= last && m.start < m.end && m.end <= text.len());
        assert!(text.is_char_boundary(m.start) && text.is_char_boundary(m.end));
        last = m.end;
    }
});
