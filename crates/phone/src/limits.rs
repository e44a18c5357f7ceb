//! Who may hold the phone listener's connections (decision 0025). A handful of devices on the
//! network must not be able to keep the person's phone out:
//!
//! - a connection that has not shown a kept phone's credential is closed after its answer, and
//!   counts against its source: the device's IPv4 address, or the /64 of an IPv6 one (a device
//!   holds as many IPv6 addresses in its /64 as it likes). A source holding
//!   [`MAX_UNAUTHENTICATED_PER_SOURCE`] such connections gives up its oldest for a new one;
//! - when every slot is taken, a newcomer takes the oldest unauthenticated connection of the
//!   source that holds the most, if it holds more than the newcomer's own; connections a kept
//!   phone holds are never taken, up to [`MAX_PER_PHONE`] each;
//! - every connection lives at most [`LIFETIME`] and [`MAX_REQUESTS`] requests, and one whose
//!   peer stops reading what it is sent is ended after [`WRITE_TIMEOUT`].

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// Phone connections served at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Unauthenticated connections one source holds at once.
pub const MAX_UNAUTHENTICATED_PER_SOURCE: usize = 8;
/// Connections one kept phone holds at once (a browser opens about six).
pub const MAX_PER_PHONE: usize = 8;
/// The longest a connection is kept, a live stream included (the page opens it again).
pub const LIFETIME: Duration = Duration::from_secs(10 * 60);
/// The most requests one connection carries.
pub const MAX_REQUESTS: usize = 500;
/// A write the peer does not take in this long ends the connection.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whom unauthenticated connections are counted against: an IPv4 address (an IPv4-mapped one
/// as such), or an IPv6 address's /64.
pub fn source(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let net = u128::from(v6) & (u128::MAX << 64);
            IpAddr::V6(net.into())
        }
        v4 => v4,
    }
}

/// The connections open now.
#[derive(Default)]
pub struct Registry {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next: u64,
    open: HashMap<u64, Entry>,
}

struct Entry {
    source: IpAddr,
    /// The kept phone it showed the credential of, once it has.
    phone: Option<String>,
    opened: Instant,
    /// Ends the connection when sent to, or dropped.
    evict: Option<oneshot::Sender<()>>,
}

impl State {
    /// Unauthenticated connections of `source` not told to end yet.
    fn unauthenticated(&self, source: IpAddr) -> usize {
        self.open
            .values()
            .filter(|e| e.phone.is_none() && e.source == source && e.evict.is_some())
            .count()
    }

    /// Ends the oldest unauthenticated connection of `source`.
    fn evict_oldest(&mut self, source: IpAddr) {
        let oldest = self
            .open
            .iter()
            .filter(|(_, e)| e.phone.is_none() && e.source == source && e.evict.is_some())
            .min_by_key(|(_, e)| e.opened)
            .map(|(id, _)| *id);
        if let Some(entry) = oldest.and_then(|id| self.open.get_mut(&id))
            && let Some(evict) = entry.evict.take()
        {
            let _ = evict.send(());
        }
    }

    /// The source holding the most unauthenticated connections, and how many.
    fn busiest(&self) -> Option<(IpAddr, usize)> {
        let mut counts: HashMap<IpAddr, usize> = HashMap::new();
        for e in self
            .open
            .values()
            .filter(|e| e.phone.is_none() && e.evict.is_some())
        {
            *counts.entry(e.source).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(_, n)| *n)
    }

    /// Connections still counted: those not told to end.
    fn live(&self) -> usize {
        self.open.values().filter(|e| e.evict.is_some()).count()
    }
}

impl Registry {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits a connection from `ip`, making room as the rules above say: its ticket, and what
    /// ends it early; `None` when there is no room for it.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<(Ticket, oneshot::Receiver<()>)> {
        let source = source(ip);
        let mut st = self.state();
        if st.unauthenticated(source) >= MAX_UNAUTHENTICATED_PER_SOURCE {
            st.evict_oldest(source);
        }
        if st.live() >= MAX_CONNECTIONS {
            let own = st.unauthenticated(source);
            match st.busiest() {
                Some((busiest, n)) if n > own + 1 => st.evict_oldest(busiest),
                _ => return None,
            }
        }
        let id = st.next;
        st.next += 1;
        let (evict, ended) = oneshot::channel();
        st.open.insert(
            id,
            Entry {
                source,
                phone: None,
                opened: Instant::now(),
                evict: Some(evict),
            },
        );
        Some((
            Ticket {
                registry: Arc::clone(self),
                id,
                requests: Arc::new(AtomicUsize::new(0)),
            },
            ended,
        ))
    }

    /// How many connections are open.
    pub fn open(&self) -> usize {
        self.state().live()
    }
}

