//! The first-render check: an artifact is compiled and rendered once, server-side, before it is
//! saved, with the same compiler, scope and components as the window's preview (the script is
//! built from `ui/`). It runs in QuickJS (rquickjs) on a thread of its own, with a memory cap
//! and a time budget, so the console stays responsive whatever the artifact does.
//!
//! A synchronous throw in the first render, or a render that does not finish in time, fails
//! the check; anything wrong with the engine itself lets the save through ("skipped").

use std::sync::mpsc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Function, Runtime};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use ts_rs::TS;

/// The check's script, embedded at build time (empty when `ui/` was not built).
const SCRIPT: &str = include_str!(concat!(env!("OUT_DIR"), "/check.js"));
/// The preview's compiler, which the check compiles with (empty when `ui/` was not built).
const COMPILER: &str = include_str!(concat!(env!("OUT_DIR"), "/compiler.js"));
/// Which scripts compiled a stored artifact: the first 16 hex digits of the SHA-256 of the
/// compiler and the check (whose scope names what the compiled body takes). What other scripts
/// compiled (before an upgrade) is not run; the preview compiles afresh.
pub fn compiler_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        use sha2::{Digest as _, Sha256};
        let mut hash = Sha256::new();
        for script in [COMPILER, SCRIPT] {
            hash.update((script.len() as u64).to_be_bytes());
            hash.update(script.as_bytes());
        }
        hash.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    })
}

/// Time a first render may take.
pub const RENDER_BUDGET: Duration = Duration::from_secs(2);
/// Time loading the script may take.
const LOAD_BUDGET: Duration = Duration::from_secs(10);
/// Memory the engine may use.
const MEMORY_CAP: usize = 256 * 1024 * 1024;
/// The JavaScript stack the engine may use, well inside its thread's own stack, so deep
/// recursion is a JavaScript error and never overflows the thread.
const JS_STACK: usize = 4 * 1024 * 1024;
/// The engine thread's stack.
const THREAD_STACK: usize = 32 * 1024 * 1024;
/// Checks that may wait for the engine; a save past them is not checked ("skipped").
const QUEUE: usize = 32;
/// The longest error message and component stack a refusal carries.
const MESSAGE_MAX: usize = 4 * 1024;
const STACK_MAX: usize = 16 * 1024;

/// What the check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The first render finished without a throw; the source as compiled for it (a data
    /// source has none).
    Passed { compiled: Option<String> },
    /// The first render threw (or did not finish): refuse the save.
    Failed { message: String, stack: String },
    /// The check could not run; the save goes through.
    Skipped(String),
}

/// How a save's check went, as the answer to the agent says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "status", rename_all = "snake_case")]
#[ts(export)]
pub enum CheckReport {
    Passed,
    Skipped {
        reason: String,
    },
    /// A person's own action (a restore) or a save that changed no code: nothing to check.
    NotRun,
}

#[derive(Deserialize)]
struct Answer {
    ok: bool,
    #[serde(default)]
    message: String,
    #[serde(default)]
    stack: String,
}

/// What the compiler made of a source.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Compiled {
    Json,
    Module { body: String },
    Error { message: String },
}

struct Job {
    code: String,
    reply: oneshot::Sender<Outcome>,
}

/// The checker: a queue into its engine thread, started on the first check.
pub struct RenderCheck {
    jobs: std::sync::Mutex<Option<mpsc::SyncSender<Job>>>,
}

impl Default for RenderCheck {
    fn default() -> Self {
        Self::new()
    }
}

impl RenderCheck {
    /// A checker whose engine starts on the first check.
    pub fn new() -> Self {
        Self {
            jobs: std::sync::Mutex::new(None),
        }
    }

