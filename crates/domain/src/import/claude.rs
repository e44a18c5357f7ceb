//! Claude Code's `permissions` (settings.json, settings.local.json): `allow`, `ask` and `deny`
//! lists of `Tool` or `Tool(specifier)` strings; a deny beats an ask, an ask beats an allow
//! (code.claude.com/docs/en/permissions, "Permission rule syntax"; "Bash(npm run test:*)" and
//! "Bash(npm run *)" are prefixes, a `*` elsewhere a wildcard; Read and Edit rules follow
//! gitignore patterns: `//path` from the root, `~/path` from the home folder, `/path` from the
//! settings file's project, `path` or `./path` from where Claude Code runs).

use serde_json::Value;

use super::{
    Command, Draft, Format, ImportError, Outcome, Placing, Proposed, Said, Source, folder_outcome,
    line_of, shell_outcome,
};
use crate::scope::{Effect, Reach};
use crate::tool::ToolAddress;

/// The keys of `permissions` Countersign knows; any other is an error, since its rules would
/// go unread.
const KNOWN: &[&str] = &[
    "allow",
    "ask",
    "deny",
    "defaultMode",
    "additionalDirectories",
    "disableBypassPermissionsMode",
    "disableAutoMode",
];

/// Claude Code's tools that write files: an `Edit(…)` rule is about each of them.
const EDIT_TOOLS: &[&str] = &[
    "claude-code.Edit",
    "claude-code.MultiEdit",
    "claude-code.Write",
];

const ASKS: &str = "Countersign asks about any call no rule decides";

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
    let Value::Object(root) = root else {
        return Err(fail(Some(1), "a settings file is a JSON object".into()));
    };
    let Some(permissions) = root.get("permissions") else {
        return Ok(Vec::new());
    };
    let line_of_key = |key: &str| line_of(text, &format!("\"{key}\""), &mut 0);
    let Value::Object(permissions) = permissions else {
        return Err(fail(
            Some(line_of_key("permissions")),
            "`permissions` is not an object".into(),
        ));
    };
    for key in permissions.keys() {
        if !KNOWN.contains(&key.as_str()) {
            return Err(fail(
                Some(line_of_key(key)),
                format!(
                    "`permissions.{key}` is not a key Claude Code documents (Countersign reads \
                     allow, ask and deny)"
                ),
            ));
        }
    }
    let mut proposed: Vec<Proposed> = super::string_lists(
        file,
        text,
        permissions,
        &[
            ("allow", Said::Allow),
            ("ask", Said::Ask),
            ("deny", Said::Deny),
        ],
    )?
    .into_iter()
    .map(|(line, said, rule)| Proposed {
        source: Source {
            format: Format::Claude,
            file: file.to_owned(),
            line,
            text: rule,
            digest: None,
        },
        said,
        outcome: Outcome::Left { why: ASKS.into() },
        examples: Vec::new(),
    })
    .collect();
    // Each rule's outcome, once every rule is known: an allow that an ask or a deny carves
    // something out of, which Countersign does not bring along, would reach further.
    let carving: Vec<(Said, Rule, bool)> = proposed
        .iter()
        .filter(|p| p.said != Said::Allow)
        .map(|p| {
            let rule = parse(&p.source.text);
            let kept = kept_as_decline(p.said, &rule, placing);
            (p.said, rule, kept)
        })
        .collect();
    for p in &mut proposed {
        let rule = parse(&p.source.text);
        let mut outcome = outcome(&rule, p.said, placing);
        // An allow written with spaces around its tool's name (`Bash (ls *)`, ` Bash(ls *)`)
        // may be read by Claude Code as no rule at all: here it would approve.
        if p.said == Said::Allow
            && matches!(outcome, Outcome::Kept { .. })
            && (p.source.text != p.source.text.trim()
                || rule.tool.contains(char::is_whitespace)
                || p.source
                    .text
                    .split_once('(')
                    .is_some_and(|(t, _)| t != t.trim()))
        {
            outcome = Outcome::Refused {
                why: "it is written with spaces around its tool's name, which Claude Code may \
                      not read as this rule"
                    .into(),
            };
        }
        if p.said == Said::Allow
            && matches!(outcome, Outcome::Kept { .. })
            && let Some((said, other, _)) = carving
                .iter()
                .find(|(_, other, kept)| !kept && overlaps(&rule, other))
        {
            outcome = Outcome::Refused {
                why: format!(
                    "the {} rule `{}` takes calls out of it, which Countersign would not bring \
                     along: imported alone it would reach further",
                    if *said == Said::Ask { "ask" } else { "deny" },
                    other.text
                ),
            };
        }
        p.outcome = outcome;
    }
    Ok(proposed)
}

