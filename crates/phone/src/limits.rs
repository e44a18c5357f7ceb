//! Who may hold the phone listener's connections (decision 0025). A handful of devices on the
//! network, or one with many addresses, must not keep the person's phone out, nor the console
//! out of file descriptors:
//!
//! - a connection from an address a kept phone was last seen from (known when the listener
//!   starts, and learnt whenever a phone shows its credential and secret) is never taken for
//!   another, up to [`MAX_PER_PHONE`] per address;
//! - any other connection is answered once and closed unless it shows a kept phone's credential
//!   and secret, and counts against its source: the device's IPv4 address, or the /64 of an
//!   IPv6 one (a device holds as many IPv6 addresses in its /64 as it likes). A source holding
//!   [`MAX_UNAUTHENTICATED_PER_SOURCE`] such connections gives up its oldest for a new one;
//! - when every slot is taken, a newcomer takes the oldest unauthenticated connection of the
//!   source that holds the most, if that source holds more than the newcomer's own;
//! - sockets told to end are closed at once (also mid-handshake), and at most [`MAX_OPEN`]
//!   are open however they are counted;
//! - every connection lives at most [`LIFETIME`] and [`MAX_REQUESTS`] requests, and one whose
//!   peer stops reading what it is sent is ended after [`WRITE_TIMEOUT`].

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// Phone connections served at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Sockets open at once, those told to end included: past this, new ones are closed at once.
pub const MAX_OPEN: usize = 2 * MAX_CONNECTIONS;
/// Unauthenticated connections one source holds at once.
pub const MAX_UNAUTHENTICATED_PER_SOURCE: usize = 8;
/// Connections one kept phone (or its address) holds at once: a browser opens about six.
pub const MAX_PER_PHONE: usize = 8;
/// The phones' addresses remembered.
const MAX_KNOWN: usize = 64;
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

/// The connections open now, and the addresses kept phones were seen from.
#[derive(Default)]
pub struct Registry {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next: u64,
    open: HashMap<u64, Entry>,
    /// Kept phones' addresses, the most recently learnt last.
    known: VecDeque<IpAddr>,
}

struct Entry {
    source: IpAddr,
    peer: IpAddr,
    /// From a kept phone's address when it was admitted.
    known: bool,
    /// The kept phone it showed the credential and secret of, once it has.
    phone: Option<String>,
    opened: Instant,
    /// Ends the connection when sent to, or dropped; `None` once it was told to end.
    evict: Option<oneshot::Sender<()>>,
}

impl Entry {
    /// Told to end, or not protected: a connection that may be taken for another.
    fn takeable(&self) -> bool {
        self.evict.is_some() && self.phone.is_none() && !self.known
    }
}

impl State {
    fn live(&self) -> usize {
        self.open.values().filter(|e| e.evict.is_some()).count()
    }

    fn takeable_of(&self, source: IpAddr) -> usize {
        self.open
            .values()
            .filter(|e| e.takeable() && e.source == source)
            .count()
    }

    /// Ends the oldest connection among those `which` picks.
    fn evict_oldest(&mut self, which: impl Fn(&Entry) -> bool) -> bool {
        let oldest = self
            .open
            .iter()
            .filter(|(_, e)| e.evict.is_some() && which(e))
            .min_by_key(|(_, e)| e.opened)
            .map(|(id, _)| *id);
        match oldest
            .and_then(|id| self.open.get_mut(&id))
            .and_then(|e| e.evict.take())
        {
            Some(evict) => {
                let _ = evict.send(());
                true
            }
            None => false,
        }
    }

    /// The source holding the most takeable connections, and how many.
    fn busiest(&self) -> Option<(IpAddr, usize)> {
        let mut counts: HashMap<IpAddr, usize> = HashMap::new();
        for e in self.open.values().filter(|e| e.takeable()) {
            *counts.entry(e.source).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(_, n)| *n)
    }

    fn is_known(&self, ip: IpAddr) -> bool {
        self.known.contains(&ip.to_canonical())
    }
}

