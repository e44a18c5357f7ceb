import { useCallback, useEffect, useRef, useState } from "react";

import type { ArtifactTitle } from "../components/ApprovalCard";
import type { Decision } from "../api/types/Decision";
import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";
import { Since } from "../components/Clock";
import { groupOf, WhatItDoes, warning, Who } from "../components/InboxRow";
import { useArming } from "../lib/arming";
import { decideWith, deviceName, eventsUrl, fromBase64Url, phone, PhoneError, phoneBody, registerPasskey } from "./api";
import { nextList } from "./list";

type Live = "connecting" | "live" | "lost";

/**
 * The phone page (decision 0023): pair with the code from the window's QR code, then the
 * waiting calls and each whole card, to approve or decline one call. Rules stay at the desk.
 */
export function PhoneApp({ code }: { code: string | null }) {
  const [pairCode, setPairCode] = useState(code);
  const [fingerprint, setFingerprint] = useState<string | null>(null);
  const [pushKey, setPushKey] = useState<string | null>(null);
  /** Whether the page asks for the passkey at each decision, and whether this phone has one. */
  const [passkeys, setPasskeys] = useState<{ asked: boolean; held: boolean }>({ asked: false, held: false });
  const [trusted, setTrusted] = useState(true);
  const [titles, setTitles] = useState<Map<string, ArtifactTitle>>(new Map());
  const [state, setState] = useState<"loading" | "unpaired" | "proposed" | "secret-lost" | "ready" | "failed">("loading");
  /** The six digits the window shows beside Keep, while this phone waits to be kept. */
  const [check, setCheck] = useState<string | null>(null);
  const [list, setList] = useState<Presented[]>([]);
  const [waiting, setWaiting] = useState(0);
  const [beyond, setBeyond] = useState(0);
  const [open, setOpen] = useState<Presented | null>(null);
  const [gone, setGone] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [live, setLive] = useState<Live>("connecting");
  const shown = useRef<string[] | null>(null);
  const openId = useRef<string | null>(null);
  openId.current = open?.approval.id ?? null;

  useEffect(() => {
    void phone.about().then((a) => { setFingerprint(a.fingerprint); setPushKey(a.push_key); setTrusted(a.trusted); }).catch(() => undefined);
  }, []);

  const refresh = useCallback(async (takeNew: boolean) => {
    try {
      const page = await phone.inbox();
      const next = nextList(shown.current, page.first, takeNew);
      shown.current = next.list.map((p) => p.approval.id);
      setList(next.list);
      setWaiting(next.waiting);
      setBeyond(page.ids.length - page.first.length);
      setGone(openId.current !== null && !page.ids.includes(openId.current));
      setTitles(new Map(page.artifacts.map((s) => [s.artifact.id, { title: s.artifact.title, marks: s.marks["title"] }])));
      setState("ready");
    } catch (e) {
      if (e instanceof PhoneError && e.status === 401) setState("unpaired");
      else if (e instanceof PhoneError && e.status === 403 && /kept at the desk/.test(e.message)) {
        setState("proposed");
      } else if (e instanceof PhoneError && e.status === 403 && /secret/.test(e.message)) {
        setState("secret-lost");
      } else {
        setMessage(e instanceof Error ? e.message : String(e));
        // The first read failed: say so, with a way to try again.
        setState((was) => (was === "loading" ? "failed" : was));
      }
    }
  }, []);

  useEffect(() => { if (pairCode === null) void refresh(false); }, [pairCode, refresh]);
  // A code scanned while the page is open arrives as a new fragment, with no reload: taken, and
  // out of the address at once, as at the start.
  useEffect(() => {
    const onHash = () => {
      const next = new URLSearchParams(location.hash.slice(1)).get("pair");
      if (location.hash) history.replaceState(null, "", location.pathname + location.search);
      if (next) { setMessage(null); setPairCode(next); }
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);
  // Waiting to be kept at the desk: asks again every two seconds.
  useEffect(() => {
    if (state !== "proposed") return undefined;
    if (check === null) void phone.me().then((me) => setCheck(me.check)).catch(() => undefined);
    const t = window.setInterval(() => void refresh(false), 2000);
    return () => window.clearInterval(t);
  }, [state, refresh, check]);
  // A phone already paired that scans a code again is not paired twice.
  useEffect(() => {
    if (code === null) return;
    void phone.inbox().then(() => {
      setPairCode(null);
      setMessage("This phone is already paired; the code was not used. To pair it anew, revoke it in the window's Settings first.");
    }).catch(() => undefined);
  }, [code]);

  // Whether this page asks for the phone's passkey, once paired.
  useEffect(() => {
    if (state !== "ready") return;
    void phone.me().then((me) => setPasskeys({ asked: me.passkeys, held: me.passkey })).catch(() => undefined);
  }, [state]);

  // Live updates while paired: each change reads the list again; a lost stream reconnects by
  // itself, and reads again on its return in case a change was missed meanwhile.
  useEffect(() => {
    if (state !== "ready") return undefined;
    const events = new EventSource(eventsUrl());
    let lost = false;
    events.onopen = () => { setLive("live"); if (lost) void refresh(false); lost = false; };
    events.addEventListener("change", () => void refresh(false));
    events.onerror = () => {
      lost = true;
      setLive("lost");
      // Closed for good (a revoked phone is refused): say why.
      if (events.readyState === EventSource.CLOSED) void refresh(false);
    };
    const onVisible = () => { if (document.visibilityState === "visible") void refresh(false); };
    document.addEventListener("visibilitychange", onVisible);
    return () => { events.close(); document.removeEventListener("visibilitychange", onVisible); };
  }, [state, refresh]);

  const actions: CardActions = {
    decide: async (id: string, digest: string, d: Decision) => {
      const body = phoneBody(digest, d);
      const done = await decideWith(passkeys.asked, id, body);
      setOpen(null);
      setMessage(done.status !== "approved"
        ? (done.call.card === "plan" ? "Sent back. The agent keeps planning with your words." : "Declined. The agent was told.")
        : d.decision === "answer" ? "Answered. The agent has your answers."
        : "Approved. The agent goes on.");
      await refresh(false);
    },
    openArtifact: () => setMessage("Artifacts open in Countersign's window."),
    artifactTitle: (id: string) => titles.get(id) ?? null,
    report: setMessage,
  };

  return (
    <div className="phone-app">
      <header className="phone-bar">
        {open ? <button className="phone-back" onClick={() => { setOpen(null); setGone(false); }} data-testid="phone-back">‹ Waiting</button>
          : <span className="brand">Countersign</span>}
        {state === "ready" && <span className={`live live-${live}`} data-testid="phone-live">{live === "live" ? "● live" : live === "lost" ? "○ reconnecting…" : "○ connecting…"}</span>}
      </header>
      {message && (
        <div className="notice phone-message" role="status">
          <span data-testid="phone-message">{message}</span>
          <button className="phone-dismiss" aria-label="Dismiss" onClick={() => setMessage(null)}>×</button>
        </div>
      )}
      {pairCode !== null ? (
        <Pairing code={pairCode} onPaired={(digits) => { setPairCode(null); setCheck(digits); setState("proposed"); }} onError={setMessage} />
      ) : state === "loading" ? (
        <p className="muted phone-pad">Loading…</p>
      ) : state === "failed" ? (
        <p className="phone-pad"><button onClick={() => { setState("loading"); void refresh(false); }} data-testid="phone-retry">Try again</button></p>
      ) : state === "proposed" ? (
        <section className="phone-pad" data-testid="phone-proposed">
          <h1>Keep this phone at the desk</h1>
          {check && (
            <p className="phone-check" data-testid="phone-check">This phone shows <strong>{check.replace(/(\d{3})(\d{3})/, "$1 $2")}</strong></p>
          )}
          <p>On the computer, Countersign's window shows this phone under <b>Settings → Phone</b>, with the address it paired from{check ? " and the same six digits" : ""}. Press <b>Keep</b> there{check ? " only if the digits match" : ""}. Until then this phone sees and decides nothing.</p>
          <p className="muted">Waiting… (a pairing nobody keeps is forgotten after 10 minutes)</p>
        </section>
      ) : state === "secret-lost" ? (
        <section className="phone-pad" data-testid="phone-secret-lost">
          <h1>Pair this phone again</h1>
          <p>This page no longer holds what its pairing gave it (the browser's site data was cleared, or this is another browser). In the window, revoke this phone under <b>Settings → Phone</b> and pair it again.</p>
        </section>
      ) : state === "unpaired" ? (
        <section className="phone-pad" data-testid="phone-unpaired">
          <h1>This phone is not paired</h1>
          <p>On the computer, open Countersign, go to <b>Settings → Phone</b>, choose <b>Show pairing code</b> and scan the QR code with this phone's camera.</p>
          <p className="muted">A phone stops being paired when it is revoked in Settings or unused for 90 days.</p>
        </section>
      ) : open ? (
        <CardView p={open} gone={gone} actions={actions} />
      ) : (
        <>
          {passkeys.asked && !passkeys.held && (
            <Passkey onMade={() => setPasskeys({ asked: true, held: true })} />
          )}
          <Waiting list={list} waiting={waiting} beyond={beyond} onOpen={(p) => { setMessage(null); setOpen(p); }}
            onShowNew={() => void refresh(true)} />
          {pushKey && <Notifications pushKey={pushKey} />}
        </>
      )}
      {fingerprint && (
        <footer className="muted phone-fingerprint" data-testid="phone-fingerprint">
          Certificate SHA-256 <code className="mono">{fingerprint}</code>
          {!trusted && (
            <p className="phone-certificate-warning" data-testid="phone-certificate-warning">
              Your browser warned about this page's certificate once, when you paired. If it warns again on any later visit, stop: do not go on — another device may be in the middle.
            </p>
          )}
        </footer>
      )}
    </div>
  );
}

function Pairing({ code, onPaired, onError }: { code: string; onPaired: (check: string) => void; onError: (m: string) => void }) {
  const [name, setName] = useState(() => deviceName(navigator.userAgent));
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    try {
      const paired = await phone.pair(code, name);
      onPaired(paired.check);
    } catch (e) {
      onError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <form className="phone-pad pairing" data-testid="phone-pairing" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h1>Pair this phone</h1>
      <p>It will show the calls your agents wait on, for you to approve or decline one at a time.</p>
      <label htmlFor="phone-name">Name this phone (shown in the window and in History)</label>
      <input id="phone-name" data-testid="phone-name" value={name} maxLength={100} required onChange={(e) => setName(e.target.value)} />
      <button type="submit" className="primary" disabled={busy || name.trim() === ""} data-testid="phone-pair">Pair</button>
      <p className="muted">Before pairing, check that the certificate fingerprint below is the one the window shows beside the QR code — in your browser's own certificate details too.</p>
    </form>
  );
}

function Waiting({ list, waiting, beyond, onOpen, onShowNew }: {
  list: Presented[]; waiting: number; beyond: number; onOpen: (p: Presented) => void; onShowNew: () => void;
}) {
  return (
    <section className="phone-list" data-testid="phone-list">
      {waiting > 0 && (
        <button className="notice-bar phone-new" onClick={onShowNew} data-testid="phone-new">
          {waiting} new request{waiting === 1 ? "" : "s"} — show
        </button>
      )}
      <h1 className="phone-pad">Waiting for you <span className="badge-count" data-testid="phone-count">{list.length}</span></h1>
      {list.length === 0 && <p className="muted phone-pad" data-testid="phone-empty">Nothing is waiting. New requests appear here.</p>}
      <ul className="phone-rows">
        {list.map((p) => {
          const a = p.approval;
          const warn = warning(p);
          return (
            <li key={a.id}>
              <button className="phone-row" onClick={() => onOpen(p)} data-testid="phone-row" data-id={a.id}>
                <span className="phone-row-title">
                  {warn && <span className="bad" aria-label={`Warning: ${warn}`} title={warn}>⚠ </span>}
                  <WhatItDoes p={p} />
                </span>
                <span className="muted phone-row-who">
                  <Who group={groupOf(p)} /> · <code className="mono">{a.tool}</code> · <Since at={a.created_at} />
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {beyond > 0 && <p className="muted phone-pad">and {beyond} more waiting: the newest 50 are here, all are in the window.</p>}
    </section>
  );
}

function CardView({ p, gone, actions }: { p: Presented; gone: boolean; actions: CardActions }) {
  const [declining, setDeclining] = useState(false);
  const { armed } = useArming(`${p.approval.id}:${p.approval.digest}`);
  return (
    <div className="phone-card">
      {gone && <p className="warning phone-pad" role="alert" data-testid="phone-gone">This call is no longer waiting: it was decided at the desk, withdrawn or expired.</p>}
      <ApprovalCard p={p} selected actions={actions} armed={armed && !gone} declining={declining} setDeclining={setDeclining} onPhone />
      <p className="muted phone-pad digest">Digest <code className="mono" data-testid="phone-digest">{p.approval.digest}</code></p>
    </div>
  );
}

type PushState = "checking" | "off" | "on" | "unsupported" | "denied";

/** Pushes to this phone: "N calls waiting", never a call's content. Browsers allow them only
 * from a page whose certificate they trust. */
function Notifications({ pushKey }: { pushKey: string }) {
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  const [state, setState] = useState<PushState>(supported ? "checking" : "unsupported");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!supported) return;
    void navigator.serviceWorker.getRegistration("/")
      .then((reg) => reg?.pushManager.getSubscription())
      .then((sub) => setState(sub ? "on" : Notification.permission === "denied" ? "denied" : "off"))
      .catch(() => setState("off"));
  }, [supported]);
  const turnOn = async () => {
    setBusy(true);
    setError(null);
    try {
      if (await Notification.requestPermission() !== "granted") { setState("denied"); return; }
      const reg = await navigator.serviceWorker.register("/phone-sw.js", { scope: "/" });
      await navigator.serviceWorker.ready;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64Url(pushKey) });
      await phone.pushOn(sub.toJSON());
      setState("on");
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      setError(e instanceof DOMException && (e.name === "SecurityError" || /SSL|certificate/i.test(text))
        ? "This browser sends notifications only to a page whose certificate it trusts: install this page's certificate on the phone, or reach it by its Tailscale name."
        : `Notifications could not be turned on: ${text}`);
    } finally {
      setBusy(false);
    }
  };
  const turnOff = async () => {
    setBusy(true);
    setError(null);
    try {
      const sub = await (await navigator.serviceWorker.getRegistration("/"))?.pushManager.getSubscription();
      await sub?.unsubscribe();
      await phone.pushOff();
      setState("off");
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="phone-pad phone-push" data-testid="phone-push">
      <h2>Notifications</h2>
      {state === "unsupported" && <p className="muted">This browser cannot receive notifications from a page (on an iPhone, add the page to the Home Screen first).</p>}
      {state === "denied" && <p className="muted">Notifications are blocked for this page in the browser's settings.</p>}
      {state === "off" && (
        <p><button disabled={busy} onClick={() => void turnOn()} data-testid="phone-push-on">Notify me on this phone</button>{" "}
          <span className="muted">“3 calls waiting” — nothing about the calls passes through the push service.</span></p>
      )}
      {state === "on" && (
        <p>This phone is notified when calls wait.{" "}
          <button disabled={busy} onClick={() => void turnOff()} data-testid="phone-push-off">Turn off</button></p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}

/** Where the page asks for passkeys: this phone makes its own, right after pairing. */
function Passkey({ onMade }: { onMade: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const make = async () => {
    setBusy(true);
    setError(null);
    try {
      await registerPasskey();
      onMade();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="phone-pad phone-passkey" data-testid="phone-passkey">
      <p className="notice">This page asks for this phone's passkey (your fingerprint, face or screen lock) at every decision. Make it now: it can be made only in the first minutes after pairing.</p>
      <p><button className="primary" disabled={busy} onClick={() => void make()} data-testid="phone-passkey-make">Make a passkey</button></p>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
