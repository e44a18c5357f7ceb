//! Copilot CLI's rules, in the two places it keeps them: its saved approvals,
//! `~/.copilot/permissions-config.json` (`locations` by folder, each with `tool_approvals`:
//! `{"kind": "commands", "commandIdentifiers": ["git status", "git:*"]}` — literal, or the
//! words and anything after them for `:*`), and its `--allow-tool`/`--deny-tool` flags as a
//! script or alias passes them (`shell(git push)`, `shell(git:*)`, `shell`, `write(…)`, a
//! server's name; a deny beats every allow). docs.github.com, "Copilot CLI configuration
//! directory" (`permissions-config.json`), "Copilot CLI command reference" ("Tool permission
//! patterns"), "Allowing and denying tool use".

use serde_json::Value;

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, count_rules, line_of,
    shell_outcome,
};

/// Copilot CLI's shell tool, as Countersign addresses its calls.
const SHELL: &str = "copilot.bash";

pub(super) fn read(
    file: &str,
    text: &str,
    placing: &Placing,
) -> Result<Vec<Proposed>, ImportError> {
    if text.trim_start().starts_with('{') {
        saved(file, text)
    } else {
        flags(file, text, placing)
    }
}

fn proposed(file: &str, line: u32, text: String, said: Said, outcome: Outcome) -> Proposed {
    Proposed {
        source: Source {
            format: Format::Copilot,
            file: file.to_owned(),
            line,
            text,
            digest: None,
        },
        said,
        outcome,
        examples: Vec::new(),
    }
}

/// `permissions-config.json`: approvals saved for each folder, which serve that folder's calls.
fn saved(file: &str, text: &str) -> Result<Vec<Proposed>, ImportError> {
    let fail = |line: u32, why: String| ImportError {
        file: file.to_owned(),
        line: Some(line),
        why,
    };
    let root = super::json_file(file, text)?;
    let Some(Value::Object(locations)) = root.get("locations") else {
        return Err(fail(
            1,
            "no `locations` object, as Copilot CLI saves approvals".into(),
        ));
    };
    let count = locations
        .values()
        .filter_map(|l| l.get("tool_approvals").and_then(Value::as_array))
        .flatten()
        .map(|a| {
            a.get("commandIdentifiers")
                .and_then(Value::as_array)
                .map_or(1, Vec::len)
        })
        .sum();
    count_rules(file, count)?;
    let mut from = 0;
    let mut out = Vec::new();
    for (folder, location) in locations {
        let at = line_of(text, &Value::String(folder.clone()).to_string(), &mut from);
        if !folder.starts_with('/') {
            return Err(fail(
                at,
                format!("{folder:?} is not a full path of a folder"),
            ));
        }
        let Value::Object(location) = location else {
            return Err(fail(
                at,
                format!("the location {folder:?} is not an object"),
            ));
        };
        if let Some(k) = location
            .keys()
            .find(|k| !matches!(k.as_str(), "tool_approvals" | "allowed_directories"))
        {
            return Err(fail(
                at,
                format!(
                    "`{k}` is not a key Copilot CLI documents (tool_approvals, allowed_directories)"
                ),
            ));
        }
        let project = Some(folder.trim_end_matches('/'));
        for approval in location
            .get("tool_approvals")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = approval.get("kind").and_then(Value::as_str).unwrap_or("");
            let line = line_of(text, &format!("\"{kind}\""), &mut from);
            if kind != "commands" {
                let outcome = match kind {
                    "write" => Outcome::Refused {
                        why: "it allows writing any file (Countersign's own and every agent's \
                              settings among them)"
                            .into(),
                    },
                    "" => return Err(fail(line, format!("{approval} has no `kind`"))),
                    other => Outcome::Left {
                        why: format!(
                            "Countersign does not bring Copilot CLI's `{other}` approvals along; \
                             Copilot CLI still applies it"
                        ),
                    },
                };
                out.push(proposed(
                    file,
                    line,
                    approval.to_string(),
                    Said::Allow,
                    outcome,
                ));
                continue;
            }
            let Some(Value::Array(ids)) = approval.get("commandIdentifiers") else {
                return Err(fail(
                    line,
                    "`commands` without a `commandIdentifiers` list".into(),
                ));
            };
            for id in ids {
                let Value::String(id) = id else {
                    return Err(fail(line, format!("{id} is not a command")));
                };
                let line = line_of(text, &Value::String(id.clone()).to_string(), &mut from);
                // Literal, except that `:*` at the end is the words and anything after them.
                let command = match id.strip_suffix(":*") {
                    Some(head) => Command::Prefix(head.to_owned()),
                    None => Command::Exact(id.clone()),
                };
                let outcome = shell_outcome(&[SHELL], Said::Allow, &command, project, None);
                out.push(proposed(file, line, id.clone(), Said::Allow, outcome));
            }
        }
        if location.contains_key("allowed_directories") {
            let line = line_of(text, "\"allowed_directories\"", &mut from);
            out.push(proposed(
                file,
                line,
                "allowed_directories".into(),
                Said::Other,
                Outcome::Left {
                    why: "folders Copilot CLI may read and write besides the project: not a \
                          decision about calls; Copilot CLI still applies it"
                        .into(),
                },
            ));
        }
    }
    Ok(out)
}

