#![no_main]
//! Any text as a shell command line: splitting it never panics, never overflows the stack,
//! and what it splits into is words a prefix can match and the rules can read. libFuzzer's
//! panic hook aborts even on a panic the splitter would catch, so this also finds input that
//! gets past its bounds.

use countersign_domain::shell::{
    declines, excluded, prefix_excludes, prefix_matches, prefix_refusal, runs, segments,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(segs) = segments(&text) else { return };
    assert!(!segs.is_empty() && segs.iter().all(|s| !s.is_empty()));
    for seg in &segs {
        // A segment's own words always cover it, and never a longer line with another segment.
        assert!(prefix_matches(seg, std::slice::from_ref(seg)));
        let _ = prefix_refusal(seg);
        // What the decline and approve rules read of a segment never panics either.
        let _ = runs(seg);
        let _ = excluded(seg);
        let _ = prefix_excludes(seg);
        let _ = declines(seg, &segs);
    }
    let first = &segs[0];
    if segs.len() > 1 && segs[1..].iter().any(|s| !s.starts_with(first)) {
        assert!(!prefix_matches(first, &segs));
    }
});
