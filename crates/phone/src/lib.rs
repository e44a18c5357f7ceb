//! The phone's listener (DESIGN §14): HTTPS on the address the person picks, serving the
//! phone's own small API and never the agent API. Off until the person turns it on; turning
//! it off ([`PhoneServer::stop`], or dropping it) closes the listener and ends every phone
//! connection at once.
//!
//! Who may ask what:
//! - Every request must name the console as the phone reaches it (`Host` equal to the
//!   address the listener was started for), so a page elsewhere cannot rebind a name to it.
//! - The agent API's bearer token is refused here, whatever it is; the phone's credential is
//!   a cookie, and the agent API accepts nothing but its bearer token (decision 0023).
//! - Every request but the pairing itself carries a paired phone's credential, looked up by
//!   its SHA-256 (a revoked phone's matches nothing).
//! - A request that changes anything must come from the phone page's own origin
//!   (`Origin: https://<host>`), with a JSON body, so another site cannot post to it.

pub mod addresses;
pub mod pairing;
pub mod passkey;
pub mod people;
pub mod pinned;
pub mod push;
pub mod tailscale;
pub mod team;
pub mod tls;

mod api;
pub mod limits;
mod renewal;

pub use api::SECRET_HEADER;
use renewal::Renewal;
pub use renewal::{RENEW_CHECK, RENEW_EVERY};

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use self::pairing::{Pairing, PairingError};
use countersign_engine::console::Console;

/// A TLS handshake not finished in this long is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Request headers not received in this long (also between requests) end the connection.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A request not answered in this long, its body read included, is answered 408.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

/// The address a request came from, for counting failed pairings by source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peer(pub IpAddr);

/// One of the phone page's files.
#[derive(Debug, Clone)]
pub struct PageAsset {
    pub bytes: Vec<u8>,
    pub mime: String,
}

/// The phone page's files by path (`phone.html`, `assets/...`): the window's own build, which
/// the desktop app embeds.
pub type PageAssets = Arc<dyn Fn(&str) -> Option<PageAsset> + Send + Sync>;

/// How the listener is set up beyond its address.
#[derive(Clone, Default)]
pub struct PhoneOptions {
    /// The phone page's files, when the listener serves the page.
    pub page: Option<PageAssets>,
    /// Lets a phone's push subscription name `http://127.0.0.1` (a test's own push service);
    /// otherwise only an `https` push service by its name is taken.
    pub plain_loopback_push: bool,
    /// Lets phones pair and be used from this machine itself (a test's own clients); otherwise
    /// a request from this computer or a container on it is refused, and a code is redeemed
    /// only from the listener's own network (or the tailnet).
    pub local_phones: bool,
    /// Tailscale's command line: the page is served under this machine's name on the tailnet,
    /// with the certificate Tailscale issues for it. When Tailscale cannot issue one, the
    /// page is served as without it, and [`PhoneServer::certificate_note`] says why.
    pub tailscale: Option<std::path::PathBuf>,
}