/// What a flag says: allow or deny these patterns, or allow every tool.
enum Flag {
    Patterns(Said, Vec<String>),
    Everything(String),
}

/// How many strings of flags a file may hold.
const MAX_NESTED: usize = 256;

/// Whether `word` is one of Copilot CLI's tool permission flags.
fn permission_flag(word: &str) -> bool {
    [
        "--allow-tool",
        "--deny-tool",
        "--allow-all-tools",
        "--allow-all",
        "--yolo",
    ]
    .iter()
    .any(|f| word == *f || word.starts_with(&format!("{f}=")))
}

/// A script or alias that starts Copilot CLI with `--allow-tool`/`--deny-tool` flags.
fn flags(file: &str, text: &str, placing: &Placing) -> Result<Vec<Proposed>, ImportError> {
    let unreadable = || ImportError {
        file: file.to_owned(),
        line: None,
        why: "neither Copilot CLI's saved approvals (JSON) nor a command line: a quote is not \
              closed"
            .into(),
    };
    // Its words as a shell splits them (quotes, comments, lines continued). A word that holds
    // flags in a string (an alias's body, `sh -c "…"`, fish's `alias cop "…"`) is split again:
    // after `name=` for a shell name, else whole.
    let mut words: Vec<String> = Vec::new();
    let mut pending: Vec<String> = shlex::split(text).ok_or_else(unreadable)?;
    pending.reverse();
    let mut nested = 0;
    while let Some(word) = pending.pop() {
        // A flag is read as it is (`--deny-tool=shell(git push)`); any other word that holds
        // one, in a part of it or after `name=`, is a string of flags.
        let holds_flags = !permission_flag(&word)
            && word.split_whitespace().any(|t| {
                permission_flag(t) || t.split_once('=').is_some_and(|(_, r)| permission_flag(r))
            });
        if !holds_flags {
            words.push(word);
            continue;
        }
        let body = match word.split_once('=') {
            Some((name, body))
                if name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                body
            }
            _ => word.as_str(),
        };
        let inner = shlex::split(body).ok_or_else(unreadable)?;
        // More strings of flags than a file of aliases holds: refused whole, rather than a
        // deny among them left unread.
        nested += 1;
        if nested > MAX_NESTED {
            return Err(ImportError {
                file: file.to_owned(),
                line: None,
                why: format!("more than {MAX_NESTED} strings of flags to read"),
            });
        }
        if inner.len() <= 1 && inner.first() == Some(&word) {
            words.push(word);
            continue;
        }
        pending.extend(inner.into_iter().rev());
    }
    // Each flag's values: `--flag=value`, or `--flag` and the words after it up to the next
    // option (commander's variadic `[tools...]`).
    let mut given: Vec<Flag> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        i += 1;
        if !permission_flag(w) {
            continue;
        }
        let (name, inline) = match w.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (w, None),
        };
        let said = match name {
            "--allow-tool" => Said::Allow,
            "--deny-tool" => Said::Deny,
            _ => {
                given.push(Flag::Everything(name.to_owned()));
                continue;
            }
        };
        let values = match inline {
            Some(v) => vec![v],
            None => {
                let start = i;
                while i < words.len() && !words[i].starts_with('-') {
                    i += 1;
                }
                words[start..i].to_vec()
            }
        };
        given.push(Flag::Patterns(
            said,
            values.iter().flat_map(|v| split(v)).collect(),
        ));
    }
    let mut patterns: Vec<(Said, String)> = Vec::new();
    for f in &given {
        match f {
            Flag::Patterns(said, ps) if ps.is_empty() => patterns.push((*said, String::new())),
            Flag::Patterns(said, ps) => patterns.extend(ps.iter().map(|p| (*said, p.clone()))),
            Flag::Everything(flag) => patterns.push((Said::Other, flag.clone())),
        }
    }
    count_rules(file, patterns.len())?;
    let project = placing.project.as_deref();
    // A deny beats every allow in Copilot CLI: a deny Countersign cannot bring along that may
    // be about commands (a shell pattern, or a value the shell fills in) takes calls out of
    // every shell allow, which imported alone would reach further.
    // Words the shell fills in (`$DENY`, `` `cat f` ``) may hold denies Countersign cannot
    // read: every shell allow is then refused.
    let filled = words
        .iter()
        .find(|w| w.contains(['$', '`']))
        .map(|w| (Said::Deny, w.clone()));
    let unbrought = filled.as_ref().or_else(|| {
        patterns.iter().find(|(said, p)| {
            let kind = p.split('(').next().unwrap_or_default();
            *said == Said::Deny
                && (kind == "shell"
                    || !kind
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                && !matches!(outcome(*said, p, project), Outcome::Kept { .. })
        })
    });
    let mut from = 0;
    Ok(patterns
        .iter()
        .map(|(said, pattern)| {
            let (shown, said, outcome) = match said {
                Said::Other => (
                    pattern.clone(),
                    Said::Allow,
                    Outcome::Refused {
                        why: "it allows every tool, which reaches everything (Countersign's own \
                              files among them)"
                            .into(),
                    },
                ),
                _ if pattern.is_empty() => (
                    format!(
                        "--{}-tool",
                        if *said == Said::Allow {
                            "allow"
                        } else {
                            "deny"
                        }
                    ),
                    *said,
                    Outcome::Left {
                        why: "it names no tool".into(),
                    },
                ),
                _ => {
                    let o = match (outcome(*said, pattern, project), unbrought) {
                        (Outcome::Kept { .. }, Some((_, deny)))
                            if *said == Said::Allow && pattern.starts_with("shell") =>
                        {
                            Outcome::Refused {
                                why: if deny.contains(['$', '`']) {
                                    format!(
                                        "the script fills in words (`{deny}`) that may deny \
                                         calls it allows, which Countersign cannot read: \
                                         imported alone it would reach further"
                                    )
                                } else {
                                    format!(
                                        "the deny `{deny}` takes calls out of it, which \
                                         Countersign would not bring along: imported alone it \
                                         would reach further"
                                    )
                                },
                            }
                        }
                        (o, _) => o,
                    };
                    let flag = if *said == Said::Allow {
                        "allow"
                    } else {
                        "deny"
                    };
                    (format!("--{flag}-tool={pattern}"), *said, o)
                }
            };
            // Found in the text as written, each after the one before.
            let needle = match shown.split_once('=') {
                Some((_, p)) if !p.is_empty() => p.to_owned(),
                _ => shown.clone(),
            };
            let line = line_of(text, &needle, &mut from);
            proposed(file, line, shown, said, outcome)
        })
        .collect())
}

