//! OpenCode's rules: in its first format the `permission` object of opencode.json (a tool's
//! name to an action, or to an object of patterns and actions), in its second the
//! `permissions` array of opencode.jsonc (`{"action", "resource", "effect"}`); JSON with
//! comments and trailing commas. The last matching rule wins; `*` matches any characters and
//! a pattern ending in ` *` also matches the bare command (opencode.ai/docs/permissions, its
//! v1 and v2 pages; `packages/opencode/src/permission/evaluate.ts` `findLast`).
//!
//! OpenCode asks through ACP, whose calls do not say which shell reads them, so no approve
//! rule of Countersign's covers them: its allows are left to OpenCode, and only its command
//! denies become Countersign declines (of `acp.execute` calls, which hold wherever they are
//! written: a decline may reach further than its source).

use serde_json::Value;

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, count_rules, line_of,
    shell_outcome,
};

/// The address ACP's shell calls arrive under.
const SHELL: &str = "acp.execute";

/// One rule as OpenCode flattens it: the tool it names, its pattern, what it says.
struct Rule {
    line: u32,
    text: String,
    tool: String,
    pattern: String,
    said: Said,
}

fn said(action: &str) -> Option<Said> {
    match action {
        "allow" => Some(Said::Allow),
        "ask" => Some(Said::Ask),
        "deny" => Some(Said::Deny),
        _ => None,
    }
}

/// The file, read as OpenCode reads JSON with comments: one that does not parse is an error
/// naming its line.
fn jsonc(file: &str, text: &str) -> Result<Value, ImportError> {
    // Comments and trailing commas, as OpenCode's own reader takes; nothing looser.
    let options = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    jsonc_parser::parse_to_serde_value::<Value>(text, &options).map_err(|e| ImportError {
        file: file.to_owned(),
        line: u32::try_from(e.line_display()).ok(),
        why: format!("not JSON with comments: {}", e.kind()),
    })
}