/// One admitted connection, handed to each of its requests; it leaves the registry when
/// dropped.
#[derive(Clone)]
pub struct Ticket {
    registry: Arc<Registry>,
    id: u64,
    requests: Arc<AtomicUsize>,
}

impl Ticket {
    /// The connection showed kept phone `phone`'s credential: it is no longer counted against
    /// its source, and never taken for another, while its phone holds fewer than
    /// [`MAX_PER_PHONE`].
    pub fn authenticated(&self, phone: &str) {
        let mut st = self.registry.state();
        let held = st
            .open
            .values()
            .filter(|e| e.phone.as_deref() == Some(phone))
            .count();
        if let Some(entry) = st.open.get_mut(&self.id)
            && entry.phone.is_none()
            && held < MAX_PER_PHONE
        {
            entry.phone = Some(phone.to_owned());
        }
    }

    /// Whether the connection showed a kept phone's credential.
    pub fn is_authenticated(&self) -> bool {
        self.registry
            .state()
            .open
            .get(&self.id)
            .is_some_and(|e| e.phone.is_some())
    }

    /// Counts a request; whether the connection may carry more after it.
    pub fn request(&self) -> bool {
        self.requests.fetch_add(1, Ordering::Relaxed) + 1 < MAX_REQUESTS
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        // The last clone (the connection's own) takes it out.
        if Arc::strong_count(&self.requests) == 1 {
            self.registry.state().open.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_device_is_its_64_and_a_v4_mapped_address_its_v4() {
        assert_eq!(source(ip("fd00::1:2:3:4")), ip("fd00::"));
        assert_eq!(source(ip("fd00::9")), ip("fd00::"));
        assert_eq!(source(ip("::ffff:192.168.1.2")), ip("192.168.1.2"));
        assert_eq!(source(ip("10.0.0.7")), ip("10.0.0.7"));
    }

    #[test]
    fn a_source_over_its_share_gives_up_its_oldest() {
        let r = Arc::new(Registry::default());
        let mut held = Vec::new();
        for _ in 0..MAX_UNAUTHENTICATED_PER_SOURCE {
            held.push(r.admit(ip("10.0.0.1")).unwrap());
        }
        let (_t, _e) = r.admit(ip("10.0.0.1")).unwrap();
        let (_, first) = &mut held[0];
        assert!(first.try_recv().is_ok(), "the oldest was told to end");
        assert!(held[1].1.try_recv().is_err());
    }

    #[test]
    fn a_full_listener_takes_from_the_busiest_source_never_from_a_phone() {
        let r = Arc::new(Registry::default());
        let mut held = Vec::new();
        // Eight sources hold every slot.
        for n in 1..=8 {
            for _ in 0..MAX_UNAUTHENTICATED_PER_SOURCE {
                held.push(r.admit(ip(&format!("127.0.0.{n}"))).unwrap());
            }
        }
        assert_eq!(r.open(), MAX_CONNECTIONS);
        // The phone comes: it gets one, from a busiest source.
        let (phone, mut phone_ended) = r.admit(ip("127.0.0.50")).unwrap();
        let ended = held
            .iter_mut()
            .map(|(_, e)| e.try_recv().is_ok())
            .filter(|ended| *ended)
            .count();
        assert_eq!(ended, 1);
        phone.authenticated("p1");
        // The holders come back again and again: they take from each other, never the phone.
        for round in 0..200 {
            let n = round % 8 + 1;
            if let Some(t) = r.admit(ip(&format!("127.0.0.{n}"))) {
                held.push(t);
            }
        }
        assert!(
            phone_ended.try_recv().is_err(),
            "the phone's connection is kept"
        );
        assert!(phone.is_authenticated());
    }
}