/// A flag's comma-separated patterns (a comma inside parentheses belongs to its pattern).
fn split(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in value.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(value[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(value[start..].trim().to_owned());
    out.retain(|p| !p.is_empty());
    out
}

/// What one `Kind(argument)` pattern becomes.
fn outcome(said: Said, pattern: &str, project: Option<&str>) -> Outcome {
    let (kind, arg) = match pattern.strip_suffix(')').and_then(|p| p.split_once('(')) {
        Some((kind, arg)) => (kind, Some(arg)),
        None => (pattern, None),
    };
    match (kind, arg) {
        ("shell", None) => shell_outcome(&[SHELL], said, &Command::Any, project, None),
        ("shell", Some(arg)) => {
            // `git:*` is the words and anything after them. `git push` alone is documented as
            // "any `rm` command" for a deny, while the saved approvals read the same text
            // literally: a deny takes the wider reading, an allow the narrower.
            let (head, prefix) = match arg.strip_suffix(":*") {
                Some(head) => (head, true),
                None => (arg, said != Said::Allow),
            };
            let command = if head.contains(['*', '?']) {
                Command::Glob(head.to_owned())
            } else if prefix {
                Command::Prefix(head.to_owned())
            } else {
                Command::Exact(head.to_owned())
            };
            shell_outcome(&[SHELL], said, &command, project, None)
        }
        ("write", _) if said == Said::Allow => Outcome::Refused {
            why: "it allows writing files by a pattern Countersign does not read".into(),
        },
        _ => match said {
            Said::Allow => Outcome::Left {
                why: format!(
                    "Countersign does not bring Copilot CLI's `{kind}` rules along; Copilot CLI \
                     still applies it"
                ),
            },
            _ => Outcome::Left {
                why: format!(
                    "Countersign does not bring Copilot CLI's `{kind}` rules along; Copilot CLI \
                     still declines it itself"
                ),
            },
        },
    }
}