    /// Renders `code` once and says how it went.
    pub async fn check(&self, code: &str) -> Outcome {
        if SCRIPT.is_empty() || COMPILER.is_empty() {
            return Outcome::Skipped("the check's script was not built into this program".into());
        }
        let (reply, answer) = oneshot::channel();
        let job = Job {
            code: code.to_owned(),
            reply,
        };
        let sent = match self.jobs.lock() {
            Ok(mut slot) => {
                let tx = slot.get_or_insert_with(spawn);
                match tx.try_send(job) {
                    Ok(()) => Ok(()),
                    Err(mpsc::TrySendError::Full(_)) => Err("too many checks are waiting"),
                    Err(mpsc::TrySendError::Disconnected(job)) => {
                        // The engine thread ended: start another for this and later checks.
                        let fresh = spawn();
                        let sent = fresh
                            .try_send(job)
                            .map_err(|_| "the check's engine is unavailable");
                        *slot = Some(fresh);
                        sent
                    }
                }
            }
            Err(_) => Err("the check's engine is unavailable"),
        };
        if let Err(reason) = sent {
            return Outcome::Skipped(reason.into());
        }
        answer
            .await
            .unwrap_or_else(|_| Outcome::Skipped("the check's engine stopped".into()))
    }
}

fn spawn() -> mpsc::SyncSender<Job> {
    let (tx, rx) = mpsc::sync_channel::<Job>(QUEUE);
    let started = std::thread::Builder::new()
        .name("render-check".into())
        .stack_size(THREAD_STACK)
        .spawn(move || {
            let mut engine: Option<Engine> = None;
            for job in rx {
                // Nobody waits for this answer any more (the client went away).
                if job.reply.is_closed() {
                    continue;
                }
                let outcome = run(&mut engine, &job.code);
                let _ = job.reply.send(outcome);
            }
        });
    if let Err(e) = started {
        tracing::warn!(error = %e, "render check thread did not start");
    }
    tx
}

/// A warm engine, used for every check until something goes wrong: the compiler in one realm,
/// where no artifact code ever runs (so what it compiles cannot be changed by an artifact
/// checked before), and the check, where artifact code runs, in another.
struct Engine {
    runtime: Runtime,
    compiler: Context,
    context: Context,
    deadline: std::sync::Arc<std::sync::Mutex<Instant>>,
}

impl Engine {
    fn start() -> Result<Self, String> {
        let runtime = Runtime::new().map_err(|e| e.to_string())?;
        runtime.set_memory_limit(MEMORY_CAP);
        runtime.set_max_stack_size(JS_STACK);
        let deadline = std::sync::Arc::new(std::sync::Mutex::new(Instant::now() + LOAD_BUDGET));
        let watched = deadline.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            watched.lock().map(|d| Instant::now() > *d).unwrap_or(true)
        })));
        let context = Context::full(&runtime).map_err(|e| e.to_string())?;
        let names: String = context
            .with(|ctx| {
                ctx.eval::<(), _>(SCRIPT).map_err(|e| caught(&ctx, e))?;
                ctx.eval::<String, _>("countersignNames()")
                    .map_err(|e| caught(&ctx, e))
            })
            .map_err(|e| format!("the check's script did not load: {e}"))?;
        let names = serde_json::to_string(&names).map_err(|e| e.to_string())?;
        let compiler = Context::full(&runtime).map_err(|e| e.to_string())?;
        compiler
            .with(|ctx| {
                ctx.eval::<(), _>("globalThis.window = globalThis;")
                    .and_then(|()| ctx.eval::<(), _>(COMPILER))
                    .and_then(|()| {
                        ctx.eval::<(), _>(format!(
                            "(() => {{ const compile = globalThis.countersignCompile; \
                             const names = JSON.parse({names}); \
                             globalThis.countersignCompileJson = (source) => {{ \
                             const c = compile(source, names); \
                             return JSON.stringify(c.kind === 'json' ? {{ kind: 'json' }} : c); }}; }})()"
                        ))
                    })
                    .map_err(|e| caught(&ctx, e))
            })
            .map_err(|e| format!("the check's compiler did not load: {e}"))?;
        Ok(Self {
            runtime,
            compiler,
            context,
            deadline,
        })
    }
}

fn caught(ctx: &rquickjs::Ctx<'_>, e: rquickjs::Error) -> String {
    if e.is_exception() {
        let v = ctx.catch();
        if let Some(ex) = v.as_exception() {
            return ex.message().unwrap_or_else(|| "an exception".into());
        }
        return format!("{v:?}");
    }
    e.to_string()
}

