//! The table, pinned entry by entry: each program's dangerous options and subcommands are never
//! covered by a prefix (nor may a prefix hold one), and a follow-up the table of harmless
//! arguments knows still is.

use super::super::covers_in_project as prefix_covers;
use super::super::{excluded, prefix_refusal, program, segments};
use super::*;

fn split(line: &str) -> Vec<String> {
    let mut segs = segments(line).unwrap();
    assert_eq!(segs.len(), 1, "{line}");
    segs.remove(0)
}

/// `prefix` may be chosen, covers each of `benign`, and covers none of `hostile`.
fn pins(prefix: &str, benign: &[&str], hostile: &[&str]) {
    let words = split(prefix);
    assert_eq!(prefix_refusal(&words), None, "{prefix}");
    let missed: Vec<String> = benign
        .iter()
        .filter(|line| prefix_covers(&words, &[split(line)]) != Ok(true))
        .map(|line| format!("{line} ({:?})", prefix_covers(&words, &[split(line)])))
        .collect();
    assert!(missed.is_empty(), "{prefix} covers {missed:#?}");
    for line in hostile {
        let seg = split(line);
        assert!(seg.starts_with(&words), "{line} starts with {prefix}");
        assert!(
            prefix_covers(&words, &[seg]).is_err(),
            "{prefix} must not cover {line}"
        );
    }
}

/// None of `prefixes` may be chosen.
fn refused(prefixes: &[&str]) {
    for p in prefixes {
        assert!(prefix_refusal(&split(p)).is_some(), "{p} is refused");
    }
}

/// An old grant on `words` (made before the table) still does not cover `hostile`.
fn old_grant(words: &str, benign: &[&str], hostile: &[&str]) {
    let words = split(words);
    for line in benign {
        assert_eq!(prefix_covers(&words, &[split(line)]), Ok(true), "{line}");
    }
    for line in hostile {
        assert!(prefix_covers(&words, &[split(line)]).is_err(), "{line}");
    }
}

/// Every exclusion of every entry is found in a command built from it, and refused in a prefix.
#[test]
fn every_exclusion_is_found() {
    for p in all() {
        let name = p.names[0];
        assert_eq!(
            program(name),
            name,
            "table names are as program() gives them"
        );
        for e in p.excludes {
            assert!(!e.manual.is_empty(), "{name}: {e:?} cites its manual");
            let given = match e.what {
                What::Opt(o) => match o.strip_suffix('=') {
                    Some(o) => format!("{o}=x"),
                    None => o.to_owned(),
                },
                What::Sub(s) | What::Word(s) => s.to_owned(),
                What::Starts(s) | What::Cased(s) => format!("{s}x"),
                What::Holds(s) => format!("a{s}b"),
                What::Assignment => "X=1".to_owned(),
                What::DotCommand => ".shell id".to_owned(),
                What::Beyond(_) => "x".to_owned(),
            };
            // Beyond the first `n` operands: `n + 1` of them.
            let times = match e.what {
                What::Beyond(n) => n + 1,
                _ => 1,
            };
            let mut words = vec![name.to_owned()];
            match (e.place, e.what, p.shape) {
                (_, What::Sub(_), _) => {}
                (Place::After(s), ..) => words.push(s.to_owned()),
                (Place::Anywhere, _, Shape::Subcommands { .. }) => words.push("status".into()),
                _ => {}
            }
            words.extend(std::iter::repeat_n(given, times));
            if matches!(p.shape, Shape::Script) && e.place == Place::Before {
                words.push("script".into());
            }
            assert!(excluded(&words).is_some(), "{words:?} is found");
            assert!(
                prefix_refusal(&words).is_some(),
                "{words:?} is refused as a prefix"
            );
        }
    }
}

#[test]
fn every_program_with_subcommands_needs_one_in_a_prefix() {
    for p in all() {
        if matches!(
            p.shape,
            Shape::Subcommands { .. } | Shape::Operands { named: true }
        ) {
            let one = vec![p.names[0].to_owned()];
            assert!(prefix_refusal(&one).is_some(), "{one:?}");
        }
    }
}

mod entries;
mod options;
mod projects;
mod tools;
mod writes;
