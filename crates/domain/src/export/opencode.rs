//! OpenCode's rules: in its first format the `permission` object (`"bash": {"git push *":
//! "deny"}`), in its second the `permissions` array (`{"action": "shell", "resource": …,
//! "effect": …}`). The last matching rule wins, so the declines go after the person's own
//! rules; `*` matches any characters and a pattern ending in ` *` also matches the bare command
//! (opencode.ai/docs/permissions, its v1 and v2 pages;
//! `packages/opencode/src/permission/evaluate.ts` `findLast`). OpenCode asks through ACP, so
//! its commands are the rules about `acp.execute`, and the person's rules across agents.

use serde_json::{Map, Value, json};

use super::{Decline, Entry, unplain};

const AGENT: &str = "OpenCode";
const SCHEMA: &str = "https://opencode.ai/config.json";

/// The pattern a decline denies.
fn pattern(shape: &Decline) -> Result<String, String> {
    match shape {
        Decline::Command { words, .. } => match unplain(words, AGENT) {
            Some(why) => Err(why),
            None => Ok(format!("{} *", words.join(" "))),
        },
        Decline::Tool { shell: true, .. } => Ok("*".to_owned()),
        Decline::Tool { .. } => Err(format!(
            "{AGENT}'s tools reach Countersign as ACP's kinds of call, not by their names"
        )),
        Decline::Folder { .. } => Err(format!(
            "{AGENT}'s edit patterns are read from the project, which a folder's full path is not"
        )),
    }
}

pub(super) fn entry(shape: Decline, second: bool) -> Result<Entry, String> {
    let p = pattern(&shape)?;
    let text = if second {
        json!({ "action": "shell", "resource": p, "effect": "deny" }).to_string()
    } else {
        format!("\"bash\": {{ {}: \"deny\" }}", Value::String(p))
    };
    Ok(super::reasonless(AGENT, shape, vec![text]))
}

pub(super) fn file(entries: &[&Entry], second: bool) -> String {
    let patterns: Vec<String> = entries
        .iter()
        .filter_map(|e| pattern(&e.shape).ok())
        .collect();
    let root = if second {
        let rules: Vec<Value> = patterns
            .iter()
            .map(|p| json!({ "action": "shell", "resource": p, "effect": "deny" }))
            .collect();
        json!({ "$schema": SCHEMA, "permissions": rules })
    } else {
        let bash: Map<String, Value> = patterns
            .into_iter()
            .map(|p| (p, Value::String("deny".to_owned())))
            .collect();
        json!({ "$schema": SCHEMA, "permission": { "bash": bash } })
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&root).unwrap_or_default()
    )
}
