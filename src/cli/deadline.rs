//! A hook's one deadline. The agent gives an asking hook its wait plus
//! [`HOOK_TIMEOUT_PAST_WAIT_S`] (what `hook install` writes), and several agents run the call
//! when that runs out (Gemini CLI resolves a killed hook as one that said nothing; Copilot
//! CLI's timeouts fail open). So whatever the hook is held by — a payload that never ends, a
//! keyring waiting on an unlock prompt, a console that accepted and stalled — a thread of its
//! own prints the fail-safe answer known so far within the wait plus
//! [`HOOK_ANSWER_PAST_WAIT_S`], and the process ends there. An answer printed first ends the
//! process at once: nothing left running (a stalled keyring read) holds its exit.

use std::io::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use countersign_domain::limits::{HOOK_ANSWER_PAST_WAIT_S, HOOK_RECORD_TIMEOUT_S};
use countersign_integrations::hook::Reply;

#[cfg(doc)]
use countersign_domain::limits::HOOK_TIMEOUT_PAST_WAIT_S;

/// The answer a hook gives, once: by its own decision, or by the deadline's fall-back.
#[derive(Clone)]
pub struct Deadline {
    slot: Arc<Mutex<Slot>>,
}

struct Slot {
    /// What the deadline prints: the fail-safe answer as far as the hook knows the call.
    fallback: Reply,
    why: &'static str,
}

impl Deadline {
    /// Starts the clock for a hook that asks (or may ask) and waits `wait` seconds for a
    /// person: `fallback` is printed within `wait` + [`HOOK_ANSWER_PAST_WAIT_S`] unless an
    /// answer was printed first.
    pub fn asking(wait: u64, fallback: Reply) -> Self {
        Self::start(
            Duration::from_secs(wait.saturating_add(HOOK_ANSWER_PAST_WAIT_S)),
            fallback,
        )
    }

    /// Starts the clock for a hook that only records what ran: it gives `answer` (mostly
    /// nothing) within the agent's shorter timeout.
    pub fn recording(answer: Reply) -> Self {
        Self::start(
            Duration::from_secs(HOOK_RECORD_TIMEOUT_S.saturating_sub(HOOK_ANSWER_PAST_WAIT_S)),
            answer,
        )
    }

    fn start(within: Duration, fallback: Reply) -> Self {
        let at = Instant::now() + within;
        let slot = Arc::new(Mutex::new(Slot {
            fallback,
            why: "the console did not answer in time",
        }));
        let watched = Arc::clone(&slot);
        let started = std::thread::Builder::new()
            .name("countersign-deadline".into())
            .spawn(move || {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                let slot = watched.lock().unwrap_or_else(PoisonError::into_inner);
                say_then(&slot.fallback, slot.why);
            });
        if started.is_err() {
            // No deadline can be kept: the fail-safe answer now.
            let slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
            say_then(&slot.fallback, "no thread to keep the hook's deadline");
        }
        // A panic anywhere gives the fail-safe answer known so far, never a bare crash (which
        // several agents take as "run it"); while an answer is being printed, exit 2, which
        // every agent hooked here reads as "no".
        let on_panic = Arc::clone(&slot);
        std::panic::set_hook(Box::new(move |info| {
            let _ = writeln!(std::io::stderr(), "countersign: {info}");
            match on_panic.try_lock() {
                Ok(slot) => say_then(&slot.fallback, "the hook failed"),
                Err(_) => std::process::exit(2),
            }
        }));
        Self { slot }
    }

    /// What the deadline prints from now on, as the hook has learnt more of the call (its
    /// event, its agent's mode).
    pub fn fall_back_to(&self, reply: Reply) {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fallback = reply;
    }

    /// Prints `reply` and ends the process with its exit code, unless the deadline has
    /// answered already (then the process is ending with that answer).
    pub fn answer(&self, reply: &Reply) -> ! {
        let _held = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        say(reply)
    }
}

/// Prints `reply` whole, flushed, and ends the process: nothing after it can add to or change
/// the answer, and no task or thread still running holds the exit.
fn say(reply: &Reply) -> ! {
    print(reply);
    std::process::exit(i32::from(reply.exit))
}

/// Writes `reply`'s stdout, flushed, then its stderr (the agent's reason for a refusal by
/// exit code).
fn print(reply: &Reply) {
    let mut out = std::io::stdout().lock();
    if let Some(v) = &reply.stdout {
        let _ = writeln!(out, "{v}");
    }
    let _ = out.flush();
    if let Some(why) = &reply.stderr {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{why}");
        let _ = err.flush();
    }
}

/// [`say`], after `why` on stderr — once the answer is out, so a full stderr cannot hold it.
fn say_then(reply: &Reply, why: &str) -> ! {
    print(reply);
    note(&format!("{why}; answered with the fail-safe answer"));
    std::process::exit(i32::from(reply.exit))
}

/// Says `what` on stderr, for the agent's log; a closed or failing stderr is no reason to fail.
pub fn note(what: &str) {
    let _ = writeln!(std::io::stderr(), "countersign: {what}");
}
