#![no_main]
//! Any text as a shell command line: splitting it never panics, never overflows the stack,
//! and what it splits into is words a prefix can match and the rules can read: the table of
//! harmless arguments, the table of what runs other code, the decline rules' mention and
//! reading. libFuzzer's panic hook aborts even on a panic the splitter would catch, so this
//! also finds input that gets past its bounds.

use countersign_domain::shell::{
    Cover, Places, declines, excluded, harmless_from, mentions, prefix_covers, prefix_matches,
    prefix_reach, prefix_refusal, runs, segments,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let places = Places {
        cwd: Some("/home/me/app"),
        protected: &[], linked: &[],
    };
    // A line that does not split is still read for a decline rule's words.
    let _ = mentions(&["rm".to_owned(), "-rf".to_owned()], &text, None);
    let Ok(segs) = segments(&text) else { return };
    assert!(!segs.is_empty() && segs.iter().all(|s| !s.is_empty()));
    for seg in &segs {
        // A segment's own words always cover it, and never a longer line with another segment.
        assert!(prefix_matches(seg, std::slice::from_ref(seg)));
        let _ = prefix_refusal(seg);
        // What the decline and approve rules read of a segment never panics either.
        let _ = runs(seg);
        let _ = excluded(seg);
        let _ = prefix_reach(seg);
        for from in 0..=seg.len() {
            let _ = harmless_from(from, seg, &places);
        }
        // A segment's own words name it: a decline rule on them declines it.
        assert_ne!(
            declines(seg, &text, Some(&segs)),
            countersign_domain::shell::Declines::No,
            "{seg:?} in {text:?}"
        );
        // The whole segment as its own prefix covers it unless the table excludes a word of it.
        let own = prefix_covers(seg, std::slice::from_ref(seg), &places);
        assert!(
            matches!(own, Cover::Covered | Cover::Excluded(_)),
            "{seg:?}: {own:?}"
        );
    }
    let first = &segs[0];
    if segs.len() > 1 && segs[1..].iter().any(|s| !s.starts_with(first)) {
        assert!(!prefix_matches(first, &segs));
    }
});