/// A rule string, read.
#[derive(Debug, Clone)]
struct Rule {
    text: String,
    tool: String,
    specifier: Option<String>,
}

fn parse(text: &str) -> Rule {
    let t = text.trim();
    match t.split_once('(') {
        Some((tool, rest)) if rest.ends_with(')') => Rule {
            text: t.to_owned(),
            tool: tool.trim().to_owned(),
            specifier: Some(rest[..rest.len() - 1].to_owned()),
        },
        _ => Rule {
            text: t.to_owned(),
            tool: t.to_owned(),
            specifier: None,
        },
    }
}

/// Bash's specifier as a command pattern.
fn command(spec: Option<&str>) -> Command {
    let Some(spec) = spec.map(str::trim) else {
        return Command::Any;
    };
    if spec.is_empty() || spec == "*" {
        return Command::Any;
    }
    let head = spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *"));
    match head {
        Some(head) if !head.contains('*') => Command::Prefix(head.trim().to_owned()),
        _ if spec.contains('*') => Command::Glob(spec.to_owned()),
        _ => Command::Exact(spec.to_owned()),
    }
}

/// The folder an Edit pattern names, when it names a whole folder (`dir/**`: a bare name
/// matches at any depth, so only a pattern ending in `/**` is one folder), from where its kind
/// of path starts: `//` the root, `~/` the home folder, `/` the settings file's project (the
/// person's own settings: `~/.claude`), anything else where Claude Code runs (CC-perm, "Read
/// and Edit").
fn folder(spec: &str, placing: &Placing) -> Result<String, String> {
    let spec = spec.trim();
    let Some(dir) = spec.strip_suffix("/**") else {
        return Err(
            "it is a pattern of files (a name alone matches at any depth), and a Countersign \
             folder rule covers one whole folder: it would reach further"
                .into(),
        );
    };
    if dir.is_empty() || dir.contains(['*', '?', '[', '!', '\\']) {
        return Err(
            "it is a pattern of files, and a Countersign folder rule covers one whole folder: \
             it would reach further"
                .into(),
        );
    }
    let under = |base: &str, rest: &str| {
        format!(
            "{}/{}",
            base.trim_end_matches('/'),
            rest.trim_start_matches("./").trim_start_matches('/')
        )
    };
    let home = || {
        placing
            .home
            .as_deref()
            .ok_or_else(|| "its path starts at a home folder Countersign was not told".to_owned())
    };
    let path = if let Some(abs) = dir.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = dir.strip_prefix("~/") {
        under(home()?, rest)
    } else if dir.starts_with('/') {
        match &placing.project {
            Some(project) => under(project, dir),
            None => under(&under(home()?, ".claude"), dir),
        }
    } else {
        match &placing.project {
            Some(project) => under(project, dir),
            None => {
                return Err(
                    "its path is relative to where Claude Code runs, which rules that apply \
                     everywhere cannot know"
                        .into(),
                );
            }
        }
    };
    if path.split('/').any(|c| c == ".." || c == ".") {
        return Err("its path climbs with `..` or names `.`".into());
    }
    Ok(path)
}

