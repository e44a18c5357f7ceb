//! Claude Code hook payloads mapped to a submission (PreToolUse, PermissionRequest) and the
//! decision mapped back to the hook's answer; what ran (PostToolUse, PostToolUseFailure)
//! mapped to a result card.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

mod answers;
pub use self::answers::answered_input;
mod files;

pub use self::answers::ClaudeCode;
use self::files::{Edit, MultiEdit, Write};
pub use self::files::{FileState, Looked};
use countersign_domain::approval::Requester;
use countersign_domain::call::{
    CallView, ContentBlock, DiffResult, FileDiff, FileLocation, GenericCall, GenericResult,
    PlanCall, QuestionCall, ResultView, TerminalCall, TerminalResult, TextBlock, is_option_name,
};
use countersign_domain::submission::Submission;
use countersign_domain::tool::ToolAddress;

pub use crate::hook::{Agent, HookError, HookPayload};

/// The requester name Claude Code's calls are shown under.
pub const REQUESTER: &str = "Claude Code";

/// The hook events Countersign answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    PreToolUse,
    PermissionRequest,
    /// The call ran: its response is attached to the approval asked about.
    PostToolUse,
    /// The call ran and failed: its error is attached to the approval asked about.
    PostToolUseFailure,
}

impl HookEvent {
    /// Whether the event reports what a call did rather than asking whether it may run.
    pub fn is_after(self) -> bool {
        matches!(self, HookEvent::PostToolUse | HookEvent::PostToolUseFailure)
    }

    /// The event Claude Code names `name` (its `hook_event_name`, and its settings' keys).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "PreToolUse" => Some(HookEvent::PreToolUse),
            "PermissionRequest" => Some(HookEvent::PermissionRequest),
            "PostToolUse" => Some(HookEvent::PostToolUse),
            "PostToolUseFailure" => Some(HookEvent::PostToolUseFailure),
            _ => None,
        }
    }

    /// Claude Code's name for the event.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
        }
    }
}

