//! Nobody pairs a phone without the person at the desk, and a handful of devices cannot keep the
//! person's phone out (decision 0025): a code redeemed from this machine is refused; a redeemed
//! code only proposes a phone, which shows and decides nothing until kept; decisions carry the
//! page's own secret and the address they came from; connection slots hold against slow
//! clients from eight addresses.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::phone::{COOKIE, WithPhone as _, answer, both, both_with, raw, secret_of};
use crate::support::{assert_error, terminal};
use countersign_domain::approval::Decision;
use countersign_engine::console::{KEEP_WITHIN_MS, PhoneProof};
use countersign_phone::{PhoneOptions, SECRET_HEADER};

/// A listener as the window starts it: a code redeemed from this machine (loopback here, as an
/// agent on it would) is refused before it is spent, and nothing is stored.
#[tokio::test]
async fn a_code_redeemed_from_this_machine_is_refused_before_it_is_spent() {
    let b = both_with(PhoneOptions::default()).await;
    let code = b.show_code();
    let before = crate::support::fingerprint(b.agents.console.store()).await;
    let r = b.pair(&code, "Agent's phone").await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this computer itself"),
        "{body}"
    );
    assert_eq!(
        crate::support::fingerprint(b.agents.console.store()).await,
        before
    );
    assert!(b.agents.console.phones().await.unwrap().is_empty());
}

