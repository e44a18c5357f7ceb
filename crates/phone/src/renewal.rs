//! Keeping a running listener's certificate valid. A console is often left running for months,
//! longer than Tailscale's certificate lives (Let's Encrypt's 90 days), and sleeping laptops
//! miss timers: so the listener looks every [`RENEW_CHECK`] whether a renewal is due by the
//! wall clock and the certificate's own end, not by a long timer.
//!
//! - Tailscale's: `tailscale cert` again every [`RENEW_EVERY`] (Tailscale renews it near its
//!   end and otherwise hands back the one it has), every check after a failure, and every check
//!   once less than [`TAILSCALE_LAST_DAYS`] are left. Only for the name the page is served
//!   under, valid now.
//! - The page's own: replaced only when less than [`tls::RENEW_BEFORE`] is left (or its start
//!   is still to come, after a clock was wrong), so a phone's browser is not asked about a new
//!   one needlessly; Settings then says, for [`REPLACED_SAID_DAYS`], that it was replaced.
//!
//! A renewal that fails keeps what is served, and Settings says why until one succeeds.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{PhoneError, tailscale, tls};

/// How often the listener looks whether its certificate is due for renewal.
pub const RENEW_CHECK: Duration = Duration::from_secs(60 * 60);
/// How often Tailscale is asked again for the certificate, by the wall clock.
pub const RENEW_EVERY: Duration = Duration::from_secs(12 * 60 * 60);
/// Within this many days of its end, Tailscale is asked at every check.
const TAILSCALE_LAST_DAYS: i64 = 7;
/// How long Settings says that the page's own certificate was replaced.
const REPLACED_SAID_DAYS: i64 = 7;
const DAY_S: i64 = 24 * 60 * 60;

/// What the running listener needs to fetch its certificate again.
pub(super) struct Renewal {
    /// Tailscale's command line when its certificate is served, else the one made here is.
    tailscale: Option<PathBuf>,
    root: PathBuf,
    host: String,
    pub(super) served: Arc<tls::Served>,
    /// Why Tailscale's certificate is not used (said at the start, kept while it runs).
    start_note: Option<String>,
    said: Mutex<Said>,
    /// One renewal at a time: each rewrites the same files.
    running: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Said {
    /// When Tailscale last gave a certificate (Unix time).
    last_renewed: i64,
    /// Why the last renewal failed; cleared by one that succeeds.
    failure: Option<String>,
    /// When the page's own certificate was replaced while running: phones warn about it once.
    replaced_at: Option<i64>,
}

impl Renewal {
    pub(super) fn new(
        tailscale: Option<PathBuf>,
        root: &Path,
        host: &str,
        served: Arc<tls::Served>,
        start_note: Option<String>,
    ) -> Self {
        Self {
            tailscale,
            root: root.to_owned(),
            host: host.to_owned(),
            served,
            start_note,
            said: Mutex::new(Said {
                last_renewed: tls::unix_now(),
                ..Said::default()
            }),
            running: tokio::sync::Mutex::new(()),
        }
    }

    fn said(&self) -> std::sync::MutexGuard<'_, Said> {
        self.said.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn failed(why: &str) -> String {
        format!(
            "The page's certificate could not be renewed ({why}). The one it has stays served; \
             it is tried again every {} minutes.",
            RENEW_CHECK.as_secs() / 60
        )
    }