/// The event a payload that does not parse (one cut at the read limit, say) names, read from
/// its top-level `"hook_event_name"` members without parsing the rest. Only a member of the
/// top-level object counts: inside a string every quote is escaped, so a tool's content cannot
/// spell one, and a key of a tool's own input is one level down. `None` unless there is one
/// and every such member names the same event Countersign answers: a value cut off, escaped,
/// of another kind or naming another event, or two that disagree, say nothing.
pub fn event_named_in(raw: &[u8]) -> Option<HookEvent> {
    let skip_space = |mut i: usize| {
        while raw.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    // The closing quote of the string whose text starts at `from`, if it has one.
    let string_end = |mut j: usize| {
        while j < raw.len() {
            match raw[j] {
                b'\\' => j += 2,
                b'"' => return Some(j),
                _ => j += 1,
            }
        }
        None
    };
    let start = skip_space(0);
    if raw.get(start) != Some(&b'{') {
        return None;
    }
    let (mut depth, mut i) = (1usize, start + 1);
    let mut named = None;
    while i < raw.len() {
        match raw[i] {
            b'"' => {
                // Cut off inside a string: what came before still counts.
                let Some(end) = string_end(i + 1) else {
                    break;
                };
                let is_key = depth == 1
                    && &raw[i + 1..end] == b"hook_event_name"
                    && raw.get(skip_space(end + 1)) == Some(&b':');
                i = end + 1;
                if !is_key {
                    continue;
                }
                let v = skip_space(skip_space(end + 1) + 1);
                let value = match raw.get(v) {
                    Some(b'"') => string_end(v + 1).map(|e| &raw[v + 1..e]),
                    _ => None,
                };
                let event = value
                    .and_then(|v| std::str::from_utf8(v).ok())
                    .and_then(HookEvent::named)?;
                if named.is_some_and(|n| n != event) {
                    return None;
                }
                named = Some(event);
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                i += 1;
                // The top-level object ends: whatever follows is not part of it.
                if depth == 0 {
                    break;
                }
            }
            _ => i += 1,
        }
    }
    named
}

impl Default for Agent {
    fn default() -> Self {
        Agent {
            requester: REQUESTER,
            prefix: "claude-code",
        }
    }
}

impl HookPayload {
    /// Parses stdin's JSON.
    pub fn parse(text: &str) -> Result<Self, HookError> {
        serde_json::from_str(text).map_err(|e| HookError::Malformed(e.to_string()))
    }

    /// Which event this is.
    pub fn event(&self) -> Result<HookEvent, HookError> {
        HookEvent::named(&self.hook_event_name)
            .ok_or_else(|| HookError::UnsupportedEvent(self.hook_event_name.clone()))
    }

    /// The files the call would change, whose cards show what they hold now and the link their
    /// path goes through: the caller looks at them (on the agent's machine) and answers
    /// [`HookPayload::submission`]'s `disk` with what it found.
    pub fn files_changed(&self) -> Vec<String> {
        let asked = RefCell::new(Vec::new());
        self.card_in(None, &|path| {
            asked.borrow_mut().push(path.to_owned());
            FileState::Missing.into()
        });
        asked.into_inner()
    }

    /// Says on the card that a shell call runs in `shell`: shown as its flag, and a command
    /// rule reads the command only when it is a POSIX shell's. The hook's own word, never the
    /// tool input's.
    pub fn runs_in(&mut self, shell: &str) {
        self.shell = Some(shell.to_owned());
    }

    /// The card: the integration's own, or drawn from the tool (as Claude Code's tool it is
    /// drawn as, when it is another agent's).
    fn card_in(&self, cwd: Option<&str>, disk: &dyn Fn(&str) -> Looked) -> CallView {
        let mut card = match (&self.card, &self.drawn_as) {
            (Some(card), _) => card.clone(),
            (None, Some((tool, input))) => call_view(tool, input, cwd, disk),
            (None, None) => call_view(&self.tool_name, &self.tool_input, cwd, disk),
        };
        if let (CallView::Terminal(t), Some(shell)) = (&mut card, &self.shell) {
            t.options
                .get_or_insert_with(Default::default)
                .insert("shell".into(), Value::String(shell.clone()));
        }
        card
    }

    /// The request to put to the person: address `claude-code.<tool>`, the card for the tool,
    /// the tool input as the raw input. `disk` answers what each of
    /// [`HookPayload::files_changed`] holds now.
    pub fn submission(
        &self,
        expires_in_s: u64,
        disk: &dyn Fn(&str) -> Looked,
    ) -> Result<Submission, HookError> {
        self.submission_in(self.cwd.as_deref(), expires_in_s, disk)
    }

    /// [`HookPayload::submission`] as asked from `cwd`: a result comes in from the session's
    /// directory after the call ran, which the call itself may have changed (`cd`).
    pub fn submission_in(
        &self,
        cwd: Option<&str>,
        expires_in_s: u64,
        disk: &dyn Fn(&str) -> Looked,
    ) -> Result<Submission, HookError> {
        // One segment: a dot would let one tool's name spell another address.
        let bad = || HookError::BadToolName(self.tool_name.clone());
        if self.tool_name.contains('.') {
            return Err(bad());
        }
        let tool = ToolAddress::parse(&format!("{}.{}", self.agent.prefix, self.tool_name))
            .map_err(|_| bad())?;
        Ok(Submission {
            tool,
            artifact_id: None,
            requester: Requester {
                name: self.agent.requester.to_owned(),
                session: self.session_id.clone(),
                cwd: cwd.filter(|c| !c.is_empty()).map(str::to_owned),
            },
            call: self.card_in(cwd, disk),
            raw_input: Some(self.tool_input.clone()),
            expires_in_s: Some(expires_in_s),
            call_id: self.tool_use_id.clone(),
            parent: None,
        })
    }
}

#[derive(Deserialize)]
struct Bash {
    command: String,
    #[serde(default)]
    description: Option<String>,
}

fn typed<T: serde::de::DeserializeOwned>(input: &Value) -> Option<T> {
    serde_json::from_value(input.clone()).ok()
}

fn text(input: &Value, key: &str) -> Option<String> {
    input.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn generic(title: String, kind: &str, locations: Vec<FileLocation>) -> CallView {
    CallView::Generic(GenericCall {
        title,
        kind: Some(kind.to_owned()),
        raw_input: None,
        content: None,
        locations: (!locations.is_empty()).then_some(locations),
    })
}

fn at(path: Option<String>, line: Option<u32>) -> Vec<FileLocation> {
    path.map(|path| FileLocation { path, line })
        .into_iter()
        .collect()
}

/// The card for one tool call. A known tool whose input does not have its usual shape is
/// shown as a generic card with the raw input, never dropped. `disk` answers what a file the
/// call changes holds now (read by the caller), for the file tools' cards.
pub fn call_view(
    tool_name: &str,
    input: &Value,
    cwd: Option<&str>,
    disk: &dyn Fn(&str) -> Looked,
) -> CallView {
    match tool_name {
        "Bash" => {
            if let Some(Bash {
                command,
                description,
            }) = typed(input)
            {
                // It does not run in the foreground terminal: it starts and is left running.
                if input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
                    let mut content = vec![ContentBlock::Text(TextBlock { text: command })];
                    if let Some(dir) = cwd {
                        content.push(ContentBlock::Text(TextBlock {
                            text: format!("in {dir}"),
                        }));
                    }
                    return CallView::Generic(GenericCall {
                        title: "Start a command in the background".into(),
                        kind: Some("execute".into()),
                        raw_input: None,
                        content: Some(content),
                        locations: None,
                    });
                }
                // Every other setting the call carries (`timeout`, `run_in_background`,
                // `dangerouslyDisableSandbox`, …) is shown on the card as a flag.
                let options: BTreeMap<String, Value> = input
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, v)| {
                        !matches!(k.as_str(), "command" | "description")
                            && is_option_name(k)
                            && (v.is_boolean() || v.is_number() || v.is_string())
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                return CallView::Terminal(TerminalCall {
                    title: "Run a shell command".into(),
                    command,
                    args: None,
                    description,
                    cwd: cwd.map(str::to_owned),
                    env: None,
                    options: (!options.is_empty()).then_some(options),
                });
            }
        }
        "Edit" => {
            if let Some(e) = typed::<Edit>(input) {
                let state = disk(e.path());
                return files::edit(e, state);
            }
        }
        "MultiEdit" => {
            if let Some(m) = typed::<MultiEdit>(input)
                && !m.is_empty()
            {
                let state = disk(m.path());
                return files::multi_edit(m, state);
            }
        }
        "Write" => {
            if let Some(w) = typed::<Write>(input) {
                let state = disk(w.path());
                return files::write(w, state);
            }
        }
        "Read" => {
            if let Some(path) = text(input, "file_path") {
                let line = input
                    .get("offset")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok());
                return generic(format!("Read {path}"), "read", at(Some(path), line));
            }
        }
        "Glob" | "Grep" => {
            if let Some(pattern) = text(input, "pattern") {
                let title = format!("{tool_name} {pattern}");
                return generic(title, "search", at(text(input, "path"), None));
            }
        }
        "LS" => {
            if let Some(path) = text(input, "path") {
                return generic(format!("List {path}"), "read", at(Some(path), None));
            }
        }
        "WebFetch" => {
            if let Some(url) = text(input, "url") {
                return generic(format!("Fetch {url}"), "fetch", Vec::new());
            }
        }
        "WebSearch" => {
            if let Some(query) = text(input, "query") {
                return generic(format!("Search the web: {query}"), "fetch", Vec::new());
            }
        }
        "AskUserQuestion" => {
            if let Some(questions) = typed::<Vec<crate::asked::AskedQuestion>>(&input["questions"])
            {
                return CallView::Question(QuestionCall {
                    title: "Claude Code asks".into(),
                    // `AskUserQuestion`'s questions (hooks reference: `question`, `header`,
                    // `options` with `label` and `description`, `multiSelect`). Claude Code
                    // offers "Other" itself ("There should be no 'Other' option, that will be
                    // provided automatically").
                    questions: questions.into_iter().map(|q| q.drawn(true)).collect(),
                });
            }
        }
        "ExitPlanMode" => {
            if let Some(plan) = text(input, "plan") {
                return CallView::Plan(PlanCall {
                    title: "Claude Code's plan".into(),
                    plan,
                    path: text(input, "planFilePath"),
                    // A PreToolUse answer cannot set the mode: the session goes on in the one
                    // it was in before planning.
                    modes: Vec::new(),
                    feedback: true,
                });
            }
        }
        _ => {}
    }
    tool_card(tool_name)
}