fn run(slot: &mut Option<Engine>, code: &str) -> Outcome {
    if slot.is_none() {
        match Engine::start() {
            Ok(e) => *slot = Some(e),
            Err(reason) => return Outcome::Skipped(reason),
        }
    }
    let Some(engine) = slot.as_ref() else {
        return Outcome::Skipped("the check's engine did not start".into());
    };
    let started = Instant::now();
    if let Ok(mut d) = engine.deadline.lock() {
        *d = started + RENDER_BUDGET;
    }
    let compiled: Result<String, String> = engine.compiler.with(|ctx| {
        let f: Function = ctx
            .globals()
            .get("countersignCompileJson")
            .map_err(|e| caught(&ctx, e))?;
        f.call((code,)).map_err(|e| caught(&ctx, e))
    });
    let compiled = match compiled.map(|json| (serde_json::from_str::<Compiled>(&json), json)) {
        Ok((Ok(Compiled::Json), _)) => return Outcome::Passed { compiled: None },
        Ok((Ok(Compiled::Error { message }), _)) => {
            return Outcome::Failed {
                message: bounded(format!("it does not compile: {message}"), MESSAGE_MAX),
                stack: String::new(),
            };
        }
        Ok((Ok(Compiled::Module { body }), json)) => (body, json),
        Ok((Err(e), _)) => {
            return Outcome::Skipped(format!("the compiler answered something else: {e}"));
        }
        Err(_) if started.elapsed() >= RENDER_BUDGET => {
            *slot = None;
            return Outcome::Failed {
                message: format!("it did not compile within {} s", RENDER_BUDGET.as_secs()),
                stack: String::new(),
            };
        }
        Err(e) => {
            *slot = None;
            return Outcome::Skipped(format!("the check's compiler failed: {e}"));
        }
    };
    let (body, compiled_json) = compiled;
    let answer: Result<String, String> = engine.context.with(|ctx| {
        let f: Function = ctx
            .globals()
            .get("countersignCheck")
            .map_err(|e| caught(&ctx, e))?;
        f.call((compiled_json,)).map_err(|e| caught(&ctx, e))
    });
    // Whatever the render left behind (a stray promise job) does not outlive the check.
    while let Ok(true) = engine.runtime.execute_pending_job() {
        if started.elapsed() > RENDER_BUDGET {
            break;
        }
    }
    let timed_out = started.elapsed() >= RENDER_BUDGET;
    match answer {
        Ok(json) => match serde_json::from_str::<Answer>(&json) {
            // The body the compiler made, never one the check's realm could have changed.
            Ok(a) if a.ok => Outcome::Passed {
                compiled: Some(body),
            },
            // The engine's cap, not the artifact's fault as far as anyone can tell: fail open.
            Ok(a) if a.message.contains("out of memory") => {
                *slot = None;
                Outcome::Skipped(format!(
                    "the check ran out of its {} MiB of memory",
                    MEMORY_CAP / (1024 * 1024)
                ))
            }
            // QuickJS throws null when it cannot even allocate the out-of-memory error.
            Ok(a) if a.message == "null" && a.stack.is_empty() => {
                *slot = None;
                Outcome::Skipped(
                    "the render threw null, which is what the check's engine throws when it \
                     runs out of memory"
                        .into(),
                )
            }
            Ok(a) => Outcome::Failed {
                message: bounded(a.message, MESSAGE_MAX),
                stack: bounded(a.stack, STACK_MAX),
            },
            Err(e) => Outcome::Skipped(format!("the check answered something else: {e}")),
        },
        Err(_) if timed_out => {
            // Interrupted mid-render: start a clean engine for the next check.
            *slot = None;
            Outcome::Failed {
                message: format!(
                    "the first render did not finish within {} s (an endless loop?)",
                    RENDER_BUDGET.as_secs()
                ),
                stack: String::new(),
            }
        }
        Err(e) => {
            *slot = None;
            Outcome::Skipped(format!("the check's engine failed: {e}"))
        }
    }
}

/// `text` cut to at most `max` bytes (on a character boundary), saying so.
fn bounded(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str(" …(cut)");
    }
    text
}
