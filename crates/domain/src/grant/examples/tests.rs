use super::*;

const RULES: &str = include_str!("../../../../../tests/fixtures/rules/countersign/rules.toml");

fn repo() -> Placing {
    Placing {
        project: Some("/home/me/app".into()),
        home: Some("/home/me".into()),
    }
}

fn read(text: &str) -> Result<Vec<Proposed>, ImportError> {
    read_rules(
        Format::Countersign,
        "/home/me/app/.countersign/rules.toml",
        text,
        &repo(),
    )
}

#[test]
fn a_repositorys_rules_are_read_with_their_examples_checked() {
    let p = read(RULES).unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(
        p.iter().map(|r| r.source.line).collect::<Vec<_>>(),
        [3, 9, 15]
    );
    let Outcome::Kept { rules } = &p[0].outcome else {
        panic!("{:?}", p[0].outcome)
    };
    assert_eq!(
        rules[0].words(),
        "approve commands starting with `cargo test` (any agent's shell) from /home/me/app"
    );
    let Outcome::Kept { rules } = &p[1].outcome else {
        panic!("{:?}", p[1].outcome)
    };
    assert_eq!(
        rules[0].reach,
        Reach::Path {
            prefix: "/home/me/app/src".into()
        }
    );
    assert_eq!(p[2].said, crate::import::Said::Deny);
}

#[test]
fn an_example_the_rule_would_not_decide_as_written_refuses_the_file() {
    // `ls` also covers `ls -la`, which the author's own counter-example says it must not.
    let e = read("[[rule]]\ndecide = \"approve\"\ncommand = \"ls\"\nnot_match = [\"ls -la\"]\n")
        .unwrap_err();
    assert!(
        e.why.contains("in `not_match`, but the rule decides it"),
        "{e}"
    );
    assert_eq!(e.line, Some(1), "{e}");
    // A `match` the rule does not reach: a hidden file is never under a folder rule.
    let e = read("\n[[rule]]\ndecide = \"approve\"\nfolder = \"src\"\nmatch = [\"src/.env\"]\n")
        .unwrap_err();
    assert!(
        e.why
            .contains("in `match`, but the rule does not decide it"),
        "{e}"
    );
    assert_eq!(e.line, Some(2));
    // A decline that would not decline its own example.
    let e =
        read("[[rule]]\ndecide = \"decline\"\ncommand = \"rm -rf\"\nmatch = [\"git status\"]\n")
            .unwrap_err();
    assert!(e.why.contains("git status"), "{e}");
}

#[test]
fn malformed_repository_files_name_their_line() {
    for (text, says, line) in [
        (
            "[[rule]]\ndecide = \"approve\"\ncomand = \"ls\"\n",
            "comand",
            Some(3),
        ),
        (
            "[[rule]]\ndecide = \"maybe\"\ncommand = \"ls\"\n",
            "maybe",
            Some(2),
        ),
        (
            "[[rule]]\ndecide = \"approve\"\n",
            "either a `command` or a `folder`",
            Some(1),
        ),
        ("[[rule]\n", "not a rules file", Some(1)),
        (
            "[[rule]]\ndecide = \"approve\"\nfolder = \"../elsewhere\"\nmatch = [\"../elsewhere/x\"]\n",
            "examples that Countersign does not make",
            Some(1),
        ),
        (
            "[[rule]]\ndecide = \"approve\"\ncommand = \"ls\"\ntool = \"not an address!\"\n",
            "not a tool address",
            Some(1),
        ),
        ("[[rules]]\ndecide = \"approve\"\n", "rules", Some(1)),
    ] {
        let e = read(text).unwrap_err();
        assert!(e.to_string().contains(says), "{text}: {e}");
        assert_eq!(e.line, line, "{text}: {e}");
    }
    // An interpreter's prefix is refused as the chooser refuses it, not an error.
    let p = read("[[rule]]\ndecide = \"approve\"\ncommand = \"python3\"\n").unwrap();
    assert!(matches!(p[0].outcome, Outcome::Refused { .. }));
}