/// The card of a tool Countersign draws no card of its own for: its name (an MCP tool's
/// server and tool, as `mcp__<server>__<tool>` names them), its input shown beside it raw.
pub fn tool_card(tool_name: &str) -> CallView {
    let title = match tool_name
        .strip_prefix("mcp__")
        .and_then(|t| t.split_once("__"))
    {
        Some((server, tool)) => format!("MCP {server}: {tool}"),
        None => format!("Use {tool_name}"),
    };
    generic(title, "other", Vec::new())
}

/// Bash's answer (`tool_response` of PostToolUse).
#[derive(Deserialize)]
struct BashResponse {
    /// Required: an answer of another shape is recorded as it is, never as "no output".
    stdout: String,
    #[serde(default)]
    stderr: String,
    #[serde(default)]
    interrupted: bool,
    /// What a non-zero exit that is not a failure means ("No matches found").
    #[serde(default, rename = "returnCodeInterpretation")]
    interpretation: Option<String>,
}

/// One hunk of an applied change, as Edit, MultiEdit and Write report it.
#[derive(Deserialize)]
struct Hunk {
    lines: Vec<String>,
}

/// What Edit, MultiEdit and Write answer; each carries some of these.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileResponse {
    file_path: String,
    #[serde(default)]
    structured_patch: Option<Vec<Hunk>>,
    #[serde(default)]
    old_string: Option<String>,
    #[serde(default)]
    new_string: Option<String>,
    /// Write: `create` or `update`.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    original_file: Option<String>,
    #[serde(default)]
    user_modified: bool,
}

