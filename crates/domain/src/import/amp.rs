//! Amp's `amp.permissions` (its settings JSON): an ordered list of `{tool, matches, action,
//! context, to, message}` where the first rule that matches the tool and its arguments wins, a
//! string condition is a glob over the whole value (`*` any characters) or a regular expression
//! between slashes, and `action` is `allow`, `reject`, `ask` or `delegate`
//! (ampcode.com/manual/appendix, "Permissions"). Bash's argument is `cmd`.

use serde_json::Value;

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, line_of, shell_outcome,
};

/// The keys of a rule Amp documents.
const KNOWN: &[&str] = &["tool", "matches", "action", "context", "to", "message"];

/// A rule, read.
struct Rule {
    tool: String,
    /// Bash's `cmd` conditions (any of them), when the rule has exactly that.
    cmd: Option<Vec<String>>,
    /// Conditions on other arguments, or on `cmd` that are not strings.
    other_matches: bool,
    said: Said,
    delegate: bool,
    context: bool,
    message: Option<String>,
}

pub(super) fn read(
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    let fail = |line: Option<u32>, why: String| ImportError {
        file: file.to_owned(),
        line,
        why,
    };
    let root = super::json_file(file, text)?;
    let Some(list) = root.get("amp.permissions") else {
        return Ok(Vec::new());
    };
    let list_line = line_of(text, "\"amp.permissions\"", &mut 0);
    let Value::Array(list) = list else {
        return Err(fail(
            Some(list_line),
            "`amp.permissions` is not a list".into(),
        ));
    };
    super::count_rules(file, list.len())?;
    let mut from = text.find("\"amp.permissions\"").unwrap_or(0);
    let mut rules = Vec::new();
    for item in list {
        let line = line_of(text, "\"tool\"", &mut from);
        let bad = |why: String| fail(Some(line), why);
        let Value::Object(o) = item else {
            return Err(bad("a rule is an object".into()));
        };
        if let Some(k) = o.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(bad(format!("a rule has no key `{k}` in Amp's documents")));
        }
        let tool = o
            .get("tool")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a rule names its `tool`".into()))?
            .to_owned();
        let (said, delegate) = match o.get("action").and_then(Value::as_str) {
            Some("allow") => (Said::Allow, false),
            Some("reject") => (Said::Deny, false),
            Some("ask") => (Said::Ask, false),
            Some("delegate") => (Said::Ask, true),
            _ => {
                return Err(bad(
                    "`action` is \"allow\", \"reject\", \"ask\" or \"delegate\"".into(),
                ));
            }
        };
        let (cmd, other_matches) = match o.get("matches") {
            None => (None, false),
            Some(Value::Object(m)) => {
                let cmd = match m.get("cmd") {
                    Some(Value::String(c)) => Some(vec![c.clone()]),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|i| i.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>(),
                    _ => None,
                };
                let other =
                    m.keys().any(|k| k != "cmd") || (m.contains_key("cmd") && cmd.is_none());
                (cmd, other)
            }
            Some(_) => return Err(bad("`matches` is an object".into())),
        };
        rules.push((
            line,
            serde_json::to_string(item).unwrap_or_default(),
            Rule {
                tool,
                cmd,
                other_matches,
                said,
                delegate,
                context: o.contains_key("context"),
                message: o.get("message").and_then(Value::as_str).map(str::to_owned),
            },
        ));
    }
    let project = placing.project.as_deref();
    let mut proposed = Vec::new();
    for (i, (line, written, r)) in rules.iter().enumerate() {
        let outcome = outcome(r, &rules[..i], project);
        proposed.push(Proposed {
            source: Source {
                format: Format::Amp,
                file: file.to_owned(),
                line: *line,
                text: written.clone(),
                digest: None,
            },
            said: if r.delegate { Said::Other } else { r.said },
            outcome,
            examples: Vec::new(),
        });
    }
    Ok(proposed)
}

/// The words a Bash condition's glob starts with: `git *` is `git`, whatever follows.
fn glob(pattern: &str) -> Command {
    match pattern.strip_suffix(" *") {
        Some(head) if !head.contains(['*', '?']) => Command::Prefix(head.to_owned()),
        _ if pattern.contains('*') => Command::Glob(pattern.to_owned()),
        _ => Command::Exact(pattern.to_owned()),
    }
}