fn outcome(rule: &Rule, said: Said, placing: &Placing) -> Outcome {
    let project = placing.project.as_deref();
    let edits = matches!(rule.tool.as_str(), "Edit" | "Write" | "MultiEdit");
    match (rule.tool.as_str(), rule.specifier.as_deref()) {
        ("Bash", spec) => shell_outcome(&["claude-code.Bash"], said, &command(spec), project, None),
        (_, None) if edits => match said {
            Said::Allow => Outcome::Refused {
                why: "it allows writing any file (Countersign's own and every agent's settings \
                      among them): name a folder instead"
                    .into(),
            },
            Said::Ask | Said::Other => Outcome::Left { why: ASKS.into() },
            Said::Deny => super::kept(
                tools_of(&rule.tool),
                Effect::Deny,
                &Reach::Any,
                project,
                None,
            ),
        },
        // Claude Code consults path rules of Edit only (and Read): a Write or MultiEdit path
        // rule allows and denies nothing (CC-perm, "Read and Edit").
        ("Write" | "MultiEdit", Some(_)) => Outcome::Left {
            why: "Claude Code never consults a path rule of this tool (Edit rules cover every \
                  tool that writes files): it does nothing there, and nothing here"
                .into(),
        },
        (_, Some(spec)) if edits => folder_outcome(
            tools_of(&rule.tool),
            said,
            folder(spec, placing),
            project,
            None,
        ),
        (tool, None)
            if tool.starts_with("mcp__")
                && tool.matches("__").count() >= 2
                && !tool.contains('*') =>
        {
            any_call(tool, said, project)
        }
        (tool, _) if tool.starts_with("mcp__") => match said {
            Said::Allow => Outcome::Refused {
                why: "it names every tool of an MCP server, and a Countersign rule names one \
                      tool: allow each tool instead"
                    .into(),
            },
            Said::Ask | Said::Other => Outcome::Left { why: ASKS.into() },
            Said::Deny => Outcome::Left {
                why: "a Countersign rule names one tool of a server; Claude Code still declines \
                      them itself"
                    .into(),
            },
        },
        (_, Some(_)) => match said {
            Said::Allow => Outcome::Refused {
                why: format!(
                    "Countersign cannot narrow {} calls by what its parentheses say: approving \
                     every {} call would reach further",
                    rule.tool, rule.tool
                ),
            },
            Said::Ask | Said::Other => Outcome::Left { why: ASKS.into() },
            Said::Deny => Outcome::Left {
                why: format!(
                    "Countersign cannot narrow {} calls by what its parentheses say; Claude \
                     Code still declines them itself",
                    rule.tool
                ),
            },
        },
        (tool, None) => any_call(tool, said, project),
    }
}

/// Every call of one tool.
fn any_call(tool: &str, said: Said, project: Option<&str>) -> Outcome {
    let Ok(address) = ToolAddress::from_canonical(&format!("claude-code.{tool}")) else {
        return Outcome::Refused {
            why: format!("`{tool}` is not a tool name Claude Code gives"),
        };
    };
    let effect = match said {
        Said::Ask | Said::Other => return Outcome::Left { why: ASKS.into() },
        Said::Allow => Effect::Approve,
        Said::Deny => Effect::Deny,
    };
    Outcome::Kept {
        rules: vec![Draft {
            tool: address,
            effect,
            reach: Reach::Any,
            project: project.map(str::to_owned),
            reason: None,
        }],
    }
}

/// The tools an edit rule is about: `Edit(…)` every tool that writes files.
fn tools_of(tool: &str) -> &'static [&'static str] {
    match tool {
        "Write" => &["claude-code.Write"],
        "MultiEdit" => &["claude-code.MultiEdit"],
        _ => EDIT_TOOLS,
    }
}

/// Whether an ask or deny rule may take calls out of an allow rule: one about every tool or
/// tools by a pattern (`*`, `mcp__*`), a whole MCP server beside one of its tools, a Read deny
/// beside an edit (Claude Code's Read deny blocks writing there too), the same tool, and for
/// commands one whose first word may be the allow's (the same word, or a pattern).
fn overlaps(allow: &Rule, other: &Rule) -> bool {
    let edits = |t: &str| matches!(t, "Edit" | "Write" | "MultiEdit");
    if other.tool.contains('*') {
        return true;
    }
    if allow.tool.starts_with(&format!("{}__", other.tool)) && other.tool.starts_with("mcp__") {
        return true;
    }
    if edits(&allow.tool) && (edits(&other.tool) || other.tool == "Read") {
        return true;
    }
    if allow.tool != other.tool {
        return false;
    }
    if allow.tool != "Bash" {
        return true;
    }
    // Claude Code splits a command at `|`, `;` and `&` before matching each part, so a
    // pattern holding one never matches (CC-perm, "compound commands").
    if other
        .specifier
        .as_deref()
        .is_some_and(|s| s.contains(['|', ';', '&']))
    {
        return false;
    }
    let first = |r: &Rule| {
        r.specifier
            .as_deref()
            .and_then(|s| s.split_whitespace().next())
            .map(|w| w.trim_end_matches(":*").to_owned())
    };
    match (first(allow), first(other)) {
        (Some(a), Some(o)) => a == o || o.contains('*') || a.contains('*'),
        _ => true,
    }
}

/// Whether an import brings a deny rule along as a Countersign decline (then it takes the
/// same calls out of an approve rule in Countersign).
fn kept_as_decline(said: Said, rule: &Rule, placing: &Placing) -> bool {
    said == Said::Deny && matches!(outcome(rule, said, placing), Outcome::Kept { .. })
}