/// A proposed phone asks only whether it is kept: no calls, no decision, no push, no passkey,
/// no live stream. Refused, it is gone; not kept in time, it is forgotten.
#[tokio::test]
async fn a_proposed_phone_shows_and_decides_nothing_until_kept() {
    let b = both().await;
    let asked = b
        .agents
        .ask(&terminal("claude-code.Bash", "rm -rf build"))
        .await;
    let credential = b.proposed("Unkept").await;
    let forbidden = |r: &(StatusCode, Value)| assert_error(r, StatusCode::FORBIDDEN, "forbidden");
    forbidden(&b.inbox(Some(&credential)).await);
    forbidden(
        &b.decide(
            &credential,
            &asked["id"],
            json!({ "digest": asked["digest"], "decision": "approve" }),
        )
        .await,
    );
    for path in ["/phone/v1/push/off", "/phone/v1/passkey/start"] {
        let r = answer(
            b.http
                .post(b.url(path))
                .header(header::ORIGIN, &b.origin)
                .with_phone(&credential)
                .json(&json!({})),
        )
        .await;
        forbidden(&r);
    }
    let events = b
        .http
        .get(b.url("/phone/v1/events"))
        .with_phone(&credential)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), StatusCode::FORBIDDEN);
    let me = answer(b.http.get(b.url("/phone/v1/me")).with_phone(&credential)).await;
    assert_eq!((me.0, me.1["kept"].clone()), (StatusCode::OK, json!(false)));
    let (_, still) = b
        .agents
        .get(&format!("/v1/approvals/{}", asked["id"].as_str().unwrap()))
        .await;
    assert_eq!(still["status"], "pending");

    // The window lists it as proposed, with where it paired from and its browser.
    let listed = b.agents.console.phones().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(!listed[0].kept);
    assert_eq!(listed[0].paired_from, "127.0.0.1");
    // Refused: its credential matches nothing.
    b.agents.console.revoke_phone(&listed[0].id).await.unwrap();
    assert_error(
        &b.inbox(Some(&credential)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );

    // Not kept in time: forgotten, and keeping it then is refused.
    let late = b.proposed("Late").await;
    let id = b.agents.console.phones().await.unwrap()[0].id.clone();
    b.agents.console.clock().advance(Duration::from_millis(
        u64::try_from(KEEP_WITHIN_MS).unwrap() + 1000,
    ));
    assert!(b.agents.console.phones().await.unwrap().is_empty());
    assert!(b.agents.console.keep_phone(&id).await.is_err());
    assert_error(
        &b.inbox(Some(&late)).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
}

/// The cookie alone decides nothing and shows no call: another service on the same host (a
/// cookie is sent to every port) has the cookie but not the secret the page keeps for its own
/// origin. A wrong or missing secret changes nothing.
#[tokio::test]
async fn the_cookie_alone_neither_decides_nor_shows_a_call() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let asked = b
        .agents
        .ask(&terminal("claude-code.Bash", "rm -rf build"))
        .await;
    let before = crate::support::fingerprint(b.agents.console.store()).await;
    let cookie = format!("{COOKIE}={credential}");
    let decide_path = format!(
        "/phone/v1/approvals/{}/decide",
        asked["id"].as_str().unwrap()
    );
    for secret in [None, Some("0".repeat(64)), Some(String::new())] {
        let mut inbox = b
            .http
            .get(b.url("/phone/v1/inbox"))
            .header(header::COOKIE, &cookie);
        let mut decide = b
            .http
            .post(b.url(&decide_path))
            .header(header::ORIGIN, &b.origin)
            .header(header::COOKIE, &cookie)
            .json(&json!({ "digest": asked["digest"], "decision": "approve" }));
        if let Some(s) = &secret {
            inbox = inbox.header(SECRET_HEADER, s);
            decide = decide.header(SECRET_HEADER, s);
        }
        assert_error(&answer(inbox).await, StatusCode::FORBIDDEN, "forbidden");
        assert_error(&answer(decide).await, StatusCode::FORBIDDEN, "forbidden");
    }
    assert_eq!(
        crate::support::fingerprint(b.agents.console.store()).await,
        before
    );
    // The live stream too: not with the cookie alone, yes with the secret in its address (a
    // browser's EventSource sends no header).
    let events = |query: String| {
        b.http
            .get(b.url(&format!("/phone/v1/events{query}")))
            .header(header::COOKIE, &cookie)
            .send()
    };
    assert_eq!(
        events(String::new()).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        events("?s=f00".into()).await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    let secret = secret_of(&credential).unwrap();
    assert_eq!(
        events(format!("?s={secret}")).await.unwrap().status(),
        StatusCode::OK
    );
}

/// A listener as the window starts it takes no phone's request from this machine itself: an
/// agent here holding a phone's cookie and secret still decides nothing.
#[tokio::test]
async fn this_machine_is_no_phone() {
    let b = both_with(PhoneOptions::default()).await;
    for path in ["/phone/v1/inbox", "/phone/v1/me"] {
        let r = answer(
            b.http
                .get(b.url(path))
                .header(header::COOKIE, format!("{COOKIE}={}", "a".repeat(64))),
        )
        .await;
        assert_error(&r, StatusCode::FORBIDDEN, "forbidden");
        assert!(
            r.1["error"]["message"]
                .as_str()
                .unwrap()
                .contains("another device"),
            "{:?}",
            r.1
        );
    }
}

/// The six digits the phone shows after pairing are the window's beside Keep; a code presented
/// again after it paired a phone is said.
#[tokio::test]
async fn the_phone_and_the_window_show_the_same_digits_and_a_reused_code_is_said() {
    let b = both().await;
    let code = b.show_code();
    let r = b.pair(&code, "Phone").await;
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    let check = body["check"].as_str().unwrap().to_owned();
    assert_eq!(check.len(), 6);
    assert!(check.bytes().all(|c| c.is_ascii_digit()), "{check}");
    let listed = &b.agents.console.phones().await.unwrap()[0];
    assert_eq!(listed.check_code, check);
    assert_eq!(b.phone.code_reused_from(), None);
    // Someone else presents the same code after it paired: said, with where from.
    let again = b.pair(&code, "Other").await;
    assert_eq!(again.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        b.phone.code_reused_from(),
        Some(IpAddr::from([127, 0, 0, 1]))
    );
    // A new code clears it.
    b.show_code();
    assert_eq!(b.phone.code_reused_from(), None);
}

/// The decision on a phone checks the phone itself, where it is written, not only the request's
/// guard: a phone revoked (or showing another secret) after its request was let in decides
/// nothing. (Run one after the other here; the check's being inside the write's transaction is
/// `decide_on_phone`'s own.)
#[tokio::test]
async fn the_phone_is_checked_where_the_decision_is_written() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let secret = secret_of(&credential).unwrap();
    let asked = b
        .agents
        .ask(&terminal("claude-code.Bash", "make deploy"))
        .await;
    let id = countersign_domain::ids::ApprovalId::parse(asked["id"].as_str().unwrap()).unwrap();
    let digest = asked["digest"].as_str().unwrap();
    let console = &b.agents.console;
    let phone = console.phones().await.unwrap()[0].id.clone();
    let from: IpAddr = "192.168.1.23".parse().unwrap();
    let proof = |secret: &'static str| PhoneProof {
        phone_id: Box::leak(phone.clone().into_boxed_str()),
        secret,
        from,
    };
    let wrong = console
        .decide_on_phone(&id, digest, Decision::Approve, &proof("f00"))
        .await;
    assert!(wrong.is_err(), "{wrong:?}");
    console.revoke_phone(&phone).await.unwrap();
    let secret: &'static str = Box::leak(secret.into_boxed_str());
    let revoked = console
        .decide_on_phone(&id, digest, Decision::Approve, &proof(secret))
        .await;
    assert!(revoked.is_err(), "{revoked:?}");
    assert_eq!(
        console.approval(&id).await.unwrap().status,
        countersign_domain::approval::Status::Pending
    );
}

