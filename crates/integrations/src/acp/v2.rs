//! ACP v2's `session/request_permission` (`schema.v2.json`, `RequestPermissionRequest`; v2 is
//! a Draft): `{sessionId, title, description?, subject?, options, _meta?}`, where v1 had
//! `{sessionId, toolCall, options}`. The subject is `{"type": "tool_call", "toolCall"}` (v1's
//! tool call), `{"type": "command", "command", "cwd", "toolCallId"?, "terminalId"?}`, or one of
//! a kind the schema leaves open. Read here in v1's form, so one reader makes the card; what
//! v1's form cannot hold is handed back to be shown as sent (and never granted).

use serde_json::{Map, Value, json};

/// A v2 request in v1's form.
pub struct AsV1 {
    /// The params as v1 has them.
    pub params: Value,
    /// The prompt's description.
    pub description: Option<String>,
    /// What v1's form has no place for, as sent: shown on the card, and never granted.
    pub extra: Vec<Value>,
}

/// `params` in v1's form when they are v2's (a `title`, no `toolCall`); `None` otherwise.
pub fn as_v1(params: &Value) -> Option<AsV1> {
    let p = params.as_object()?;
    if p.contains_key("toolCall") || !p.contains_key("title") {
        return None;
    }
    let mut extra = Vec::new();
    let mut v1 = Map::new();
    let mut title = Value::Null;
    let mut description = None;
    let mut subject = Value::Null;
    for (key, value) in p {
        match key.as_str() {
            "title" => title = value.clone(),
            "description" => match value {
                Value::String(d) => description = Some(d.clone()),
                Value::Null => {}
                other => extra.push(json!({ "description": other })),
            },
            "subject" => subject = value.clone(),
            // Kept as sent: v1's reader checks them (and flags what it does not know).
            _ => {
                v1.insert(key.clone(), value.clone());
            }
        }
    }
    let tool_call = match subject.get("type").and_then(Value::as_str) {
        _ if subject.is_null() => json!({ "toolCallId": "permission" }),
        Some("tool_call") if subject.get("toolCall").is_some_and(Value::is_object) => {
            let call = subject["toolCall"].clone();
            // The prompt's title is the card's; the call's own, where it differs, is shown.
            if let Some(own) = call.get("title").filter(|t| **t != title) {
                extra.push(json!({ "subject.toolCall.title": own }));
            }
            for (key, value) in subject.as_object().into_iter().flatten() {
                if !matches!(key.as_str(), "type" | "toolCall") {
                    extra.push(json!({ format!("subject.{key}"): value }));
                }
            }
            call
        }
        Some("command") if subject.get("command").is_some_and(Value::is_string) => {
            let mut raw = Map::new();
            raw.insert("command".into(), subject["command"].clone());
            if let Some(cwd) = subject.get("cwd").filter(|c| !c.is_null()) {
                raw.insert("cwd".into(), cwd.clone());
            }
            for (key, value) in subject.as_object().into_iter().flatten() {
                if !matches!(key.as_str(), "type" | "command" | "cwd" | "toolCallId") {
                    extra.push(json!({ format!("subject.{key}"): value }));
                }
            }
            let id = subject
                .get("toolCallId")
                .cloned()
                .unwrap_or_else(|| json!("command"));
            json!({ "toolCallId": id, "kind": "execute", "rawInput": raw })
        }
        // A subject of a kind not read here: the prompt, with the subject shown as sent.
        _ => {
            extra.push(json!({ "subject": subject }));
            json!({ "toolCallId": "permission" })
        }
    };
    let mut tool_call = tool_call;
    if let Some(call) = tool_call.as_object_mut() {
        call.insert("title".into(), title);
    }
    v1.insert("toolCall".into(), tool_call);
    Some(AsV1 {
        params: Value::Object(v1),
        description,
        extra,
    })
}

/// The call id a v2 request names, in whichever subject it has one.
pub fn tool_call_id(params: &Value) -> Option<&str> {
    params
        .pointer("/subject/toolCall/toolCallId")
        .or_else(|| params.pointer("/subject/toolCallId"))
        .and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Value {
        json!([{ "optionId": "a", "name": "Allow", "kind": "allow_once" }])
    }

    #[test]
    fn a_command_subject_is_an_execute_call() {
        let v2 = json!({ "sessionId": "s", "title": "Run the tests?", "description": "why",
            "subject": { "type": "command", "command": "cargo test", "cwd": "/p",
                "toolCallId": "c1", "terminalId": "t9" },
            "options": options() });
        let got = as_v1(&v2).unwrap();
        assert_eq!(
            got.params["toolCall"],
            json!({ "toolCallId": "c1", "kind": "execute", "title": "Run the tests?",
                "rawInput": { "command": "cargo test", "cwd": "/p" } })
        );
        assert_eq!(got.description.as_deref(), Some("why"));
        assert_eq!(got.extra, vec![json!({ "subject.terminalId": "t9" })]);
        assert_eq!(got.params["options"], options());
    }

    #[test]
    fn a_tool_call_subject_keeps_the_call_and_shows_its_own_title() {
        let v2 = json!({ "sessionId": "s", "title": "Approve file edit?",
            "subject": { "type": "tool_call",
                "toolCall": { "toolCallId": "c", "title": "Edit main.rs", "kind": "edit" } },
            "options": options(), "_meta": { "x": 1 } });
        let got = as_v1(&v2).unwrap();
        assert_eq!(got.params["toolCall"]["title"], "Approve file edit?");
        assert_eq!(got.params["toolCall"]["kind"], "edit");
        assert_eq!(got.params["_meta"], json!({ "x": 1 }));
        assert_eq!(
            got.extra,
            vec![json!({ "subject.toolCall.title": "Edit main.rs" })]
        );
    }

    #[test]
    fn an_unknown_subject_is_shown_and_v1_is_not_read_here() {
        let v2 = json!({ "sessionId": "s", "title": "Open the door?",
            "subject": { "type": "_door", "which": "front" }, "options": options() });
        let got = as_v1(&v2).unwrap();
        assert_eq!(got.extra.len(), 1);
        assert_eq!(got.params["toolCall"]["title"], "Open the door?");
        let v1 = json!({ "sessionId": "s", "toolCall": { "toolCallId": "c" }, "options": [] });
        assert!(as_v1(&v1).is_none());
    }
}
