//! `countersign mcp`: the MCP front door over stdio, built on the official Rust SDK (rmcp).
//! It is a client of the running console, found and verified as the hook finds it
//! ([`Client::connect`]), on every call: a console started later is found, and when none runs
//! every tool answers a clear tool error while the server keeps running.
//!
//! Always served: `permission-prompt`, the shape of Claude Code's `--permission-prompt-tool`.
//! With `--artifacts`: `create-artifact`, `list-artifacts`, `show-artifact`, `render-artifact`.
//! How an artifact is shown is negotiated per client (decision record 0010): a client that
//! declares the MCP Apps extension gets `render-artifact` linked to the `ui://` view; every
//! other client gets the deep link. The model's calls are the same either way.
//!
//! Here: the server and its tools. The MCP Apps view is in `view`, adding the server to a
//! client's configuration in `install`.

use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt as _};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod install;
mod view;

pub use install::{install, uninstall};
use view::view_meta;
pub use view::{APP_MIME, UI_EXTENSION, VIEW_URI, view_html};

use super::CliError;
use super::client::{Client, ClientError};
use countersign_domain::approval::Status;
use countersign_domain::edit::Asked;
use countersign_domain::ids::ArtifactId;
use countersign_engine::data_dir::DataDir;
use countersign_integrations::claude_code::HookPayload;
use countersign_integrations::claude_code::answered_input;
use countersign_integrations::hook::{Answered, HookAgent as _, given_as_reason, undecided};

/// Who the cards from `permission-prompt` are shown as: the model can call this tool itself, so
/// its cards say they came through MCP, not from Claude Code's own hook.
const REQUESTER: &str = "Claude Code (via MCP permission-prompt)";

/// What every tool says when no console answers.
pub const NOT_RUNNING: &str = "Countersign is not running: open the app or run `countersign serve`";

/// The server: which data directory's console it asks, and whether artifact tools are served.
#[derive(Clone)]
pub struct Front {
    dir: DataDir,
    artifacts: bool,
    /// How long `permission-prompt` waits for a person.
    wait: u64,
    /// Permission requests in flight, withdrawn before the server exits.
    asking: Arc<std::sync::atomic::AtomicUsize>,
    /// The console found last, kept while it still serves the directory where it proved
    /// itself (checked before every call).
    found: Arc<tokio::sync::Mutex<Option<Arc<Client>>>>,
}

/// Runs the server on stdin/stdout until the client goes away.
pub async fn run(dir: &DataDir, artifacts: bool, wait: u64) -> Result<ExitCode, CliError> {
    let front = Front {
        dir: dir.clone(),
        artifacts,
        wait,
        asking: Arc::default(),
        found: Arc::default(),
    };
    let asking = front.asking.clone();
    let running = front
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| CliError::Usage(format!("the MCP client did not start a session: {e}")))?;
    // The client closing stdin ends the session; that is a normal end. Requests still waiting
    // for a person are withdrawn (their calls were cancelled) before the process goes.
    let _ = running.waiting().await;
    let until = std::time::Instant::now() + Duration::from_secs(3);
    while asking.load(std::sync::atomic::Ordering::SeqCst) > 0 && std::time::Instant::now() < until
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(ExitCode::SUCCESS)
}

/// A tool's answer: text for the model, and structured content beside it.
fn answer(text: impl Into<String>, structured: Option<Value>) -> CallToolResult {
    let mut v = json!({ "content": [{ "type": "text", "text": text.into() }], "isError": false });
    if let Some(s) = structured {
        v["structuredContent"] = s;
    }
    // Our own literal, in the shape the SDK defines: it always parses.
    serde_json::from_value(v).unwrap_or_default()
}

/// A tool error: the model reads it; nothing changed.
fn failure(text: impl Into<String>) -> CallToolResult {
    let v = json!({ "content": [{ "type": "text", "text": text.into() }], "isError": true });
    serde_json::from_value(v).unwrap_or_default()
}

