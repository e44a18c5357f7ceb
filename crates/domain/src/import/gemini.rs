//! Gemini CLI's policy files (`~/.gemini/policies/*.toml`): `[[rule]]` tables with `toolName`,
//! `commandPrefix` (a word-bounded prefix of a shell command), `commandRegex`, `argsPattern`,
//! `decision` (`allow`, `deny`, `ask_user`), `priority` (0–999; the highest matching rule wins),
//! `modes`, `interactive`, `subagent`, `mcpName`, `toolAnnotations`, `allowRedirection`,
//! `denyMessage` (`google-gemini/gemini-cli` `docs/reference/policy-engine.md`;
//! `packages/core/src/policy/toml-loader.ts`, `utils.ts` `buildArgsPatterns`).
//!
//! Regular expressions (`commandRegex`, `argsPattern`) are never run here: an allow that names
//! one is refused (it can match more than it seems), a deny that names one is left to Gemini.

use serde::Deserialize;

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, line_at, shell_outcome,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    rule: Vec<toml::Spanned<Entry>>,
    /// Gemini's safety checkers: not rules about calls.
    #[serde(default, rename = "safety_checker")]
    _safety_checker: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn all(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    tool_name: Option<OneOrMany>,
    subagent: Option<String>,
    mcp_name: Option<String>,
    tool_annotations: Option<toml::Table>,
    args_pattern: Option<String>,
    command_prefix: Option<OneOrMany>,
    command_regex: Option<String>,
    decision: Decision,
    priority: i64,
    modes: Option<Vec<String>>,
    interactive: Option<bool>,
    #[serde(alias = "allow_redirection")]
    allow_redirection: Option<bool>,
    #[serde(alias = "deny_message")]
    deny_message: Option<String>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Decision {
    Allow,
    Deny,
    AskUser,
}

/// Gemini CLI's tools that write files: an allow on every call of one would approve writing
/// any file.
const WRITE_TOOLS: &[&str] = &["write_file", "replace"];

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
    let parsed: File = super::toml_file(file, text, "a policy file")?;
    super::count_rules(file, parsed.rule.len())?;
    let project = placing.project.as_deref();
    let mut read: Vec<(u32, Entry, String)> = Vec::new();
    for spanned in parsed.rule {
        let span = spanned.span();
        let line = line_at(text, span.start);
        let written = text
            .get(span.clone())
            .unwrap_or("")
            .trim()
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("; ");
        let e = spanned.into_inner();
        if !(0..=999).contains(&e.priority) {
            return Err(fail(Some(line), "`priority` is from 0 to 999".into()));
        }
        if e.tool_name.is_none() {
            return Err(fail(Some(line), "a rule names its `toolName`".into()));
        }
        if (e.command_prefix.is_some() || e.command_regex.is_some())
            && !matches!(&e.tool_name, Some(OneOrMany::One(t)) if t == "run_shell_command")
        {
            return Err(fail(
                Some(line),
                "`commandPrefix` and `commandRegex` go with toolName = \"run_shell_command\""
                    .into(),
            ));
        }
        if [
            e.command_prefix.is_some(),
            e.command_regex.is_some(),
            e.args_pattern.is_some(),
        ]
        .iter()
        .filter(|x| **x)
        .count()
            > 1
        {
            return Err(fail(
                Some(line),
                "a rule has at most one of commandPrefix, commandRegex and argsPattern".into(),
            ));
        }
        for pattern in [&e.command_regex, &e.args_pattern].into_iter().flatten() {
            if pattern.len() > 1_000 {
                return Err(fail(
                    Some(line),
                    "a regular expression of more than 1,000 bytes".into(),
                ));
            }
        }
        read.push((line, e, written));
    }
    let mut proposed = Vec::new();
    for (line, e, written) in &read {
        let said = match e.decision {
            Decision::Allow => Said::Allow,
            Decision::Deny => Said::Deny,
            Decision::AskUser => Said::Ask,
        };
        let reason = e.deny_message.as_deref();
        let outcome = if said == Said::Allow
            && let Some(why) = narrowed(e)
        {
            Outcome::Refused { why }
        } else if said == Said::Deny && (e.subagent.is_some() || e.mcp_name.is_some()) {
            Outcome::Left {
                why: "it is about a subagent or an MCP server, which Countersign's rules do not \
                      name; Gemini CLI still applies it"
                    .into(),
            }
        } else {
            rule_outcome(e, said, project, reason, &read, *line)
        };
        proposed.push(Proposed {
            source: Source {
                format: Format::Gemini,
                file: file.to_owned(),
                line: *line,
                text: written.clone(),
                digest: None,
            },
            said,
            outcome,
            examples: Vec::new(),
        });
    }
    Ok(proposed)
}