impl Registry {
    /// A registry that knows the addresses `phones` were last seen from.
    pub fn knowing(phones: impl IntoIterator<Item = IpAddr>) -> Self {
        let r = Self::default();
        for ip in phones {
            r.learn(ip);
        }
        r
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Remembers `ip` as a kept phone's address.
    pub fn learn(&self, ip: IpAddr) {
        let ip = ip.to_canonical();
        let mut st = self.state();
        st.known.retain(|k| *k != ip);
        st.known.push_back(ip);
        while st.known.len() > MAX_KNOWN {
            st.known.pop_front();
        }
    }

    /// Admits a connection from `ip`, making room as the rules above say: its ticket, and what
    /// ends it early; `None` when there is no room for it.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<(Ticket, oneshot::Receiver<()>)> {
        let peer = ip.to_canonical();
        let source = source(peer);
        let mut st = self.state();
        if st.open.len() >= MAX_OPEN {
            return None;
        }
        let known = st.is_known(peer);
        if known {
            let held = st
                .open
                .values()
                .filter(|e| e.known && e.peer == peer && e.evict.is_some())
                .count();
            if held >= MAX_PER_PHONE {
                st.evict_oldest(|e| e.known && e.peer == peer);
            }
            if st.live() >= MAX_CONNECTIONS {
                let busiest = st.busiest().map(|(s, _)| s);
                let made_room =
                    busiest.is_some_and(|b| st.evict_oldest(|e| e.takeable() && e.source == b));
                if !made_room {
                    return None;
                }
            }
        } else {
            if st.takeable_of(source) >= MAX_UNAUTHENTICATED_PER_SOURCE {
                st.evict_oldest(|e| e.takeable() && e.source == source);
            }
            if st.live() >= MAX_CONNECTIONS {
                let own = st.takeable_of(source);
                match st.busiest() {
                    Some((busiest, n)) if n > own => {
                        st.evict_oldest(|e| e.takeable() && e.source == busiest);
                    }
                    _ => return None,
                }
            }
        }
        let id = st.next;
        st.next += 1;
        let (evict, ended) = oneshot::channel();
        st.open.insert(
            id,
            Entry {
                source,
                peer,
                known,
                phone: None,
                opened: Instant::now(),
                evict: Some(evict),
            },
        );
        let inner = Inner {
            registry: Arc::clone(self),
            id,
            peer,
            requests: AtomicUsize::new(0),
        };
        Some((Ticket(Arc::new(inner)), ended))
    }

    /// How many connections are open and not told to end.
    pub fn open(&self) -> usize {
        self.state().live()
    }
}

/// One admitted connection, handed to each of its requests; it leaves the registry when the
/// last clone is dropped.
#[derive(Clone)]
pub struct Ticket(Arc<Inner>);

struct Inner {
    registry: Arc<Registry>,
    id: u64,
    peer: IpAddr,
    requests: AtomicUsize,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.registry.state().open.remove(&self.id);
    }
}

impl Ticket {
    /// The connection showed kept phone `phone`'s credential and its page's secret: it is never
    /// taken for another while its phone holds fewer than [`MAX_PER_PHONE`], and its address is
    /// a phone's from now on.
    pub fn authenticated(&self, phone: &str) {
        self.0.registry.learn(self.0.peer);
        self.kept_for(phone);
    }

    /// The connection showed the credential of `holder` (a team listener's agent token): it is
    /// never taken for another while `holder` holds fewer than [`MAX_PER_PHONE`], and its
    /// address is not remembered — an address is no one's on a team listener, and nothing
    /// outlives the connection.
    pub fn kept_for(&self, holder: &str) {
        let registry = &self.0.registry;
        let mut st = registry.state();
        let held = st
            .open
            .values()
            .filter(|e| e.phone.as_deref() == Some(holder))
            .count();
        if let Some(entry) = st.open.get_mut(&self.0.id)
            && entry.phone.is_none()
            && held < MAX_PER_PHONE
        {
            entry.phone = Some(holder.to_owned());
        }
    }

    /// Whether the connection showed a kept phone's credential and secret.
    pub fn is_authenticated(&self) -> bool {
        self.0
            .registry
            .state()
            .open
            .get(&self.0.id)
            .is_some_and(|e| e.phone.is_some())
    }