fn some_text(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// A hunk's lines as the text before and after the change (context on both sides).
fn hunk_texts(h: &Hunk) -> (String, String) {
    let mut old = Vec::new();
    let mut new = Vec::new();
    for line in &h.lines {
        let (mark, text) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
        match mark {
            "-" => old.push(text),
            "+" => new.push(text),
            // " " is context; "\\ No newline at end of file" is a note on the line before.
            "\\" => {}
            _ => {
                old.push(text);
                new.push(text);
            }
        }
    }
    (old.join("\n"), new.join("\n"))
}

/// The change as applied, from what the file tool answered: the whole file when the answer
/// carries it (a written file), else each changed region with its context, else the edit.
fn applied(tool: &str, r: FileResponse) -> Option<ResultView> {
    let path = r.file_path;
    let diffs: Vec<FileDiff> = if tool == "Write" && r.content.is_some() {
        let old = if r.kind.as_deref() == Some("create") {
            None
        } else {
            r.original_file
        };
        vec![FileDiff {
            path: path.clone(),
            old_text: old,
            new_text: r.content.unwrap_or_default(),
            replace_all: None,
            on_disk: None,
            through_link: None,
        }]
    } else if let Some(hunks) = r.structured_patch.filter(|h| !h.is_empty()) {
        hunks
            .iter()
            .map(|h| {
                let (old, new) = hunk_texts(h);
                FileDiff {
                    path: path.clone(),
                    old_text: Some(old).filter(|o| !o.is_empty()),
                    new_text: new,
                    replace_all: None,
                    on_disk: None,
                    through_link: None,
                }
            })
            .collect()
    } else if let Some(new) = r.new_string {
        vec![FileDiff {
            path: path.clone(),
            old_text: r.old_string.filter(|o| !o.is_empty()),
            new_text: new,
            replace_all: None,
            on_disk: None,
            through_link: None,
        }]
    } else {
        return None;
    };
    let note = if r.user_modified {
        " (the person changed the edit before it was applied)"
    } else {
        ""
    };
    Some(ResultView::Diff(DiffResult {
        title: Some(format!("Applied to {path}{note}")),
        diffs,
    }))
}

/// Splits Claude Code's "Exit code N" first line off a failed command's error.
fn exit_code_of(error: &str) -> (Option<i32>, &str) {
    let (first, rest) = error.split_once('\n').unwrap_or((error, ""));
    match first
        .strip_prefix("Exit code ")
        .and_then(|n| n.trim().parse().ok())
    {
        Some(code) => (Some(code), rest),
        None => (None, error),
    }
}

impl HookPayload {
    /// What ran, as a result card: a terminal result for Bash, the change as applied for the
    /// file tools, the tool's answer (or error) otherwise. `None` for an event that reports no
    /// run.
    pub fn result(&self) -> Option<ResultView> {
        if let Some(ran) = &self.ran {
            return Some(ran.clone());
        }
        let background = self
            .tool_input
            .get("run_in_background")
            .and_then(Value::as_bool)
            == Some(true);
        match self.event().ok()? {
            HookEvent::PostToolUse => {
                let response = self.tool_response.clone().unwrap_or(Value::Null);
                if self.tool_name == "Bash"
                    && !background
                    && let Some(b) = typed::<BashResponse>(&response)
                {
                    return Some(ResultView::Terminal(TerminalResult {
                        title: b.interpretation,
                        output: some_text(b.stdout),
                        stderr: some_text(b.stderr),
                        // Claude Code reports a failed command through PostToolUseFailure.
                        exit_code: None,
                        signal: None,
                        interrupted: b.interrupted.then_some(true),
                    }));
                }
                if matches!(self.tool_name.as_str(), "Edit" | "MultiEdit" | "Write")
                    && let Some(r) = typed::<FileResponse>(&response)
                    && let Some(view) = applied(&self.tool_name, r)
                {
                    return Some(view);
                }
                Some(ResultView::Generic(match response {
                    Value::Null => GenericResult::default(),
                    Value::String(text) if text.is_empty() => GenericResult::default(),
                    Value::String(text) => GenericResult {
                        content: Some(vec![ContentBlock::Text(TextBlock { text })]),
                        ..GenericResult::default()
                    },
                    value => GenericResult {
                        value: Some(value),
                        ..GenericResult::default()
                    },
                }))
            }
            HookEvent::PostToolUseFailure => {
                let error = match self.error.clone().unwrap_or(Value::Null) {
                    Value::String(s) => s,
                    Value::Null => "the call failed".to_owned(),
                    other => other.to_string(),
                };
                let interrupted = self.is_interrupt == Some(true);
                if self.tool_name == "Bash" && !background {
                    let (code, rest) = exit_code_of(&error);
                    return Some(ResultView::Terminal(TerminalResult {
                        title: Some("Failed".into()),
                        output: some_text(rest.to_owned()),
                        stderr: None,
                        exit_code: code,
                        signal: None,
                        interrupted: interrupted.then_some(true),
                    }));
                }
                Some(ResultView::Generic(GenericResult {
                    title: Some(if interrupted { "Interrupted" } else { "Failed" }.into()),
                    error: Some(error),
                    ..GenericResult::default()
                }))
            }
            HookEvent::PreToolUse | HookEvent::PermissionRequest => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload(tool: &str, input: Value) -> HookPayload {
        HookPayload::parse(
            &json!({
                "session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/app",
                "permission_mode": "default", "hook_event_name": "PreToolUse",
                "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_1",
            })
            .to_string(),
        )
        .unwrap()
    }

    /// The files the cards are about: `/app/src/lib.rs` and `/app/a.rs` are there, nothing else.
    fn disk(path: &str) -> Looked {
        match path {
            "/app/src/lib.rs" => FileState::Text("fn f() {\n    let a = 1;\n}\n".into()),
            "/app/a.rs" => FileState::Text("let a = 1;\nfn foo() {}\nlet c = foo;\n".into()),
            _ => FileState::Missing,
        }
        .into()
    }

    fn card(tool: &str, input: Value) -> Value {
        let s = payload(tool, input).submission(600, &disk).unwrap();
        json!({ "tool": s.tool, "requester": s.requester, "call": s.call })
    }

    #[test]
    fn each_tool_gets_its_card() {
        insta::assert_json_snapshot!(
            "bash",
            card(
                "Bash",
                json!({"command": "cargo test", "description": "Run tests", "timeout": 120000})
            )
        );
        insta::assert_json_snapshot!(
            "edit",
            card(
                "Edit",
                json!({"file_path": "/app/src/lib.rs", "old_string": "let a = 1;", "new_string": "let a = 2;"})
            )
        );
        insta::assert_json_snapshot!(
            "edit_replace_all",
            card(
                "Edit",
                json!({"file_path": "/app/a.rs", "old_string": "foo", "new_string": "bar", "replace_all": true})
            )
        );
        insta::assert_json_snapshot!(
            "multi_edit",
            card(
                "MultiEdit",
                json!({"file_path": "/app/a.rs", "edits": [
            {"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d", "replace_all": true}]})
            )
        );
        insta::assert_json_snapshot!(
            "write",
            card(
                "Write",
                json!({"file_path": "/app/NEW.md", "content": "# New\n"})
            )
        );
        insta::assert_json_snapshot!(
            "read",
            card(
                "Read",
                json!({"file_path": "/app/a.rs", "offset": 40, "limit": 20})
            )
        );
        insta::assert_json_snapshot!(
            "glob",
            card("Glob", json!({"pattern": "**/*.rs", "path": "/app"}))
        );
        insta::assert_json_snapshot!(
            "grep",
            card(
                "Grep",
                json!({"pattern": "fn main", "path": "/app/src", "output_mode": "content"})
            )
        );
        insta::assert_json_snapshot!("ls", card("LS", json!({"path": "/app"})));
        insta::assert_json_snapshot!(
            "web_fetch",
            card(
                "WebFetch",
                json!({"url": "https://example.com/doc", "prompt": "summarise"})
            )
        );
        insta::assert_json_snapshot!(
            "web_search",
            card("WebSearch", json!({"query": "tauri deep links"}))
        );
        insta::assert_json_snapshot!(
            "mcp",
            card(
                "mcp__github__create_issue",
                json!({"repo": "a/b", "title": "Bug"})
            )
        );
        insta::assert_json_snapshot!(
            "unknown_tool",
            card("NotebookEdit", json!({"notebook_path": "/a.ipynb"}))
        );
        insta::assert_json_snapshot!(
            "edit_malformed",
            card("Edit", json!({"file_path": "/a.rs"}))
        );
    }

    #[test]
    fn the_raw_input_is_the_tool_input_exactly() {
        let input = json!({"command": "ls", "zeta": 1, "alpha": [1, 2]});
        let s = payload("Bash", input.clone())
            .submission(30, &disk)
            .unwrap();
        assert_eq!(s.raw_input, Some(input));
        assert_eq!(s.expires_in_s, Some(30));
        assert_eq!(s.tool.as_str(), "claude-code.Bash");
    }

    /// Claude Code's usual calls are wholly on their cards, so "don't ask again" stays on.
    #[test]
    fn every_usual_call_is_wholly_on_its_card() {
        use countersign_domain::coverage::coverage;
        for (tool, input) in [
            (
                "Bash",
                json!({"command": "cargo test", "description": "Run tests", "timeout": 120000,
                            "run_in_background": false, "dangerouslyDisableSandbox": true}),
            ),
            (
                "Edit",
                json!({"file_path": "/a.rs", "old_string": "a", "new_string": "b"}),
            ),
            (
                "Edit",
                json!({"file_path": "/a.rs", "old_string": "a", "new_string": "b",
                            "replace_all": true}),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/a.rs", "edits": [
                {"old_string": "a", "new_string": "b", "replace_all": true},
                {"old_string": "c", "new_string": "d"}]}),
            ),
            ("Write", json!({"file_path": "/n.md", "content": "hi\n"})),
            // Over a file that is there: the whole file, old to new.
            (
                "Write",
                json!({"file_path": "/app/a.rs", "content": "hi\n"}),
            ),
            (
                "Edit",
                json!({"file_path": "/app/src/lib.rs", "old_string": "let a = 1;",
                            "new_string": "let a = 2;"}),
            ),
            (
                "Edit",
                json!({"file_path": "/app/a.rs", "old_string": "", "new_string": "x"}),
            ),
            (
                "MultiEdit",
                json!({"file_path": "/app/a.rs", "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "foo", "new_string": "bar", "replace_all": true}]}),
            ),
            (
                "Read",
                json!({"file_path": "/a.rs", "offset": 10, "limit": 5}),
            ),
            (
                "mcp__github__create_issue",
                json!({"title": "x", "body": "y"}),
            ),
        ] {
            let s = payload(tool, input).submission(30, &disk).unwrap();
            let c = coverage(&s.call, s.raw_input.as_ref());
            assert!(c.is_complete(), "{tool}: {c:?}");
        }
    }

    #[test]
    fn an_empty_fragment_makes_a_new_file_and_a_background_command_is_no_terminal() {
        let s = payload(
            "Edit",
            json!({"file_path": "/app/new.rs", "old_string": "", "new_string": "fn main() {}\n"}),
        )
        .submission(30, &disk)
        .unwrap();
        let CallView::Diff(d) = &s.call else {
            panic!("a diff card")
        };
        assert_eq!(d.diffs[0].old_text, None);
        assert!(
            countersign_domain::coverage::coverage(&s.call, s.raw_input.as_ref()).is_complete()
        );

        let bg = json!({"command": "npm run dev", "run_in_background": true});
        let s = payload("Bash", bg.clone()).submission(30, &disk).unwrap();
        let CallView::Generic(g) = &s.call else {
            panic!(
                "a background command is not shown as a foreground terminal: {:?}",
                s.call
            )
        };
        assert_eq!(g.title, "Start a command in the background");
        assert_eq!(g.kind.as_deref(), Some("execute"));
        let texts: Vec<&str> = g
            .content
            .iter()
            .flatten()
            .filter_map(|b| b.text())
            .collect();
        assert_eq!(
            texts,
            ["npm run dev", "in /home/dev/app"],
            "the command, verbatim"
        );
        assert!(
            countersign_domain::coverage::coverage(&s.call, s.raw_input.as_ref()).is_complete()
        );
        assert_eq!(s.raw_input, Some(bg));
    }

    #[test]
    fn bash_flags_are_on_the_card() {
        let input = json!({"command": "make", "timeout": 5000,
                           "dangerouslyDisableSandbox": true});
        let s = payload("Bash", input).submission(30, &disk).unwrap();
        let CallView::Terminal(t) = s.call else {
            panic!("not a terminal card")
        };
        let options = t.options.unwrap();
        assert_eq!(options["timeout"], json!(5000));
        assert_eq!(options["dangerouslyDisableSandbox"], json!(true));
    }

    #[test]
    fn bad_payloads_are_refused() {
        assert!(matches!(
            HookPayload::parse("not json"),
            Err(HookError::Malformed(_))
        ));
        assert!(matches!(
            HookPayload::parse("{}"),
            Err(HookError::Malformed(_))
        ));
        let mut p = payload("Bash", json!({"command": "ls"}));
        p.hook_event_name = "SessionStart".into();
        assert!(matches!(p.event(), Err(HookError::UnsupportedEvent(_))));
        for bad in ["Bad.Name", "", "sp ace", "t\u{202e}"] {
            let p = payload(bad, json!({}));
            assert!(
                matches!(p.submission(1, &disk), Err(HookError::BadToolName(_))),
                "{bad:?}"
            );
        }
    }

    /// What decides between answering and staying silent when a payload does not parse.
    #[test]
    fn an_unreadable_payload_names_its_event_only_at_its_top_level() {
        let named = |text: &str| event_named_in(text.as_bytes());
        let write = |event: &str, content: &str| {
            json!({"session_id": "s", "hook_event_name": event, "tool_name": "Write",
                   "tool_input": {"file_path": "/a", "content": content}})
            .to_string()
        };
        // Cut at the read limit, inside the content: the event before it still counts.
        let cut = |text: String| text[..text.len() - 10].to_owned();
        let forged = "x\",\"hook_event_name\": \"PostToolUse\"} {\"hook_event_name\":\"PostToolUse";
        assert_eq!(
            named(&cut(write("PreToolUse", forged))),
            Some(HookEvent::PreToolUse),
            "the content's quotes are escaped"
        );
        assert_eq!(
            named(&cut(write("PostToolUse", &"y".repeat(100)))),
            Some(HookEvent::PostToolUse)
        );
        assert_eq!(
            named(&write("PermissionRequest", "")),
            Some(HookEvent::PermissionRequest)
        );
        // A key of a tool's own input is not the payload's.
        let mcp = json!({"hook_event_name": "PreToolUse", "tool_name": "mcp__x__y",
            "tool_input": {"hook_event_name": "PostToolUse", "n": [{"hook_event_name": "PostToolUse"}]}})
        .to_string();
        assert_eq!(named(&cut(mcp)), Some(HookEvent::PreToolUse));
        // Nothing to go by: none, cut inside the value, escaped, not a string, unknown, two that
        // disagree, or outside the top-level object.
        for text in [
            String::new(),
            "{".to_owned(),
            r#"{"tool_name": "Write", "tool_input": {"content": "\"hook_event_name\": \"PostToolUse\""#
                .to_owned(),
            r#"{"session_id": "s", "hook_event_name": "PostTo"#.to_owned(),
            r#"{"hook_event_name": "Post\u0054oolUse", "x": 1"#.to_owned(),
            r#"{"hook_event_name": 5, "x": 1"#.to_owned(),
            r#"{"hook_event_name": "SessionStart", "x": 1"#.to_owned(),
            r#"{"hook_event_name": "PreToolUse", "hook_event_name": "PostToolUse", "x": "#
                .to_owned(),
            r#"{"hook_event_name": "PostToolUse", "hook_event_name": "PreToolUse", "x": "#
                .to_owned(),
            r#"{"a": 1} {"hook_event_name": "PostToolUse""#.to_owned(),
            r#"["hook_event_name", {"hook_event_name": "PostToolUse"}"#.to_owned(),
            r#"{"tool_input": {"k": "v"}, "x\"hook_event_name": "PostToolUse", "y": "#.to_owned(),
        ] {
            assert_eq!(named(&text), None, "{text}");
        }
        // The same event twice agrees.
        assert_eq!(
            named(r#"{"hook_event_name": "PostToolUse", "hook_event_name":"PostToolUse", "#),
            Some(HookEvent::PostToolUse)
        );
        for e in [
            HookEvent::PreToolUse,
            HookEvent::PermissionRequest,
            HookEvent::PostToolUse,
            HookEvent::PostToolUseFailure,
        ] {
            assert_eq!(HookEvent::named(e.name()), Some(e));
        }
    }
}
