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
/// Which check script compiled a stored artifact: the first 16 hex digits of its SHA-256.
/// What another script compiled (before an upgrade) is not run; the preview compiles afresh.
pub fn compiler_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        use sha2::{Digest as _, Sha256};
        let digest = Sha256::digest(SCRIPT.as_bytes());
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// Time a first render may take.
pub const RENDER_BUDGET: Duration = Duration::from_secs(2);
/// Time loading the script may take.
const LOAD_BUDGET: Duration = Duration::from_secs(10);
/// Memory the engine may use.
const MEMORY_CAP: usize = 256 * 1024 * 1024;

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
    #[serde(default)]
    body: Option<String>,
}

struct Job {
    code: String,
    reply: oneshot::Sender<Outcome>,
}

/// The checker: a queue into its engine thread, started on the first check.
pub struct RenderCheck {
    jobs: std::sync::Mutex<Option<mpsc::Sender<Job>>>,
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
        if SCRIPT.is_empty() {
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
                match tx.send(job) {
                    Ok(()) => true,
                    Err(mpsc::SendError(job)) => {
                        // The engine thread ended: start another for this and later checks.
                        let fresh = spawn();
                        let ok = fresh.send(job).is_ok();
                        *slot = Some(fresh);
                        ok
                    }
                }
            }
            Err(_) => false,
        };
        if !sent {
            return Outcome::Skipped("the check's engine is unavailable".into());
        }
        answer
            .await
            .unwrap_or_else(|_| Outcome::Skipped("the check's engine stopped".into()))
    }
}

fn spawn() -> mpsc::Sender<Job> {
    let (tx, rx) = mpsc::channel::<Job>();
    let started = std::thread::Builder::new()
        .name("render-check".into())
        .spawn(move || {
            let mut engine: Option<Engine> = None;
            for job in rx {
                let outcome = run(&mut engine, &job.code);
                let _ = job.reply.send(outcome);
            }
        });
    if let Err(e) = started {
        tracing::warn!(error = %e, "render check thread did not start");
    }
    tx
}

/// A warm engine: the script loaded once, used for every check until something goes wrong.
struct Engine {
    runtime: Runtime,
    context: Context,
    deadline: std::sync::Arc<std::sync::Mutex<Instant>>,
}

impl Engine {
    fn start() -> Result<Self, String> {
        let runtime = Runtime::new().map_err(|e| e.to_string())?;
        runtime.set_memory_limit(MEMORY_CAP);
        runtime.set_max_stack_size(4 * 1024 * 1024);
        let deadline = std::sync::Arc::new(std::sync::Mutex::new(Instant::now() + LOAD_BUDGET));
        let watched = deadline.clone();
        runtime.set_interrupt_handler(Some(Box::new(move || {
            watched.lock().map(|d| Instant::now() > *d).unwrap_or(true)
        })));
        let context = Context::full(&runtime).map_err(|e| e.to_string())?;
        context
            .with(|ctx| ctx.eval::<(), _>(SCRIPT).map_err(|e| caught(&ctx, e)))
            .map_err(|e| format!("the check's script did not load: {e}"))?;
        Ok(Self {
            runtime,
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
    let answer: Result<String, String> = engine.context.with(|ctx| {
        let f: Function = ctx
            .globals()
            .get("countersignCheck")
            .map_err(|e| caught(&ctx, e))?;
        f.call((code,)).map_err(|e| caught(&ctx, e))
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
            Ok(a) if a.ok => Outcome::Passed { compiled: a.body },
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
                message: a.message,
                stack: a.stack,
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