    /// What Settings says about the certificate, if anything.
    pub(super) fn note(&self) -> Option<String> {
        let said = self.said();
        let recently = |at: i64| tls::unix_now() - at < REPLACED_SAID_DAYS * DAY_S;
        let replaced = said.replaced_at.filter(|&at| recently(at)).map(|_| {
            "The page's own certificate neared its end and was replaced: a phone's browser warns \
             about the new one once. Compare the fingerprint above with the one it shows."
                .to_owned()
        });
        let parts: Vec<String> = [self.start_note.clone(), replaced, said.failure.clone()]
            .into_iter()
            .flatten()
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// Whether the page's own certificate is to be replaced at `now` (Unix time).
    fn own_due(&self, now: i64) -> bool {
        let (not_before, not_after) = self.served.dates();
        now < not_before || not_after - now < tls::RENEW_BEFORE.whole_seconds()
    }

    /// Whether a renewal is due at `now` (Unix time).
    fn due(&self, now: i64) -> bool {
        if self.tailscale.is_none() {
            return self.own_due(now);
        }
        let left = self.served.dates().1 - now;
        let said = self.said();
        let since = now - said.last_renewed;
        // A clock set back counts as due too.
        said.failure.is_some()
            || !(0..i64::try_from(RENEW_EVERY.as_secs()).unwrap_or(i64::MAX)).contains(&since)
            || left < TAILSCALE_LAST_DAYS * DAY_S
    }

    async fn fetch(&self) -> Result<tls::Identity, PhoneError> {
        match &self.tailscale {
            Some(bin) => {
                // The page's origin is its name: phones, cookies and passkeys are bound to it.
                let (_, identity) =
                    tailscale::certificate(bin, &self.root, Some(&self.host)).await?;
                Ok(identity)
            }
            // Replaced by one valid now for the name, far from its end.
            None => tls::load_or_create(&self.root, std::slice::from_ref(&self.host)),
        }
    }

    /// Renews now. A failure keeps what is served and is said in the note until a renewal
    /// succeeds; the page's own certificate far from its end is kept as it is.
    pub(super) async fn renew_now(&self) -> Result<(), String> {
        let _one = self.running.lock().await;
        if self.tailscale.is_none() && !self.own_due(tls::unix_now()) {
            return Ok(());
        }
        let before = self.served.fingerprint();
        let renewed = match self.fetch().await {
            Ok(identity) => identity
                .check_for(&self.host, tls::unix_now())
                .and_then(|()| self.served.replace(&identity)),
            Err(e) => Err(e),
        };
        let mut said = self.said();
        match renewed {
            Ok(()) => {
                said.failure = None;
                said.last_renewed = tls::unix_now();
                if self.tailscale.is_none() && self.served.fingerprint() != before {
                    said.replaced_at = Some(tls::unix_now());
                }
                Ok(())
            }
            Err(e) => {
                tracing::warn!(error = %e, "the phone page's certificate was not renewed");
                let failure = match e {
                    // Trying again cannot help: it is for the person to do.
                    PhoneError::TailnetName { .. } => format!("{e}."),
                    PhoneError::Certificate(why) => Self::failed(&why),
                    e => Self::failed(&e.to_string()),
                };
                said.failure = Some(failure.clone());
                Err(failure)
            }
        }
    }
}

/// Looks every `every` whether a renewal is due and renews then, until aborted.
pub(super) async fn keep_renewed(renewal: Arc<Renewal>, every: Duration) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if renewal.due(tls::unix_now()) {
            // A failure is said in the note.
            let _ = renewal.renew_now().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page's own certificate for `host`, made `age_days` ago.
    fn own(host: &str, age_days: i64) -> tls::Identity {
        let made = time::OffsetDateTime::now_utc() - time::Duration::days(age_days);
        tls::identity(&tls::make(&[host.to_owned()], made).unwrap()).unwrap()
    }

    #[tokio::test]
    async fn the_pages_own_certificate_is_replaced_near_its_end_by_the_running_check_only() {
        let dir = tempfile::tempdir().unwrap();
        // Far from its end: the check leaves it, even when its file is gone.
        let far = own("192.168.1.20", 10);
        let served = tls::Served::new(&far).unwrap();
        let renewal = Renewal::new(None, dir.path(), "192.168.1.20", served.clone(), None);
        assert!(!renewal.due(tls::unix_now()));
        renewal.renew_now().await.unwrap();
        assert_eq!(served.fingerprint(), far.fingerprint);
        assert_eq!(renewal.note(), None);

        // Near its end: the running check replaces it, and Settings says phones warn once.
        let near = own("192.168.1.20", 380);
        let served = tls::Served::new(&near).unwrap();
        let renewal = Arc::new(Renewal::new(
            None,
            dir.path(),
            "192.168.1.20",
            served.clone(),
            None,
        ));
        assert!(renewal.due(tls::unix_now()));
        let checking = tokio::spawn(keep_renewed(renewal.clone(), Duration::from_millis(20)));
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while served.fingerprint() == near.fingerprint {
            assert!(tokio::time::Instant::now() < deadline, "never renewed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        checking.abort();
        assert!(served.dates().1 - tls::unix_now() > 300 * DAY_S);
        assert!(!renewal.due(tls::unix_now()));
        assert!(renewal.note().unwrap().contains("was replaced"));
        // Said for a week.
        renewal.said().replaced_at = Some(tls::unix_now() - (REPLACED_SAID_DAYS + 1) * DAY_S);
        assert_eq!(renewal.note(), None);

        // Dated in the future (made while the clock was wrong): replaced too.
        let early = own("192.168.1.20", -30);
        let served = tls::Served::new(&early).unwrap();
        let renewal = Renewal::new(None, dir.path(), "192.168.1.20", served.clone(), None);
        assert!(renewal.due(tls::unix_now()));
        renewal.renew_now().await.unwrap();
        assert_ne!(served.fingerprint(), early.fingerprint);
        assert!(served.dates().0 <= tls::unix_now());
    }

    #[test]
    fn tailscales_is_due_by_the_wall_clock_after_a_failure_and_near_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let served = tls::Served::new(&own("box.tail1234.ts.net", 10)).unwrap();
        let renewal = Renewal::new(
            Some(dir.path().join("tailscale")),
            dir.path(),
            "box.tail1234.ts.net",
            served,
            None,
        );
        let now = tls::unix_now();
        assert!(!renewal.due(now));
        let every = i64::try_from(RENEW_EVERY.as_secs()).unwrap();
        assert!(renewal.due(now + every));
        // A clock set back.
        assert!(renewal.due(now - 60));
        renewal.said().failure = Some("no answer".into());
        assert!(renewal.due(now));
        renewal.said().failure = None;
        // Near its end, at every check.
        let near = tls::Served::new(&own("box.tail1234.ts.net", 395)).unwrap();
        let renewal = Renewal::new(
            Some(dir.path().join("tailscale")),
            dir.path(),
            "box.tail1234.ts.net",
            near,
            Some("start".into()),
        );
        assert!(renewal.due(now));
        assert_eq!(renewal.note().as_deref(), Some("start"));
    }
}
