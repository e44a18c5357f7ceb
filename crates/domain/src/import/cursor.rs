//! Cursor CLI's `permissions` (`~/.cursor/cli-config.json`, a project's `.cursor/cli.json`):
//! `allow` and `deny` lists of `Shell(commandBase)` (the command's first word; `Shell(cmd:args)`
//! with a glob over its arguments), `Read(glob)`, `Write(glob)`, `WebFetch(domain)`,
//! `Mcp(server:tool)`; a deny beats an allow (cursor.com/docs/cli/reference/permissions).

use serde_json::Value;

use super::{
    Command, Format, ImportError, Outcome, Placing, Proposed, Said, Source, line_of, shell_outcome,
};

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
    if let Some(k) = permissions.keys().find(|k| *k != "allow" && *k != "deny") {
        return Err(fail(
            Some(line_of_key(k)),
            format!("`permissions.{k}` is not a key Cursor documents (allow, deny)"),
        ));
    }
    let mut read = Vec::new();
    for (line, said, entry) in super::string_lists(
        file,
        text,
        permissions,
        &[("allow", Said::Allow), ("deny", Said::Deny)],
    )? {
        let Some((kind, arg)) = entry.strip_suffix(')').and_then(|e| e.split_once('(')) else {
            return Err(fail(
                Some(line),
                format!("{entry:?} is not Kind(argument), as Cursor writes permissions"),
            ));
        };
        read.push((line, entry.clone(), said, kind.to_owned(), arg.to_owned()));
    }
    let project = placing.project.as_deref();
    // Denies Countersign cannot bring along, by kind: an allow of that kind beside one would
    // reach further (a deny beats an allow in Cursor).
    let left_denies: Vec<(String, String)> = read
        .iter()
        .filter(|(_, _, said, kind, arg)| {
            *said == Said::Deny
                && !matches!(outcome(kind, arg, *said, project), Outcome::Kept { .. })
        })
        .map(|(_, _, _, kind, arg)| (kind.clone(), arg.clone()))
        .collect();
    let mut proposed = Vec::new();
    for (line, entry, said, kind, arg) in &read {
        let mut outcome = outcome(kind, arg, *said, project);
        if *said == Said::Allow
            && matches!(outcome, Outcome::Kept { .. })
            && let Some((_, d)) = left_denies.iter().find(|(k, d)| {
                k == kind && (d.contains('*') || d.split(':').next() == arg.split(':').next())
            })
        {
            outcome = Outcome::Refused {
                why: format!(
                    "the deny `{kind}({d})` takes calls out of it, which Countersign would not \
                     bring along: imported alone it would reach further"
                ),
            };
        }
        proposed.push(Proposed {
            source: Source {
                format: Format::Cursor,
                file: file.to_owned(),
                line: *line,
                text: entry.clone(),
                digest: None,
            },
            said: *said,
            outcome,
            examples: Vec::new(),
        });
    }
    Ok(proposed)
}

fn outcome(kind: &str, arg: &str, said: Said, project: Option<&str>) -> Outcome {
    match kind {
        "Shell" => {
            let (base, args) = match arg.split_once(':') {
                Some((base, args)) => (base, Some(args)),
                None => (arg, None),
            };
            if base.contains(['*', '?', '[']) || base.is_empty() {
                return match said {
                    Said::Allow => Outcome::Refused {
                        why: "it names programs by a pattern, and a Countersign command rule \
                              starts with a program's name"
                            .into(),
                    },
                    _ => Outcome::Left {
                        why: "it names programs by a pattern; Cursor still declines them itself"
                            .into(),
                    },
                };
            }
            // `Shell(git)` is every command whose first word is git, whatever follows.
            let command = match args {
                None | Some("*") => Command::Prefix(base.to_owned()),
                Some(a) => match a.strip_suffix(" *") {
                    Some(head) if !head.contains(['*', '?', '[']) => {
                        Command::Prefix(format!("{base} {head}"))
                    }
                    _ if a.contains(['*', '?', '[']) => Command::Glob(format!("{base} {a}")),
                    _ => Command::Exact(format!("{base} {a}")),
                },
            };
            shell_outcome(&["cursor.shell"], said, &command, project, None)
        }
        "Read" | "Write" | "WebFetch" | "Mcp" => match said {
            Said::Allow => Outcome::Refused {
                why: format!(
                    "Countersign has no rule of Cursor's {kind} calls it could narrow as this \
                     does: approving them would reach further"
                ),
            },
            _ => Outcome::Left {
                why: format!(
                    "Countersign has no rule of Cursor's {kind} calls; Cursor still declines it \
                     itself"
                ),
            },
        },
        other => match said {
            Said::Allow => Outcome::Refused {
                why: format!("`{other}` is not a kind of permission Cursor documents"),
            },
            _ => Outcome::Left {
                why: format!("`{other}` is not a kind of permission Cursor documents"),
            },
        },
    }
}