/// Why the phone's listener could not start or act.
#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error("the phone page's certificate: {0}")]
    Certificate(String),
    #[error("cannot listen on {addr} for the phone page: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the name the phone reaches the console by is not usable: {0:?}")]
    Host(String),
    #[error(
        "Tailscale no longer names this machine {was} but {now}: turn the phone page off and on \
         to serve it under the new name, then pair each phone again"
    )]
    TailnetName { was: String, now: String },
    #[error(transparent)]
    Pairing(#[from] PairingError),
    #[error(transparent)]
    Push(#[from] push::PushError),
}

/// The phone's listener, serving until [`PhoneServer::stop`] or until dropped.
pub struct PhoneServer {
    addr: SocketAddr,
    host: String,
    /// Whether the certificate is a public authority's (Tailscale's).
    trusted: bool,
    renewal: Arc<Renewal>,
    pairing: Arc<Mutex<Pairing>>,
    task: JoinHandle<()>,
    /// Announces waiting calls to phones that asked for pushes.
    pushes: JoinHandle<()>,
    /// Fetches the certificate again when due ([`RENEW_CHECK`]).
    renewing: JoinHandle<()>,
}

impl PhoneServer {
    /// Listens on `bind` (port 0 picks one) for phones reaching the console as `host` (the
    /// machine's LAN address or its name on a private network), with the certificate kept in
    /// `data_root` for that name, serving the phone page from `options.page` when given.
    pub async fn start(
        console: Console,
        data_root: &Path,
        bind: SocketAddr,
        host: &str,
        options: PhoneOptions,
    ) -> Result<Self, PhoneError> {
        if !is_host_name(host) {
            return Err(PhoneError::Host(host.to_owned()));
        }
        // Browsers send names lower-case; an address is written as it parses.
        let host = match host.parse::<IpAddr>() {
            Ok(ip) => ip.to_string(),
            Err(_) => host.to_ascii_lowercase(),
        };
        let (host, identity, note) = match &options.tailscale {
            Some(bin) => match tailscale::certificate(bin, data_root, None).await {
                Ok((name, identity)) => (name, identity, None),
                Err(e) => {
                    let own = tls::load_or_create(data_root, std::slice::from_ref(&host))?;
                    let said = format!(
                        "Tailscale's certificate is not used ({e}). The page uses its own, which \
                         the phone's browser warns about once."
                    );
                    (host, own, Some(said))
                }
            },
            None => {
                let own = tls::load_or_create(data_root, std::slice::from_ref(&host))?;
                (host, own, None)
            }
        };
        let trusted = options.tailscale.is_some() && note.is_none();
        let host = host.as_str();
        let console_for_push = console.clone();
        let console_for_limits = console.clone();
        let served = tls::Served::new(&identity)?;
        let config = tls::server_config(served.clone())?;
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|source| PhoneError::Bind { addr: bind, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| PhoneError::Bind { addr: bind, source })?;
        let authority = authority(host, addr.port());
        let vapid = push::VapidKey::load_or_create(data_root, &format!("https://{authority}"))?;
        // Made before anything is spawned, so a failure leaves nothing running.
        let push_client = push::client()?;
        // Passkeys need a name the phone trusts: only with a public authority's certificate.
        let passkeys = if trusted {
            Some(Arc::new(passkey::Passkeys::new(
                host,
                &format!("https://{authority}"),
            )?))
        } else {
            None
        };
        let pairing = Arc::new(Mutex::new(Pairing::default()));
        let app = api::router(api::PhoneState {
            console,
            pairing: pairing.clone(),
            origin: format!("https://{authority}"),
            authority,
            page: options.page,
            served: served.clone(),
            push_key: vapid.clone(),
            plain_loopback_push: options.plain_loopback_push,
            passkeys,
            local_phones: options.local_phones,
            network: addresses::network_of(bind.ip()),
            on_tailnet: addresses::is_tailnet(bind.ip()),
        });
        let renewal = Arc::new(Renewal::new(
            // Where Tailscale could not issue one at the start, the one made here is served
            // until the listener starts again: the page's name cannot change while it runs.
            if trusted { options.tailscale } else { None },
            data_root,
            host,
            served,
            note,
        ));
        // The addresses kept phones were last seen from keep their connections (limits).
        let known: Vec<IpAddr> = console_for_limits
            .phones()
            .await
            .map_err(|e| {
                PhoneError::Certificate(format!("the paired phones could not be read: {e}"))
            })?
            .into_iter()
            .filter(|p| p.kept)
            .filter_map(|p| p.last_source.and_then(|s| s.parse().ok()))
            .collect();
        let registry = Arc::new(limits::Registry::knowing(known));
        let task = tokio::spawn(serve(listener, config, app, registry));
        let pushes = tokio::spawn(push::announce(console_for_push, vapid, push_client));
        let renewing = tokio::spawn(renewal::keep_renewed(renewal.clone(), RENEW_CHECK));
        Ok(Self {
            addr,
            host: host.to_owned(),
            pairing,
            task,
            pushes,
            renewing,
            trusted,
            renewal,
        })
    }

    /// The address listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The phone page's address.
    pub fn url(&self) -> String {
        format!("https://{}/", authority(&self.host, self.addr.port()))
    }

    /// The certificate's SHA-256 fingerprint, for the window to show beside the QR code.
    pub fn fingerprint(&self) -> String {
        self.renewal.served.fingerprint()
    }

    /// Whether phones trust the certificate without a warning (Tailscale's).
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    /// Why Tailscale's certificate was asked for and is not used, why the certificate could
    /// not be renewed, or that the page's own was replaced: whole sentences, for the window to
    /// show as they are.
    pub fn certificate_note(&self) -> Option<String> {
        self.renewal.note()
    }

    /// The certificate (DER), for a phone or a test to trust it by.
    pub fn certificate(&self) -> Vec<u8> {
        self.renewal.served.certificate()
    }

    /// Fetches the certificate again now, as the listener does when it is due: new connections
    /// get the renewed one. On failure the one served stays, and the error is also said in
    /// [`Self::certificate_note`] until a renewal succeeds.
    pub async fn renew_certificate(&self) -> Result<(), String> {
        self.renewal.renew_now().await
    }

    /// A new pairing code, valid 5 minutes and once, voiding the one shown before: the
    /// address for the QR code, the code in its fragment (never sent to a server by a browser).
    pub fn show_code(&self) -> Result<String, PhoneError> {
        let code = self.pairing().show(Instant::now())?;
        Ok(format!("{}#pair={}", self.url(), code.expose()))
    }

    /// Stops showing the code: it can no longer be redeemed.
    pub fn hide_code(&self) {
        self.pairing().hide();
    }

    /// Failed pairings in the last minute, for the window to say.
    pub fn recent_failures(&self) -> usize {
        self.pairing().recent_failures(Instant::now())
    }

    /// Where the last code was presented from after it had already paired a phone (the window
    /// says that the proposal may not be the person's phone).
    pub fn code_reused_from(&self) -> Option<IpAddr> {
        self.pairing().reused_from()
    }

    fn pairing(&self) -> std::sync::MutexGuard<'_, Pairing> {
        lock(&self.pairing)
    }

    /// Closes the listener and ends every phone connection.
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for PhoneServer {
    fn drop(&mut self) {
        self.task.abort();
        self.pushes.abort();
        self.renewing.abort();
    }
}

/// The pairing state, also after a panic while it was held (each change to it is whole).
fn lock(pairing: &Mutex<Pairing>) -> std::sync::MutexGuard<'_, Pairing> {
    pairing.lock().unwrap_or_else(|e| e.into_inner())
}

