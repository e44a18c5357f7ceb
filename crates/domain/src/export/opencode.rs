//! OpenCode's rules: in its first format the `permission` object (`"bash": {"git push *":
//! "deny"}`), in its second the `permissions` array (`{"action": "shell", "resource": …,
//! "effect": …}`). The last matching rule wins, so approvals are written before declines; `*`
//! matches any characters and a pattern ending in ` *` also matches the bare command; a pattern
//! without one matches only the whole command (opencode.ai/docs/permissions, its v1 and v2
//! pages; `packages/opencode/src/permission/evaluate.ts` `findLast`). OpenCode asks through ACP,
//! so its commands are the rules about `acp.execute` and every agent's shell.

use serde_json::{Map, Value, json};

use super::{Entry, Shape, unplain, whole_command};

const AGENT: &str = "OpenCode";
const SCHEMA: &str = "https://opencode.ai/config.json";

/// The pattern, and whether it declines.
fn pattern(shape: &Shape) -> Result<(String, bool), String> {
    match shape {
        Shape::DeclineCommand { words, .. } => match unplain(words, AGENT) {
            Some(why) => Err(why),
            None => Ok((format!("{} *", words.join(" ")), true)),
        },
        Shape::DeclineTool { shell: true, .. } => Ok(("*".to_owned(), true)),
        Shape::DeclineTool { .. } => Err(format!(
            "{AGENT}'s tools reach Countersign as ACP's kinds of call, not by their names"
        )),
        Shape::DeclineFolder { .. } => Err(format!(
            "{AGENT}'s edit patterns are read from the project, which a folder's full path is not"
        )),
        Shape::ApproveCommand { command } => whole_command(command, AGENT).map(|c| (c, false)),
    }
}

pub(super) fn entry(shape: Shape, second: bool) -> Result<Entry, String> {
    let (p, deny) = pattern(&shape)?;
    let effect = if deny { "deny" } else { "allow" };
    let text = if second {
        json!({ "action": "shell", "resource": p, "effect": effect }).to_string()
    } else {
        format!("\"bash\": {{ {}: \"{effect}\" }}", Value::String(p))
    };
    let reason = matches!(
        &shape,
        Shape::DeclineCommand {
            reason: Some(_),
            ..
        } | Shape::DeclineTool {
            reason: Some(_),
            ..
        }
    );
    Ok(Entry {
        note: reason.then(|| format!("{AGENT}'s rules carry no reason")),
        entries: vec![text],
        shape,
    })
}

pub(super) fn file(entries: &[&Entry], second: bool) -> String {
    // Approvals first: the last match wins.
    let mut ordered: Vec<(String, &'static str)> = Vec::new();
    for deny in [false, true] {
        for e in entries {
            if let Ok((p, d)) = pattern(&e.shape)
                && d == deny
            {
                ordered.push((p, if d { "deny" } else { "allow" }));
            }
        }
    }
    let root = if second {
        let rules: Vec<Value> = ordered
            .iter()
            .map(|(p, e)| json!({ "action": "shell", "resource": p, "effect": e }))
            .collect();
        json!({ "$schema": SCHEMA, "permissions": rules })
    } else {
        let mut bash = Map::new();
        for (p, e) in ordered {
            // A pattern written twice keeps its last place, as the object's order is the rules'.
            bash.shift_remove(&p);
            bash.insert(p, Value::String(e.to_owned()));
        }
        json!({ "$schema": SCHEMA, "permission": { "bash": bash } })
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&root).unwrap_or_default()
    )
}
