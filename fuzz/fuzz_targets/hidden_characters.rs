#![no_main]
//! Any text: the scanner never panics and its marks are ordered, in bounds, on char boundaries.

use countersign::domain::verbatim::scan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut last = 0;
    for m in scan(&text) {
        assert!(m.start >= last && m.start < m.end && m.end <= text.len());
        assert!(text.is_char_boundary(m.start) && text.is_char_boundary(m.end));
        last = m.end;
    }
});