/// `host:port` as browsers write it in `Host` and `Origin`: an IPv6 address in brackets, and
/// no port when it is HTTPS's own.
pub(crate) fn authority(host: &str, port: u16) -> String {
    let host = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    if port == 443 {
        host
    } else {
        format!("{host}:{port}")
    }
}

/// An IP address or a DNS name of letters, digits, `-` and `.`.
pub(crate) fn is_host_name(host: &str) -> bool {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return true;
    }
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// Accepts connections until aborted; aborting it aborts every connection too. Who may hold a
/// connection, and for how long, is [`limits`]'s.
async fn serve(
    listener: TcpListener,
    config: Arc<rustls::ServerConfig>,
    app: axum::Router,
    registry: Arc<limits::Registry>,
) {
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        // Finished connections are reaped as new ones come.
        while connections.try_join_next().is_some() {}
        let (tcp, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "phone listener: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Closed at once (dropped) when there is no room for it.
        let Some((ticket, mut evicted)) = registry.admit(peer.ip()) else {
            continue;
        };
        let acceptor = acceptor.clone();
        let app = app
            .clone()
            .layer(axum::Extension(ticket.clone()))
            .layer(axum::Extension(Peer(peer.ip())));
        connections.spawn(async move {
            let _ticket = ticket;
            let mut io = tokio_io_timeout::TimeoutStream::new(tcp);
            io.set_write_timeout(Some(limits::WRITE_TIMEOUT));
            let io = Box::pin(io);
            // Told to end mid-handshake: closed now, not when the handshake gives up.
            let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(io));
            let tls = tokio::select! {
                done = handshake => match done {
                    Ok(Ok(tls)) => tls,
                    _ => return,
                },
                _ = &mut evicted => return,
            };
            let service = hyper_util::service::TowerToHyperService::new(app);
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let conn = http.serve_connection(hyper_util::rt::TokioIo::new(tls), service);
            tokio::pin!(conn);
            let ended = tokio::select! {
                served = conn.as_mut() => Some(served),
                _ = &mut evicted => None,
                () = tokio::time::sleep(limits::LIFETIME) => {
                    // Past its lifetime: the request under way is finished, then it closes.
                    conn.as_mut().graceful_shutdown();
                    tokio::time::timeout(REQUEST_TIMEOUT, conn.as_mut()).await.ok()
                }
            };
            if let Some(Err(e)) = ended {
                tracing::debug!(error = %e, "phone connection ended");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        for ok in ["192.168.1.20", "::1", "desk", "desk.tail1234.ts.net"] {
            assert!(is_host_name(ok), "{ok}");
        }
        for bad in [
            "",
            "a..b",
            "-a",
            "a-",
            "evil.com/x",
            "a b",
            "näme",
            "a:b:c:zz",
        ] {
            assert!(!is_host_name(bad), "{bad}");
        }
        assert_eq!(authority("::1", 8443), "[::1]:8443");
        assert_eq!(authority("desk", 8443), "desk:8443");
        assert_eq!(authority("desk", 443), "desk");
    }
}