/// Each decision keeps the address it came from; the window lists each phone's last address,
/// and the one before when it changes.
#[tokio::test]
async fn a_decision_keeps_its_source_and_a_new_address_is_said() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let (_, asked) = b
        .agents
        .post("/v1/approvals", &terminal("claude-code.Bash", "ls"))
        .await;
    let r = b
        .decide(
            &credential,
            &asked["id"],
            json!({ "digest": asked["digest"], "decision": "approve" }),
        )
        .await;
    assert_eq!(r.0, StatusCode::OK, "{:?}", r.1);
    assert_eq!(r.1["decided_from"], "127.0.0.1");
    assert_eq!(r.1["decided_on"], "Phone");
    let listed = &b.agents.console.phones().await.unwrap()[0];
    assert_eq!(listed.last_source.as_deref(), Some("127.0.0.1"));
    assert_eq!(listed.previous_source, None);

    // The same phone from another address: said.
    let elsewhere = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&b.phone.certificate()).unwrap())
        .local_address(IpAddr::from([127, 0, 0, 9]))
        .build()
        .unwrap();
    let mut changes = b.agents.console.subscribe();
    let r = answer(
        elsewhere
            .get(b.url("/phone/v1/inbox"))
            .with_phone(&credential),
    )
    .await;
    assert_eq!(r.0, StatusCode::OK);
    let listed = &b.agents.console.phones().await.unwrap()[0];
    assert_eq!(listed.last_source.as_deref(), Some("127.0.0.9"));
    assert_eq!(listed.previous_source.as_deref(), Some("127.0.0.1"));
    assert!(listed.source_changed_at.is_some());
    let said = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok(countersign_engine::console::ChangeEvent::PhonesChanged) =
                changes.recv().await
            {
                break;
            }
        }
    })
    .await;
    assert!(said.is_ok(), "the window was told");
}

/// The phone's browser, from `from`.
fn phone_at(b: &crate::phone::Both, from: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&b.phone.certificate()).unwrap())
        .local_address(from)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// The phone reads the waiting calls five times, answered each time within 5 s: not after a
