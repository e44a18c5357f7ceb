//! A rules file's own examples, checked when it is read: each `match` call must be decided by
//! its rule, each `not_match` call left alone, as the rule `covers` them once made — so a file
//! whose rules would not do what its author wrote down is refused, naming the line.

use super::{CallFacts, Grant, command_segments, covers};
use crate::approval::{Approval, Requester};
use crate::call::CallView;
use crate::ids::GrantId;
use crate::import::{self, Draft, Format, ImportError, Outcome, Placing, Proposed};
use crate::scope::Reach;
use crate::tool::{ANY_AGENT_FILES, ANY_AGENT_SHELL, ToolAddress};

/// Reads a rules file ([`import::read`]) and checks its examples ([`check_examples`]).
pub fn read_rules(
    format: Format,
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    let proposed = import::read(format, file, text, placing)?;
    check_examples(&proposed, file, placing)?;
    Ok(proposed)
}

/// Whether every example of every rule the file keeps is decided as it says.
pub fn check_examples(
    proposed: &[Proposed],
    file: &str,
    placing: &Placing,
) -> Result<(), ImportError> {
    for p in proposed {
        let Outcome::Kept { rules } = &p.outcome else {
            if p.examples.is_empty() {
                continue;
            }
            return Err(ImportError {
                file: file.to_owned(),
                line: Some(p.source.line),
                why: "a rule with examples that Countersign does not make: fix the rule".into(),
            });
        };
        for e in &p.examples {
            let covered = rules
                .iter()
                .map(|d| example_covered(d, &e.text, placing.project.as_deref()))
                .collect::<Result<Vec<_>, String>>();
            let covered = match covered {
                Ok(c) => c,
                Err(why) => {
                    return Err(ImportError {
                        file: file.to_owned(),
                        line: Some(p.source.line),
                        why: format!("its example {:?} {why}", e.text),
                    });
                }
            };
            let any = covered.iter().any(|c| c.is_ok());
            if any != e.covered {
                let why = match (e.covered, covered.iter().find_map(|c| c.clone().err())) {
                    (true, Some(miss)) => format!(
                        "its example {:?} is in `match`, but the rule does not decide it: {miss}",
                        e.text
                    ),
                    (true, None) => format!(
                        "its example {:?} is in `match`, but the rule does not decide it",
                        e.text
                    ),
                    (false, _) => format!(
                        "its example {:?} is in `not_match`, but the rule decides it",
                        e.text
                    ),
                };
                return Err(ImportError {
                    file: file.to_owned(),
                    line: Some(p.source.line),
                    why,
                });
            }
        }
    }
    Ok(())
}

/// Whether the rule `d` covers the example call `text` (a command, or a file's path), from
/// `project`.
fn example_covered(
    d: &Draft,
    text: &str,
    project: Option<&str>,
) -> Result<Result<(), String>, String> {
    let rule = Grant::drafted(d, GrantId::generate(), 0);
    let cwd = project.unwrap_or("/");
    let (tool, call) = match &d.reach {
        Reach::Command { .. } | Reach::Any if d.tool.as_str() != ANY_AGENT_FILES => {
            let tool = if d.tool.as_str() == ANY_AGENT_SHELL {
                "claude-code.Bash"
            } else {
                d.tool.as_str()
            };
            let call = serde_json::json!({"card": "terminal", "title": "Run", "command": text,
                "options": {"shell": "bash"}});
            (tool, call)
        }
        _ => {
            let tool = if d.tool.as_str() == ANY_AGENT_FILES {
                "claude-code.Write"
            } else {
                d.tool.as_str()
            };
            let path = if text.starts_with('/') {
                text.to_owned()
            } else {
                format!("{}/{text}", cwd.trim_end_matches('/'))
            };
            let call = serde_json::json!({"card": "diff", "title": "Write",
                "diffs": [{"path": path, "old_text": null, "new_text": "x"}]});
            (tool, call)
        }
    };
    let tool = ToolAddress::from_canonical(tool).map_err(|e| e.to_string())?;
    let call: CallView = serde_json::from_value(call).map_err(|e| format!("is not a call: {e}"))?;
    let requester = Requester {
        name: "example".into(),
        session: None,
        cwd: Some(cwd.to_owned()),
    };
    let a = Approval::pending(tool, requester, call, None, String::new(), 0, 0);
    let segs = command_segments(&a.call);
    let facts = CallFacts::new(&a, segs.as_deref());
    Ok(covers(&rule, &facts, 0).map_err(|m| m.to_string()))
}

#[cfg(test)]
mod tests;
