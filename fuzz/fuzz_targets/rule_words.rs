#![no_main]
//! Any text as a rule in the Grants page's words (`countersign rules check --rule`) against any
//! text as a command: reading it never panics, and a rule it reads decides only as the one
//! function every submission goes through decides.

use countersign_domain::call::{CallView, TerminalCall};
use countersign_domain::grant::{CallFacts, command_segments, deciding, explain, probe, read_rule};
use countersign_domain::tool::ToolAddress;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (rule, command) = text.split_once('\n').unwrap_or((&text, "ls"));
    let Ok(tool) = ToolAddress::parse("claude-code.Bash") else { return };
    let call = CallView::Terminal(TerminalCall {
        title: "t".into(),
        command: command.to_owned(),
        args: None,
        description: None,
        cwd: Some("/home/me/app".into()),
        env: None,
        options: Some([("shell".to_owned(), serde_json::json!("bash"))].into()),
    });
    let Ok(a) = probe(tool, call, Some("/home/me/app".into()), 0) else { return };
    let Ok(g) = read_rule(rule, &a, 0) else { return };
    let segs = command_segments(&a.call);
    let facts = CallFacts::new(&a, segs.as_deref());
    let grants = [g];
    let v = explain(&grants, &facts, 0);
    let decided = deciding(&grants, &facts, 0).map(|g| g.effect);
    assert_eq!(v.by.is_some(), decided.is_some());
});