/// What one rule becomes, after the rules before it (the first match wins in Amp).
fn outcome(r: &Rule, before: &[(u32, String, Rule)], project: Option<&str>) -> Outcome {
    if r.delegate {
        return Outcome::Left {
            why: "it hands the call to a program of its own, which Countersign does not run".into(),
        };
    }
    if r.said == Said::Allow && r.context {
        return Outcome::Refused {
            why: "it holds in the main thread or in subagents only, and a Countersign rule holds \
                  in both"
                .into(),
        };
    }
    if r.tool.contains('*') {
        return match r.said {
            Said::Allow => Outcome::Refused {
                why: "it names tools by a pattern, and a Countersign rule names one tool".into(),
            },
            _ => Outcome::Left {
                why: "it names tools by a pattern; Amp still applies it".into(),
            },
        };
    }
    if r.tool != "Bash" {
        return match (r.said, r.other_matches || r.cmd.is_some()) {
            (Said::Allow, true) => Outcome::Refused {
                why: format!(
                    "Countersign cannot narrow {} calls by their arguments: approving every one \
                     would reach further",
                    r.tool
                ),
            },
            (Said::Allow, false) if matches!(r.tool.as_str(), "edit_file" | "create_file") => {
                Outcome::Refused {
                    why: "it allows writing any file (Countersign's own and every agent's \
                          settings among them)"
                        .into(),
                }
            }
            (Said::Deny, false) | (Said::Allow, false) => {
                let effect = if r.said == Said::Allow {
                    crate::scope::Effect::Approve
                } else {
                    crate::scope::Effect::Deny
                };
                super::kept(
                    &[&format!("amp.{}", r.tool)],
                    effect,
                    &crate::scope::Reach::Any,
                    project,
                    r.message.as_deref(),
                )
            }
            _ => Outcome::Left {
                why: format!(
                    "Countersign asks about any call no rule decides, and cannot narrow {} \
                     calls by their arguments; Amp still applies it",
                    r.tool
                ),
            },
        };
    }
    if r.other_matches {
        return match r.said {
            Said::Allow => Outcome::Refused {
                why: "it matches Bash by more than its command, which Countersign does not read"
                    .into(),
            },
            _ => Outcome::Left {
                why: "it matches Bash by more than its command; Amp still applies it".into(),
            },
        };
    }
    // An allow after an ask, a delegation or a reject Countersign does not bring along, about
    // the same program: in Amp the earlier one wins.
    if r.said == Said::Allow {
        let firsts = |rule: &Rule| -> Option<Vec<String>> {
            rule.cmd.as_ref().map(|cs| {
                cs.iter()
                    .map(|c| c.split_whitespace().next().unwrap_or("").to_owned())
                    .collect()
            })
        };
        let mine = firsts(r).unwrap_or_default();
        let carved = before.iter().any(|(_, _, b)| {
            b.tool == "Bash"
                && b.said != Said::Allow
                && !matches!(outcome(b, &[], project), Outcome::Kept { .. })
                && match firsts(b) {
                    None => true,
                    Some(theirs) => theirs
                        .iter()
                        .any(|t| t.contains(['*', '/']) || mine.contains(t)),
                }
        });
        if carved {
            return Outcome::Refused {
                why: "an earlier rule about the same program asks, delegates or rejects, and wins \
                      in Amp; Countersign would not bring it along: imported alone this would \
                      reach further"
                    .into(),
            };
        }
    }
    let regex = |c: &String| c.len() > 2 && c.starts_with('/') && c.ends_with('/');
    if r.cmd.as_ref().is_some_and(|cs| cs.iter().any(regex)) {
        return match r.said {
            Said::Allow => Outcome::Refused {
                why: "it matches by a regular expression, which Countersign does not read".into(),
            },
            _ => Outcome::Left {
                why: "it matches by a regular expression Countersign does not read; Amp still \
                      applies it"
                    .into(),
            },
        };
    }
    let Some(cmds) = &r.cmd else {
        return shell_outcome(
            &["amp.Bash"],
            r.said,
            &Command::Any,
            project,
            r.message.as_deref(),
        );
    };
    let mut rules = Vec::new();
    for c in cmds {
        match shell_outcome(
            &["amp.Bash"],
            r.said,
            &glob(c),
            project,
            r.message.as_deref(),
        ) {
            Outcome::Kept { rules: more } => rules.extend(more),
            other => return other,
        }
    }
    Outcome::Kept { rules }
}