pub(super) fn read(
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    let fail = |line: u32, why: String| ImportError {
        file: file.to_owned(),
        line: Some(line),
        why,
    };
    let root = jsonc(file, text)?;
    let mut rules: Vec<Rule> = Vec::new();
    let mut from = 0;
    // Its first format: `permission`, an action for every tool or an object of them.
    if let Some(permission) = root.get("permission") {
        let at = line_of(text, "\"permission\"", &mut 0);
        from = text.find("\"permission\"").unwrap_or(0);
        match permission {
            Value::String(action) => {
                let s = said(action)
                    .ok_or_else(|| fail(at, format!("{action:?} is not allow, ask or deny")))?;
                rules.push(Rule {
                    line: at,
                    text: format!("\"permission\": {permission}"),
                    tool: "*".into(),
                    pattern: "*".into(),
                    said: s,
                });
            }
            Value::Object(tools) => {
                let count = tools
                    .values()
                    .map(|v| v.as_object().map_or(1, serde_json::Map::len))
                    .sum();
                count_rules(file, count)?;
                for (tool, value) in tools {
                    let line = line_of(text, &Value::String(tool.clone()).to_string(), &mut from);
                    match value {
                        Value::String(action) => rules.push(Rule {
                            line,
                            text: format!("{}: {value}", Value::String(tool.clone())),
                            tool: tool.clone(),
                            pattern: "*".into(),
                            said: said(action).ok_or_else(|| {
                                fail(line, format!("{action:?} is not allow, ask or deny"))
                            })?,
                        }),
                        Value::Object(patterns) => {
                            for (pattern, action) in patterns {
                                let quoted = Value::String(pattern.clone()).to_string();
                                let line = line_of(text, &quoted, &mut from);
                                let s = action.as_str().and_then(said).ok_or_else(|| {
                                    fail(line, format!("{action} is not allow, ask or deny"))
                                })?;
                                rules.push(Rule {
                                    line,
                                    text: format!(
                                        "{}: {{ {quoted}: {action} }}",
                                        Value::String(tool.clone())
                                    ),
                                    tool: tool.clone(),
                                    pattern: pattern.clone(),
                                    said: s,
                                });
                            }
                        }
                        other => {
                            return Err(fail(
                                line,
                                format!(
                                    "`permission.{tool}` is {other}, not an action or patterns"
                                ),
                            ));
                        }
                    }
                }
            }
            other => {
                return Err(fail(
                    at,
                    format!("`permission` is {other}, not an action or an object"),
                ));
            }
        }
    }
    // Its second: `permissions`, an ordered list.
    if let Some(list) = root.get("permissions") {
        let at = line_of(text, "\"permissions\"", &mut 0);
        from = from.max(text.find("\"permissions\"").unwrap_or(0));
        let Value::Array(list) = list else {
            return Err(fail(at, "`permissions` is not a list".into()));
        };
        count_rules(file, rules.len() + list.len())?;
        for item in list {
            let Value::Object(o) = item else {
                return Err(fail(at, format!("{item} is not a rule object")));
            };
            // Each rule's `"action"` key, after the one before (however it is spaced).
            let line = if o.contains_key("action") {
                line_of(text, "\"action\"", &mut from)
            } else {
                at
            };
            if let Some(k) = o
                .keys()
                .find(|k| !matches!(k.as_str(), "action" | "resource" | "effect"))
            {
                return Err(fail(
                    line,
                    format!("`{k}` is not a key of OpenCode's rules (action, resource, effect)"),
                ));
            }
            let field = |k: &str| {
                o.get(k)
                    .and_then(Value::as_str)
                    .ok_or_else(|| fail(line, format!("the rule has no `{k}` string")))
            };
            let effect = field("effect")?;
            rules.push(Rule {
                line,
                text: item.to_string(),
                // The second format calls the shell `shell`.
                tool: match field("action")? {
                    "shell" => "bash".to_owned(),
                    other => other.to_owned(),
                },
                pattern: field("resource")?.to_owned(),
                said: said(effect)
                    .ok_or_else(|| fail(line, format!("{effect:?} is not allow, ask or deny")))?,
            });
        }
    }
    let project = placing.project.as_deref();
    Ok(rules
        .into_iter()
        .map(|r| {
            let outcome = outcome(&r, project);
            Proposed {
                source: Source {
                    format: Format::Opencode,
                    file: file.to_owned(),
                    line: r.line,
                    text: r.text,
                    digest: None,
                },
                said: r.said,
                outcome,
                examples: Vec::new(),
            }
        })
        .collect())
}

/// A command pattern as OpenCode reads it: `git push *` is `git push` and anything after it.
fn command(pattern: &str) -> Command {
    if pattern == "*" {
        return Command::Any;
    }
    match pattern.strip_suffix(" *") {
        Some(head) if !head.contains(['*', '?']) => Command::Prefix(head.to_owned()),
        _ if pattern.contains(['*', '?']) => Command::Glob(pattern.to_owned()),
        _ => Command::Exact(pattern.to_owned()),
    }
}

fn outcome(r: &Rule, project: Option<&str>) -> Outcome {
    if r.tool != "bash" {
        return Outcome::Left {
            why: if r.tool.contains(['*', '?']) {
                "it is about every tool a pattern names, which Countersign does not bring along; \
                 OpenCode still applies it"
                    .into()
            } else {
                format!(
                    "Countersign does not bring OpenCode's `{}` rules along; OpenCode still \
                     applies it",
                    r.tool
                )
            },
        };
    }
    match r.said {
        Said::Allow => Outcome::Left {
            why: "OpenCode's commands reach Countersign through ACP, whose calls do not say \
                  which shell reads them, so no approve rule here covers them; OpenCode still \
                  applies it"
                .into(),
        },
        _ => shell_outcome(&[SHELL], r.said, &command(&r.pattern), project, None),
    }
}