    /// Counts a request; whether the connection may carry more after it.
    pub fn request(&self) -> bool {
        self.0.requests.fetch_add(1, Ordering::Relaxed) + 1 < MAX_REQUESTS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// Which of `held` were told to end since last asked.
    fn ended(held: &mut [(Ticket, oneshot::Receiver<()>)]) -> usize {
        held.iter_mut()
            .map(|(_, e)| e.try_recv().is_ok())
            .filter(|ended| *ended)
            .count()
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
        assert!(held[0].1.try_recv().is_ok(), "the oldest was told to end");
        assert_eq!(ended(&mut held[1..]), 0);
    }

    #[test]
    fn a_full_listener_takes_from_the_busiest_source_never_from_a_phone() {
        let r = Arc::new(Registry::default());
        let mut held = Vec::new();
        for n in 1..=8 {
            for _ in 0..MAX_UNAUTHENTICATED_PER_SOURCE {
                held.push(r.admit(ip(&format!("127.0.0.{n}"))).unwrap());
            }
        }
        assert_eq!(r.open(), MAX_CONNECTIONS);
        let (phone, mut phone_ended) = r.admit(ip("127.0.0.50")).unwrap();
        assert_eq!(ended(&mut held), 1);
        phone.authenticated("p1");
        for round in 0..200 {
            let n = round % 8 + 1;
            if let Some(t) = r.admit(ip(&format!("127.0.0.{n}"))) {
                held.push(t);
            }
            // What was told to end closes.
            held.retain_mut(|(_, e)| e.try_recv().is_err());
        }
        assert!(
            phone_ended.try_recv().is_err(),
            "the phone's connection is kept"
        );
        assert!(phone.is_authenticated());
    }

    /// Sixty-four devices with one connection each: a new device still gets one, and a phone's
    /// known address always does, however fast the others come back.
    #[test]
    fn many_sources_of_one_connection_each_do_not_keep_out_a_newcomer_or_a_phone() {
        let r = Arc::new(Registry::knowing([ip("192.168.1.50")]));
        let mut held = Vec::new();
        for n in 0..MAX_CONNECTIONS {
            held.push(r.admit(ip(&format!("192.168.2.{n}"))).unwrap());
        }
        assert!(r.admit(ip("192.168.3.1")).is_some(), "a newcomer takes one");
        held.retain_mut(|(_, e)| e.try_recv().is_err());
        let (phone, mut phone_ended) = r.admit(ip("192.168.1.50")).unwrap();
        for round in 0..500 {
            if let Some(t) = r.admit(ip(&format!("192.168.2.{}", round % 200))) {
                held.push(t);
            }
            held.retain_mut(|(_, e)| e.try_recv().is_err());
        }
        assert!(
            phone_ended.try_recv().is_err(),
            "a known phone's address is never taken"
        );
        drop(phone);
    }

    /// A device in the phone's own IPv6 /64 cannot take a connection from the phone's address.
    #[test]
    fn a_neighbour_in_the_phones_64_cannot_take_the_phones_connection() {
        let r = Arc::new(Registry::knowing([ip("fd00::50")]));
        let (phone, mut phone_ended) = r.admit(ip("fd00::50")).unwrap();
        let mut held = Vec::new();
        for n in 0..300u32 {
            if let Some(t) = r.admit(IpAddr::V6(std::net::Ipv6Addr::new(
                0xfd00, 0, 0, 0, 0, 0, 1, n as u16,
            ))) {
                held.push(t);
            }
            held.retain_mut(|(_, e)| e.try_recv().is_err());
        }
        assert!(phone_ended.try_recv().is_err());
        drop(phone);
    }

    /// However a source asks, no more than `MAX_OPEN` sockets are open.
    #[test]
    fn sockets_told_to_end_still_count_until_closed() {
        let r = Arc::new(Registry::default());
        let mut kept = Vec::new();
        let mut refused = 0;
        for n in 0..1000u32 {
            match r.admit(IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + n))) {
                Some(t) => kept.push(t),
                None => refused += 1,
            }
        }
        assert!(kept.len() <= MAX_OPEN, "{}", kept.len());
        assert!(refused > 0);
        // Closed ones give their room back.
        kept.clear();
        assert!(r.admit(ip("10.9.9.9")).is_some());
    }

    #[test]
    fn a_ticket_leaves_the_registry_with_its_last_clone() {
        let r = Arc::new(Registry::default());
        let (t, _e) = r.admit(ip("10.0.0.1")).unwrap();
        let clones: Vec<Ticket> = (0..5).map(|_| t.clone()).collect();
        drop(t);
        assert_eq!(r.open(), 1);
        drop(clones);
        assert_eq!(r.open(), 0);
    }
}