/// slot freed (the slow clients' requests run 15 s), but at once.
async fn served_at_once(b: &crate::phone::Both, phone: &reqwest::Client, credential: &str) {
    for _ in 0..5 {
        let started = Instant::now();
        let r = phone
            .get(b.url("/phone/v1/inbox"))
            .with_phone(credential)
            .send()
            .await
            .expect("the phone is served");
        assert_eq!(r.status(), StatusCode::OK);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Eight devices hold every slot with clients that never finish a request, and open more as
/// theirs are closed: the paired phone is still served, and an unauthenticated connection is
/// closed after its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_from_eight_addresses_do_not_keep_the_phone_out() {
    let b = std::sync::Arc::new(both().await);
    let credential = b.paired("Phone").await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut hogs = Vec::new();
    for n in 11..=18u8 {
        for _ in 0..8 {
            let (b, stop) = (b.clone(), stop.clone());
            hogs.push(tokio::spawn(async move {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let Ok(mut tls) = raw(&b, IpAddr::from([127, 0, 0, n])).await else {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    };
                    // A request begun and never finished, a byte at a time.
                    let authority = b.origin.trim_start_matches("https://").to_owned();
                    let head = format!("GET /phone/v1/inbox HTTP/1.1\r\nHost: {authority}\r\n");
                    for byte in head.bytes() {
                        if tls.write_all(&[byte]).await.is_err() {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                    }
                }
            }));
        }
    }
    // Let them take every slot.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let phone = phone_at(&b, IpAddr::from([127, 0, 0, 50]));
    served_at_once(&b, &phone, &credential).await;
    // An answer to a device that showed no phone's credential ends its connection.
    let mut tls = raw(&b, IpAddr::from([127, 0, 0, 60])).await.unwrap();
    let authority = b.origin.trim_start_matches("https://");
    tls.write_all(format!("GET /phone/v1/about HTTP/1.1\r\nHost: {authority}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut got = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(10), tls.read_to_end(&mut got)).await;
    assert!(
        ended.is_ok(),
        "the connection was kept open after its answer"
    );
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("connection: close"),
        "{text}"
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for h in hogs {
        h.abort();
    }
}

/// The phone's cards name their artifact by its title, as the window's do.
#[tokio::test]
async fn an_artifacts_call_is_named_by_the_artifacts_title() {
    let b = both().await;
    let credential = b.paired("Phone").await;
    let (status, saved) = b
        .agents
        .post(
            "/v1/artifacts",
            &json!({ "title": "Sales board", "description": "Monthly sales",
                "code": "export default function App() { return <p>hi</p>; }" }),
        )
        .await;
    assert!(status.is_success(), "{saved}");
    let mut call = terminal("tools.crm.user.main.deals.list", "list deals");
    call["artifact_id"] = saved["id"].clone();
    let (status, asked) = b.agents.post("/v1/approvals", &call).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    let (status, inbox) = b.inbox(Some(&credential)).await;
    assert_eq!(status, StatusCode::OK, "{inbox}");
    let artifacts = inbox["artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{inbox}");
    assert_eq!(artifacts[0]["artifact"]["id"], saved["id"]);
    assert_eq!(artifacts[0]["artifact"]["title"], "Sales board");
}

/// Sixty-four devices with one slow connection each, reopened as soon as closed: the phone,
/// from an address it was seen from, is served at once each time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_slow_connection_from_each_of_64_addresses_does_not_keep_the_phone_out() {
    let b = std::sync::Arc::new(both().await);
    let credential = b.paired("Phone").await;
    let phone = phone_at(&b, IpAddr::from([127, 0, 1, 50]));
    // Seen once from its address: a phone's from now on.
    let r = phone
        .get(b.url("/phone/v1/inbox"))
        .with_phone(&credential)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut hogs = Vec::new();
    for n in 0..64u8 {
        let (b, stop) = (b.clone(), stop.clone());
        hogs.push(tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let Ok(mut tls) = raw(&b, IpAddr::from([127, 0, 2, n])).await else {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let _ = tls.write_all(b"GET /phone/v1/inbox HTTP/1.1\r\n").await;
                let mut buf = [0u8; 64];
                // Held until the listener ends it.
                let _ = tokio::time::timeout(Duration::from_secs(20), tls.read(&mut buf)).await;
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    served_at_once(&b, &phone, &credential).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for h in hogs {
        h.abort();
    }
}