fn shaped<T: DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// The tool's arguments, or a tool error naming what is wrong with them.
fn arguments<T: DeserializeOwned>(request: &CallToolRequestParams) -> Result<T, String> {
    let given = request
        .arguments
        .clone()
        .map(Value::Object)
        .unwrap_or_else(|| json!({}));
    serde_json::from_value(given).map_err(|e| format!("bad arguments for {}: {e}", request.name))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateArtifact {
    title: Option<String>,
    description: Option<String>,
    code: String,
    artifact_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArtifacts {
    query: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactRef {
    id: String,
}

/// What Claude Code's `--permission-prompt-tool` sends (it may add fields; they are ignored).
#[derive(Deserialize)]
struct PermissionPrompt {
    tool_name: String,
    input: Value,
    #[serde(default)]
    tool_use_id: Option<String>,
}

/// The artifact rules the preview and the first-render check enforce, for tool descriptions.
const JSX_RULES: &str = "Code is one JSX/TSX module whose default export (or `App`) is a React \
component. In scope without imports: React 19 and its hooks, Recharts, lucide-react icons, \
shadcn-style Card, Button, Badge, Table, Tabs, Input, Select and the Chart family \
(ChartContainer, ChartTooltip, ChartLegend: every Recharts chart goes inside a ChartContainer), \
`cn`, and Tailwind classes. There is no network: do not fetch, and do not hard-code live data \
as if it were current; take data the user gives you or show an empty state. `tools.*()` calls \
reject in the preview. The first render is checked when saved: a render that throws is refused \
with its message and component stack.";

impl Front {
    /// Whether the client declared the MCP Apps extension with its HTML views.
    fn apps(context: &RequestContext<RoleServer>) -> bool {
        let Some(capabilities) = context.client_capabilities() else {
            return false;
        };
        let Ok(capabilities) = serde_json::to_value(&capabilities) else {
            return false;
        };
        let ext = &capabilities["extensions"][UI_EXTENSION];
        if !ext.is_object() {
            return false;
        }
        match ext["mimeTypes"].as_array() {
            Some(types) => types.iter().any(|t| t == APP_MIME),
            None => true,
        }
    }

    fn tools(&self, apps: bool) -> Value {
        let mut tools = vec![json!({
            "name": "permission-prompt",
            "description": "Asks the person at Countersign whether a tool call may run, and waits \
                for their decision (for Claude Code's --permission-prompt-tool). Answers \
                {\"behavior\":\"allow\",\"updatedInput\":…} or {\"behavior\":\"deny\",\"message\":…}; \
                any failure denies.",
            "inputSchema": { "type": "object", "properties": {
                "tool_name": { "type": "string", "description": "The tool about to run." },
                "input": { "type": "object", "description": "Its input, exactly as it would run." },
                "tool_use_id": { "type": "string" } },
                "required": ["tool_name", "input"] },
            "annotations": { "readOnlyHint": false, "openWorldHint": false },
        })];
        if self.artifacts {
            // `ui/resourceUri` too, for hosts that read the older key.
            let render_meta = apps
                .then(|| json!({ "ui": { "resourceUri": VIEW_URI }, "ui/resourceUri": VIEW_URI }));
            let mut render = json!({
                "name": "render-artifact",
                "description": "Shows a saved artifact to the user. Use list-artifacts to find \
                    it first (\"show me my dashboard\"); use show-artifact when you need its \
                    source.",
                "inputSchema": { "type": "object", "properties": {
                    "id": { "type": "string", "description": "The artifact's id." } },
                    "required": ["id"], "additionalProperties": false },
                "annotations": { "readOnlyHint": true, "openWorldHint": false },
            });
            if let Some(meta) = render_meta {
                render["_meta"] = meta;
            }
            tools.extend([
                json!({
                    "name": "create-artifact",
                    "description": format!("Saves an interactive React artifact (a dashboard, a \
                        form) in the user's Countersign library, or with artifactId a new \
                        version of one in place (title and description may then be left out to \
                        keep them). Answers its id and link; call render-artifact to show it. \
                        {JSX_RULES}"),
                    "inputSchema": { "type": "object", "properties": {
                        "title": { "type": "string", "description": "Required when creating." },
                        "description": { "type": "string", "description": "What it shows; \
                            list-artifacts matches requests against it." },
                        "code": { "type": "string", "description": "The JSX source." },
                        "artifactId": { "type": "string", "description": "Update this artifact \
                            in place (same id, link and grants)." } },
                        "required": ["code"], "additionalProperties": false },
                    "annotations": { "readOnlyHint": false, "destructiveHint": false,
                        "openWorldHint": false },
                }),
                json!({
                    "name": "list-artifacts",
                    "description": "Finds saved artifacts by words in their title or \
                        description (\"active users dashboard\"), newest first; without a query, \
                        lists them all. Answers id, title and description; then call \
                        render-artifact to show one, or show-artifact to edit it.",
                    "inputSchema": { "type": "object", "properties": {
                        "query": { "type": "string" } }, "additionalProperties": false },
                    "annotations": { "readOnlyHint": true, "openWorldHint": false },
                }),
                json!({
                    "name": "show-artifact",
                    "description": "Answers a saved artifact's current source, title, \
                        description, version and link, so it can be edited and saved back \
                        with create-artifact and its artifactId.",
                    "inputSchema": { "type": "object", "properties": {
                        "id": { "type": "string" } }, "required": ["id"],
                        "additionalProperties": false },
                    "annotations": { "readOnlyHint": true, "openWorldHint": false },
                }),
                render,
            ]);
        }
        if apps {
            // A view runs artifact code: a host refuses a view's call to any of these.
            for t in &mut tools {
                t["_meta"]["ui"]["visibility"] = json!(["model"]);
            }
        }
        json!({ "tools": tools })
    }

    /// The running console, or the tool error that says why there is none.
    async fn console(&self) -> Result<Arc<Client>, String> {
        let mut found = self.found.lock().await;
        if let Some(c) = found.as_ref()
            && c.still_serves(&self.dir).await
        {
            return Ok(c.clone());
        }
        *found = None;
        let client = Arc::new(Client::connect(&self.dir).await.map_err(|e| match e {
            ClientError::DataDir(_)
            | ClientError::Stale { .. }
            | ClientError::Unreachable { .. } => {
                format!("{NOT_RUNNING} ({e})")
            }
            other => format!("Countersign could not be reached safely: {other}"),
        })?);
        *found = Some(client.clone());
        Ok(client)
    }

    /// One request to the console; when the token changed since the console was found (a
    /// 401), finds it again and asks once more.
    async fn request<F, Fut>(&self, op: F) -> Result<Value, String>
    where
        F: Fn(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<Value, ClientError>>,
    {
        match op(self.console().await?).await {
            Err(ClientError::Api { status, .. }) if status.as_u16() == 401 => {
                *self.found.lock().await = None;
                op(self.console().await?).await.map_err(refusal)
            }
            other => other.map_err(refusal),
        }
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let apps = Self::apps(&context);
        let outcome = match request.name.as_ref() {
            "permission-prompt" => Ok(self.permission(&request, context).await),
            "create-artifact" if self.artifacts => self.create(&request).await,
            "list-artifacts" if self.artifacts => self.list(&request).await,
            "show-artifact" if self.artifacts => self.show(&request).await,
            "render-artifact" if self.artifacts => self.render(&request, apps).await,
            other => Err(format!("no tool named {other:?}")),
        };
        outcome.unwrap_or_else(failure)
    }

    async fn create(&self, request: &CallToolRequestParams) -> Result<CallToolResult, String> {
        let args: CreateArtifact = arguments(request)?;
        let mut body = json!({ "code": args.code });
        if let Some(t) = args.title {
            body["title"] = t.into();
        }
        if let Some(d) = args.description {
            body["description"] = d.into();
        }
        if let Some(id) = args.artifact_id {
            body["artifact_id"] = checked_id(&id)?.into();
        }
        let size = body.to_string().len();
        if size > countersign_engine::api::MAX_BODY_BYTES {
            return Err(format!(
                "the artifact is {size} bytes as JSON; Countersign takes at most {} bytes",
                countersign_engine::api::MAX_BODY_BYTES
            ));
        }
        let saved = self
            .request(|c| {
                let body = body.clone();
                async move { c.post("/v1/artifacts", &body).await }
            })
            .await?;
        let mut text = format!(
            "Saved “{}” as version {} ({}). Call render-artifact with id {} to show it.",
            saved["title"].as_str().unwrap_or_default(),
            saved["version"],
            saved["link"].as_str().unwrap_or_default(),
            saved["id"].as_str().unwrap_or_default(),
        );
        if saved["render_check"]["status"] == "skipped" {
            text.push_str(&format!(
                " Its first render was not checked: {}.",
                saved["render_check"]["reason"]
                    .as_str()
                    .unwrap_or("unknown")
            ));
        }
        let structured = json!({
            "id": saved["id"], "title": saved["title"], "version": saved["version"],
            "link": saved["link"], "render_check": saved["render_check"],
        });
        Ok(answer(text, Some(structured)))
    }

    async fn list(&self, request: &CallToolRequestParams) -> Result<CallToolResult, String> {
        let args: ListArtifacts = arguments(request)?;
        let query = args
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .map(str::to_owned);
        let got = self
            .request(|c| {
                let query = query.clone();
                async move {
                    match query {
                        Some(q) => c.get_query("/v1/artifacts", &[("q", &q)]).await,
                        None => c.get("/v1/artifacts").await,
                    }
                }
            })
            .await?;
        let found: Vec<Value> = got["artifacts"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|a| json!({ "id": a["id"], "title": a["title"], "description": a["description"] }))
                    .collect()
            })
            .unwrap_or_default();
        let text = if found.is_empty() {
            "No artifacts match.".to_owned()
        } else {
            found
                .iter()
                .map(|a| {
                    format!(
                        "{}: {} — {}",
                        a["id"].as_str().unwrap_or_default(),
                        a["title"].as_str().unwrap_or_default(),
                        a["description"].as_str().unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        Ok(answer(text, Some(json!({ "artifacts": found }))))
    }

    async fn fetch(&self, request: &CallToolRequestParams) -> Result<Value, String> {
        let args: ArtifactRef = arguments(request)?;
        let id = checked_id(&args.id)?;
        let path = format!("/v1/artifacts/{id}");
        self.request(|c| {
            let path = path.clone();
            async move { c.get(&path).await }
        })
        .await
    }

    async fn show(&self, request: &CallToolRequestParams) -> Result<CallToolResult, String> {
        let a = self.fetch(request).await?;
        let structured = json!({
            "id": a["id"], "title": a["title"], "description": a["description"],
            "version": a["version"], "link": a["link"], "code": a["code"],
        });
        let text = serde_json::to_string_pretty(&structured).unwrap_or_default();
        Ok(answer(text, Some(structured)))
    }

    async fn render(
        &self,
        request: &CallToolRequestParams,
        apps: bool,
    ) -> Result<CallToolResult, String> {
        let a = self.fetch(request).await?;
        let title = a["title"].as_str().unwrap_or_default();
        let link = a["link"].as_str().unwrap_or_default();
        if apps {
            let structured = json!({
                "id": a["id"], "title": a["title"], "version": a["version"],
                "link": a["link"], "code": a["code"],
            });
            return Ok(answer(
                format!("Showing “{title}” (version {}).", a["version"]),
                Some(structured),
            ));
        }
        let structured =
            json!({ "id": a["id"], "title": a["title"], "version": a["version"], "link": link });
        Ok(answer(
            format!("“{title}” is ready to open in Countersign: {link}"),
            Some(structured),
        ))
    }

    /// Puts the call to the person and answers Claude Code's permission JSON. Anything but an
    /// approval of exactly this call denies.
    async fn permission(
        &self,
        request: &CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let deny = |message: String| {
            answer(
                json!({ "behavior": "deny", "message": message }).to_string(),
                None,
            )
        };
        let args: PermissionPrompt = match arguments(request) {
            Ok(a) => a,
            Err(_) => {
                return deny(
                    "Countersign: the permission request was not {tool_name, input}; denied".into(),
                );
            }
        };
        if !args.input.is_object() {
            return deny("Countersign: the tool's input is not a JSON object; denied".into());
        }
        // No working directory for the card: Claude Code's shell may have moved since it
        // started this server, so the server's own directory is not where the call runs.
        let mut payload = HookPayload {
            session_id: None,
            cwd: None,
            hook_event_name: "PermissionRequest".into(),
            tool_name: args.tool_name,
            tool_input: args.input.clone(),
            tool_use_id: args.tool_use_id,
            tool_response: None,
            error: None,
            is_interrupt: None,
            agent: Default::default(),
            drawn_as: None,
            card: None,
            ran: None,
            shell: None,
        };
        // Claude Code's Bash tool runs in the shell its hook would say.
        let shell = countersign_integrations::claude_code::ClaudeCode
            .shell(&payload, &|k| std::env::var(k).ok());
        payload.runs_in(&shell);
        // The files it changes are read as the hook reads them, for the same card.
        let mut submission = match super::on_disk::submission(&payload, self.wait).await {
            Ok(s) => s,
            Err(e) => return deny(format!("Countersign: {e}; denied")),
        };
        // The project, for "this project" grants: where the client started this server.
        submission.requester.cwd = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
        submission.requester.name = REQUESTER.into();
        // No session to find the call by later, and no result comes back through this tool.
        submission.call_id = None;
        self.asking
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let asked = self.ask(&submission, &context).await;
        self.asking
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        match asked {
            // A question's answers (or a plan's approval) travel in the input, as in the
            // hook's PermissionRequest answer; where they do not fit the card, the call is
            // declined with them as the reason.
            Ok(a) if a.status == Status::Approved => match &a.given {
                Some(given) => {
                    let answered = Answered {
                        digest: &a.digest,
                        asked: Asked {
                            tool: &submission.tool,
                            artifact_id: submission.artifact_id.as_ref(),
                            call: &submission.call,
                            raw_input: submission.raw_input.as_ref(),
                        },
                        given,
                    };
                    match answered_input(answered) {
                        Some((input, _)) => answer(
                            json!({ "behavior": "allow", "updatedInput": input }).to_string(),
                            None,
                        ),
                        None => deny(
                            given_as_reason(&submission.call, given)
                                .unwrap_or_else(|| "Countersign: unexpected answer; denied".into()),
                        ),
                    }
                }
                None => answer(
                    json!({ "behavior": "allow", "updatedInput": args.input }).to_string(),
                    None,
                ),
            },
            Ok(a) => deny(match (a.status, a.reason.clone()) {
                (Status::Declined, Some(r)) if !r.trim().is_empty() => {
                    format!("Declined in Countersign: {r}")
                }
                (Status::Declined, _) => "Declined in Countersign".into(),
                (Status::Expired | Status::Cancelled, _) => {
                    let why = undecided(a.status, self.wait);
                    let mut told = why.chars();
                    let first = told.next().map(|c| c.to_uppercase().to_string());
                    format!(
                        "{}{}; the call did not run",
                        first.unwrap_or_default(),
                        told.as_str()
                    )
                }
                (Status::Pending, _) => {
                    "Countersign is still waiting for a decision; denied".into()
                }
                (Status::Approved, _) => "Countersign: unexpected answer; denied".into(),
            }),
            Err(e) => deny(format!("{e}; denied")),
        }
    }

    /// Puts the submission to the person; when the token changed since the console was found
    /// (a 401 before anything was asked), finds it again and asks once more.
    async fn ask(
        &self,
        submission: &countersign_engine::console::Submission,
        context: &RequestContext<RoleServer>,
    ) -> Result<countersign_engine::api::Answer, String> {
        let wait = Duration::from_secs(self.wait);
        let mut found_again = false;
        loop {
            let console = self.console().await?;
            let stop = context.ct.clone().cancelled_owned();
            match console.ask(submission, wait, |_| {}, stop).await {
                Err(ClientError::Api { status, .. }) if status.as_u16() == 401 && !found_again => {
                    *self.found.lock().await = None;
                    found_again = true;
                }
                other => return other.map_err(|e| format!("Countersign: {e}")),
            }
        }
    }
}

/// An artifact id as given, checked before it goes into a path.
fn checked_id(id: &str) -> Result<String, String> {
    ArtifactId::parse(id).map(|i| i.to_string()).map_err(|_| {
        let shown: String = id.chars().take(64).collect();
        format!("{shown:?} is not an artifact id; list-artifacts gives them")
    })
}

/// What the console's refusal says, for the model.
fn refusal(e: ClientError) -> String {
    match e {
        ClientError::Api { message, code, .. } => {
            format!("Countersign refused it ({code}): {message}")
        }
        e @ (ClientError::DataDir(_)
        | ClientError::Stale { .. }
        | ClientError::Unreachable { .. }) => format!("{NOT_RUNNING} ({e})"),
        other => format!("Countersign answered something unexpected: {other}"),
    }
}

impl ServerHandler for Front {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = json!({ "tools": {} });
        if self.artifacts {
            capabilities["resources"] = json!({});
            capabilities["extensions"] = json!({ UI_EXTENSION: { "mimeTypes": [APP_MIME] } });
        }
        let info = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "serverInfo": { "name": "countersign", "version": env!("CARGO_PKG_VERSION") },
            "instructions": if self.artifacts {
                "Countersign keeps the user's artifacts and asks the user before tool calls run. \
                 To show an artifact the user asks for, call list-artifacts with their words, \
                 then render-artifact with its id; to change one, show-artifact, edit the code, \
                 and create-artifact with its artifactId."
            } else {
                "Countersign asks the user before tool calls run (permission-prompt)."
            },
        });
        serde_json::from_value(info).unwrap_or_default()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        shaped(self.tools(Self::apps(&context)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(
            self.call(request, context).await,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = if self.artifacts {
            json!([{ "uri": VIEW_URI, "name": "artifact", "title": "Countersign artifact",
                "description": "Renders an artifact render-artifact answers, with the same \
                    runtime as the Countersign window's preview, and no network.",
                "mimeType": APP_MIME, "_meta": view_meta() }])
        } else {
            json!([])
        };
        shaped(json!({ "resources": resources }))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !self.artifacts || request.uri != VIEW_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {:?}", request.uri),
                None,
            ));
        }
        let result: rmcp::model::ReadResourceResult = shaped(json!({ "contents": [{
            "uri": VIEW_URI, "mimeType": APP_MIME, "text": view_html(), "_meta": view_meta() }] }))?;
        Ok(ReadResourceResponse::Complete(result))
    }
}