/// Why an allow holds in fewer places than Countersign would apply it: some modes, some
/// sessions, a subagent, an MCP server, a tool's annotations.
fn narrowed(e: &Entry) -> Option<String> {
    if e.modes.as_ref().is_some_and(|m| !m.is_empty()) {
        return Some(
            "it holds in some of Gemini CLI's modes only, and a Countersign rule holds in all"
                .into(),
        );
    }
    if e.interactive.is_some() {
        return Some("it holds in interactive or headless sessions only".into());
    }
    if e.subagent.is_some() || e.mcp_name.is_some() || e.tool_annotations.is_some() {
        return Some(
            "it is narrowed by a subagent, an MCP server or a tool's annotations, which \
             Countersign's rules do not read: it would reach further"
                .into(),
        );
    }
    if e.allow_redirection == Some(true) {
        return Some("it allows output redirected to files, which a prefix never covers".into());
    }
    None
}

fn rule_outcome(
    e: &Entry,
    said: Said,
    project: Option<&str>,
    reason: Option<&str>,
    all: &[(u32, Entry, String)],
    line: u32,
) -> Outcome {
    let tools = e.tool_name.as_ref().map(OneOrMany::all).unwrap_or_default();
    if tools.iter().any(|t| t.contains('*')) {
        return match said {
            Said::Allow => Outcome::Refused {
                why: "it names tools by a pattern, and a Countersign rule names one tool".into(),
            },
            _ => Outcome::Left {
                why: "it names tools by a pattern; Gemini CLI still applies it".into(),
            },
        };
    }
    if e.command_regex.is_some() || e.args_pattern.is_some() {
        return match said {
            Said::Allow => Outcome::Refused {
                why: "it matches by a regular expression, which can match more than it seems \
                      (unanchored, over the arguments as JSON): Countersign does not read it"
                    .into(),
            },
            _ => Outcome::Left {
                why: "it matches by a regular expression Countersign does not read; Gemini CLI \
                      still applies it"
                    .into(),
            },
        };
    }
    if let Some(prefixes) = &e.command_prefix {
        // The highest priority wins in Gemini CLI: an allow beneath an ask (or a deny) about
        // the same program, at a priority as high or higher, would reach further alone.
        if said == Said::Allow {
            let first = |p: &str| p.split_whitespace().next().unwrap_or("").to_owned();
            let mine: Vec<String> = prefixes.all().iter().map(|p| first(p)).collect();
            let carved = all.iter().any(|(other_line, o, _)| {
                *other_line != line
                    && o.decision != Decision::Allow
                    && o.priority >= e.priority
                    && o.command_prefix
                        .as_ref()
                        .is_none_or(|op| op.all().iter().any(|p| mine.contains(&first(p))))
                    && o.tool_name.as_ref().is_some_and(|t| {
                        t.all().iter().any(|t| t == "run_shell_command" || t == "*")
                    })
            });
            if carved {
                return Outcome::Refused {
                    why: "an ask or deny rule about the same program at a priority as high \
                          takes calls out of it in Gemini CLI: imported alone it would reach \
                          further"
                        .into(),
                };
            }
        }
        let mut kept = Vec::new();
        for p in prefixes.all() {
            match shell_outcome(
                &["gemini.run_shell_command"],
                said,
                &Command::Prefix(p),
                project,
                reason,
            ) {
                Outcome::Kept { rules } => kept.extend(rules),
                other => return other,
            }
        }
        return Outcome::Kept { rules: kept };
    }
    // A whole tool.
    if said == Said::Allow && tools.iter().any(|t| t == "run_shell_command") {
        return Outcome::Refused {
            why: "it allows every command, which reaches everything: name a commandPrefix".into(),
        };
    }
    if said == Said::Allow && tools.iter().any(|t| WRITE_TOOLS.contains(&t.as_str())) {
        return Outcome::Refused {
            why: "it allows writing any file (Countersign's own and every agent's settings \
                  among them)"
                .into(),
        };
    }
    let effect = match said {
        Said::Allow => crate::scope::Effect::Approve,
        Said::Deny => crate::scope::Effect::Deny,
        Said::Ask | Said::Other => {
            return Outcome::Left {
                why: "Countersign asks about any call no rule decides".into(),
            };
        }
    };
    let mut rules = Vec::new();
    for t in &tools {
        match crate::tool::ToolAddress::from_canonical(&format!("gemini.{t}")) {
            Ok(tool) => rules.push(super::Draft {
                tool,
                effect,
                reach: crate::scope::Reach::Any,
                project: project.map(str::to_owned),
                reason: reason.map(str::to_owned),
            }),
            Err(_) => {
                return Outcome::Refused {
                    why: format!("`{t}` is not a tool name Gemini CLI gives"),
                };
            }
        }
    }
    Outcome::Kept { rules }
}
