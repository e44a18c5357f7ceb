//! The digest an approval is bound to: SHA-256 over the canonical JSON of what will run.

use serde::Serialize;
use sha2::{Digest as _, Sha256};

use super::call::CallView;
use super::ids::ArtifactId;
use super::tool::ToolAddress;

/// Fields of a call view that are advisory and stay out of the digest.
const ADVISORY_FIELDS: [&str; 2] = ["title", "description"];

#[derive(Serialize)]
struct Bound<'a> {
    tool: &'a ToolAddress,
    artifact_id: Option<&'a ArtifactId>,
    raw_input: Option<&'a serde_json::Value>,
    call: serde_json::Value,
}

/// `sha256:<hex>` over RFC 8785 (JCS) canonical JSON of
/// `{tool, artifact_id, raw_input, call}` with the call's advisory fields removed.
///
/// A title is advisory only where something else on the card binds what runs: a generic card
/// with no raw input (an ACP agent's execute call whose command is only its title, as Gemini
/// CLI sends it) keeps its title in the digest, so a rule made for one such call never covers
/// another that differs only in its title.
pub fn digest(
    tool: &ToolAddress,
    artifact_id: Option<&ArtifactId>,
    raw_input: Option<&serde_json::Value>,
    call: &CallView,
) -> Result<String, serde_json::Error> {
    digest_of_json(tool, artifact_id, raw_input, serde_json::to_value(call)?)
}

/// [`digest`] for a call already turned into JSON (`serde_json::to_value` of a `CallView`).
pub fn digest_of_json(
    tool: &ToolAddress,
    artifact_id: Option<&ArtifactId>,
    raw_input: Option<&serde_json::Value>,
    mut call: serde_json::Value,
) -> Result<String, serde_json::Error> {
    let title_says_what_runs = call.get("card").and_then(|c| c.as_str()) == Some("generic")
        && raw_input.is_none()
        && call.get("raw_input").is_none_or(serde_json::Value::is_null);
    if let Some(fields) = call.as_object_mut() {
        for f in ADVISORY_FIELDS {
            if !(f == "title" && title_says_what_runs) {
                fields.remove(f);
            }
        }
    }
    let canonical = serde_json_canonicalizer::to_vec(&Bound {
        tool,
        artifact_id,
        raw_input,
        call,
    })?;
    Ok(format!(
        "sha256:{}",
        hex::encode(Sha256::digest(&canonical))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn terminal(title: &str, command: &str, description: Option<&str>) -> CallView {
        CallView::Terminal(crate::call::TerminalCall {
            title: title.into(),
            command: command.into(),
            args: None,
            description: description.map(Into::into),
            cwd: None,
            env: None,
            options: None,
        })
    }

    #[test]
    fn advisory_fields_do_not_change_the_digest() {
        let t = ToolAddress::parse("claude-code.Bash").unwrap();
        let a = digest(&t, None, None, &terminal("Run tests", "cargo test", None)).unwrap();
        let b = digest(
            &t,
            None,
            None,
            &terminal("Other", "cargo test", Some("why")),
        )
        .unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with("sha256:") && a.len() == 7 + 64);
    }

    #[test]
    fn what_runs_changes_the_digest() {
        let t = ToolAddress::parse("claude-code.Bash").unwrap();
        let u = ToolAddress::parse("claude-code.Bash2").unwrap();
        let art = ArtifactId::generate();
        let base = digest(&t, None, None, &terminal("x", "ls", None)).unwrap();
        assert_ne!(
            base,
            digest(&t, None, None, &terminal("x", "ls ", None)).unwrap()
        );
        assert_ne!(
            base,
            digest(&u, None, None, &terminal("x", "ls", None)).unwrap()
        );
        assert_ne!(
            base,
            digest(&t, Some(&art), None, &terminal("x", "ls", None)).unwrap()
        );
        let raw = json!({"command": "ls"});
        assert_ne!(
            base,
            digest(&t, None, Some(&raw), &terminal("x", "ls", None)).unwrap()
        );
    }

    #[test]
    fn a_title_is_bound_where_nothing_else_says_what_runs() {
        let t = ToolAddress::parse("acp.execute").unwrap();
        let generic = |title: &str| {
            CallView::Generic(crate::call::GenericCall {
                title: title.into(),
                kind: Some("execute".into()),
                raw_input: None,
                content: Some(vec![crate::call::ContentBlock::Text(
                    crate::call::TextBlock {
                        text: "[current working directory /home/me/api]".into(),
                    },
                )]),
                locations: None,
            })
        };
        // Gemini CLI's command is only its title: another command is another call.
        assert_ne!(
            digest(&t, None, None, &generic("npm test")).unwrap(),
            digest(&t, None, None, &generic("rm -rf ~")).unwrap()
        );
        // With its raw input, the title is the agent's wording again.
        let raw = json!({"command": "npm test"});
        assert_eq!(
            digest(&t, None, Some(&raw), &generic("npm test")).unwrap(),
            digest(&t, None, Some(&raw), &generic("Run the tests")).unwrap()
        );
    }

    #[test]
    fn key_order_of_raw_input_does_not_matter() {
        let t = ToolAddress::parse("x.y").unwrap();
        let call = terminal("x", "ls", None);
        let a: serde_json::Value = serde_json::from_str(r#"{"b":1,"a":{"d":2,"c":3}}"#).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{"a":{"c":3,"d":2},"b":1}"#).unwrap();
        assert_eq!(
            digest(&t, None, Some(&a), &call).unwrap(),
            digest(&t, None, Some(&b), &call).unwrap()
        );
    }

    #[test]
    fn digest_is_stable_across_releases() {
        // Agents may store digests; the canonical form must never drift.
        let t = ToolAddress::parse("tools.github.user.personalGithub.issues.create").unwrap();
        let d = digest(
            &t,
            None,
            Some(&json!({"b": [1, 2], "a": "é"})),
            &terminal("t", "echo hi", None),
        )
        .unwrap();
        let canonical = r#"{"artifact_id":null,"call":{"card":"terminal","command":"echo hi"},"raw_input":{"a":"é","b":[1,2]},"tool":"github.user.personalGithub.issues.create"}"#;
        assert_eq!(
            d,
            format!(
                "sha256:{}",
                hex::encode(Sha256::digest(canonical.as_bytes()))
            )
        );
    }
}
