import { useCallback, useEffect, useRef, useState } from "react";

import { api } from "../api/ipc";
import type { PairingCode } from "../api/types/PairingCode";
import type { PhoneSettings } from "../api/types/PhoneSettings";
import { stamp } from "../lib/time";
import { useConfirm } from "./Confirm";

/** How often the section reads the listener's state again (new phones, failed pairings). */
const POLL_MS = 2000;

const networkWords: Record<string, string> = { lan: "local network", tailscale: "Tailscale", test: "test address" };

/** Settings → Phone: the phone page's switch, its address, pairing by QR code, paired phones. */
export function PhoneSection() {
  const confirm = useConfirm();
  const [s, setS] = useState<PhoneSettings | null>(null);
  const [address, setAddress] = useState("");
  const [code, setCode] = useState<PairingCode | null>(null);
  const [shownAt, setShownAt] = useState(0);
  const [now, setNow] = useState(Date.now());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const known = useRef<Set<string> | null>(null);

  const take = useCallback((next: PhoneSettings) => {
    const ids = new Set(next.phones.map((p) => p.id));
    if (known.current) {
      // A redeemed code: the code is spent, and the phone waits below to be kept or refused.
      const added = next.phones.filter((p) => !known.current!.has(p.id));
      if (added.length > 0) {
        setCode(null);
        setNotice(null);
      }
    }
    known.current = ids;
    setS(next);
    // An address no longer offered is not kept picked.
    setAddress((a) => (next.addresses.some((x) => x.address === a) ? a : next.listening?.address ?? next.addresses[0]?.address ?? ""));
  }, []);

  useEffect(() => {
    let live = true;
    const read = () => void api.phoneSettings()
      .then((n) => { if (live) { take(n); setLoadError(null); } })
      .catch((e: unknown) => { if (live) setLoadError(e instanceof Error ? e.message : String(e)); });
    read();
    const t = window.setInterval(read, POLL_MS);
    return () => { live = false; window.clearInterval(t); };
  }, [take]);
  // The code's countdown, each second while one is shown.
  useEffect(() => {
    if (!code) return undefined;
    setNow(Date.now());
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, [code]);
  // Leaving Settings voids the code shown.
  useEffect(() => () => { void api.phoneHideCode(); }, []);

  if (!s) {
    return loadError
      ? <p className="error" role="alert" data-testid="phone-error">The phone settings could not be read: {loadError}</p>
      : <p className="muted">Loading…</p>;
  }
  /** Runs `f`; whether it succeeded (its failure is said under the section). */
  const act = async (f: () => Promise<PhoneSettings | void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const next = await f();
      if (next) take(next);
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const showCode = () => act(async () => {
    const asked = Date.now();
    setCode(await api.phoneCode());
    setShownAt(asked);
    setNotice(null);
  });
  const hideCode = () => act(async () => { await api.phoneHideCode(); setCode(null); });
  const left = code ? Math.min(code.valid_for_s, Math.max(0, code.valid_for_s - Math.ceil((now - shownAt) / 1000))) : 0;
  const on = s.listening;
  const proposed = s.phones.filter((p) => !p.kept);
  const kept = s.phones.filter((p) => p.kept);

  return (
    <section className="phone-settings" data-testid="phone-settings">
      <p className="muted">Approve or decline calls from your phone's browser, over this computer's local network or Tailscale — never through a cloud. Off until you turn it on. “Don't ask again” stays here at the desk.</p>
      {proposed.map((p) => (
        <div className="phone-proposal warning" role="alert" key={p.id} data-testid="phone-proposal" data-id={p.id}>
          <p><strong>A phone asks to pair: “<span data-testid="proposal-name">{p.name}</span>”</strong></p>
          <p>From <code className="mono" data-testid="proposal-from">{p.paired_from || "an unknown address"}</code>, at {stamp(p.paired_at)}.
            {" "}Its browser says: <code className="mono browser" data-testid="proposal-browser">{p.browser || "nothing"}</code></p>
          <p>Keep it only if the phone in your hand shows <strong className="check-code" data-testid="proposal-check">{p.check_code.replace(/(\d{3})(\d{3})/, "$1 $2")}</strong>.</p>
          <p className="muted">Until you keep it, it can see and decide nothing; a proposal nobody keeps is forgotten after 10 minutes.</p>
          <p className="row">
            <button className="primary" disabled={busy} data-testid="phone-keep" onClick={() => void act(() => api.keepPhone(p.id)).then((ok) => {
              if (ok) setNotice(`Kept: ${p.name}. Its approvals are recorded as made on it.`);
            })}>Keep</button>
            <button className="danger" disabled={busy} data-testid="phone-refuse" onClick={() => void act(() => api.revokePhone(p.id)).then((ok) => {
              if (ok) setNotice(`Refused: ${p.name}. It is not paired.`);
            })}>Refuse</button>
          </p>
        </div>
      ))}
      {on ? (
        <>
          <p data-testid="phone-on">On at <code className="mono" data-testid="phone-url">{on.url}</code>{" "}
            <button className="small" disabled={busy} onClick={() => void act(() => api.phoneStop()).then((ok) => { if (ok) setCode(null); })} data-testid="phone-off">Turn off</button></p>
          {!s.addresses.some((a) => a.address === on.address) && (
            <p className="warning" role="alert" data-testid="phone-address-gone">{on.address} is no longer one of this computer's addresses (the network changed): phones cannot reach the page there. Turn it off and on again on another address.</p>
          )}
          <p className="muted">Certificate SHA-256 <code className="mono fingerprint" data-testid="phone-fingerprint">{on.fingerprint}</code>
            {on.trusted ? " — issued through Tailscale for this computer's name: phones trust it without a warning." : ""}</p>
          {on.certificate_note && (
            <p className="notice" data-testid="phone-certificate-note">{on.certificate_note}</p>
          )}
          {!on.trusted && (
            <p className="warning" data-testid="phone-certificate-warning">The page uses a certificate this computer made. A phone's browser warns about it once, when you pair. If it ever warns again on a later visit, stop: do not go on — another device may be standing between the phone and this computer. Tailscale's certificate avoids the warning altogether.</p>
          )}
          {on.code_reused_from && (
            <p className="warning" role="alert" data-testid="phone-code-reused">
              The pairing code was presented again from {on.code_reused_from} after it had paired a phone. If that was your phone, someone else used the code first: refuse the phone waiting here, and show a new code.
            </p>
          )}
          {on.recent_failures > 0 && (
            <p className="warning" role="alert" data-testid="phone-failures">
              {on.recent_failures} failed pairing attempt{on.recent_failures === 1 ? "" : "s"} in the last minute. If that was not you, a device on this network is trying codes: hide the code, or turn the phone page off.
            </p>
          )}
          {code && left > 0 ? (
            <div className="pairing-code" data-testid="phone-code">
              <img src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(code.svg)}`} width={280} height={280}
                alt="QR code of the phone page's address with a one-time pairing code" data-testid="phone-qr" />
              <div>
                <p>Scan with the phone's camera and open the page.{on.trusted ? "" : " Your browser will warn that the certificate is not trusted: check in the browser's certificate details that its SHA-256 fingerprint is the one above, then go on."}</p>
                <p className="muted">Valid for {Math.floor(left / 60)}:{String(left % 60).padStart(2, "0")}, once. Anyone who sees this code can pair.</p>
                <details><summary>Address (to type it instead)</summary><code className="mono pairing-url" data-testid="phone-code-url">{code.url}</code></details>
                <button className="small" onClick={() => void hideCode()} data-testid="phone-hide-code">Hide code</button>
              </div>
            </div>
          ) : (
            <p><button className="primary" disabled={busy} onClick={() => void showCode()} data-testid="phone-show-code">Show pairing code</button>
              {code && <span className="muted"> The last code expired.</span>}</p>
          )}
        </>
      ) : s.addresses.length === 0 ? (
        <p className="notice" data-testid="phone-no-address">This computer has no private network or Tailscale address to offer the phone page on. Join a Wi-Fi or wired local network, or start Tailscale; the page is never offered on a public address.</p>
      ) : (
        <p className="row">
          <label htmlFor="phone-address">Address</label>
          <select id="phone-address" value={address} onChange={(e) => setAddress(e.target.value)} data-testid="phone-address">
            {s.addresses.map((a) => (
              <option key={a.address} value={a.address}>{a.address} — {networkWords[a.network] ?? a.network} ({a.interface})</option>
            ))}
          </select>
          <button className="primary" disabled={busy || !address} onClick={() => void act(() => api.phoneStart(address))} data-testid="phone-on-button">Turn on</button>
        </p>
      )}
      {notice && <p className="notice" role="status" data-testid="phone-notice">{notice}</p>}
      {error && <p className="error" role="alert" data-testid="phone-error">{error}</p>}
      <h3>Paired phones</h3>
      {kept.length === 0 ? <p className="muted" data-testid="phones-none">No phone is paired.</p> : (
        <table className="phones" data-testid="phones">
          <thead><tr><th>Name</th><th>Paired</th><th>Last used</th><th>Last address</th><th>Passkey</th><th /></tr></thead>
          <tbody>
            {kept.map((p) => (
              <tr key={p.id} data-testid="phone" data-id={p.id}>
                <td>
                  {renaming?.id === p.id ? (
                    <form onSubmit={(e) => { e.preventDefault(); void act(() => api.renamePhone(p.id, renaming.name)).then((ok) => { if (ok) setRenaming(null); }); }}>
                      <input autoFocus value={renaming.name} maxLength={100} aria-label="Phone name" data-testid="phone-rename-input"
                        onChange={(e) => setRenaming({ id: p.id, name: e.target.value })}
                        onKeyDown={(e) => { if (e.key === "Escape") setRenaming(null); }} />{" "}
                      <button type="submit" className="small">Save</button>
                    </form>
                  ) : <span data-testid="phone-name">{p.name}</span>}
                </td>
                <td>{stamp(p.paired_at)}</td>
                <td>{p.last_used_at === null ? <span className="muted">not yet</span> : stamp(p.last_used_at)}</td>
                <td data-testid="phone-source">
                  <code className="mono">{p.last_source ?? p.paired_from}</code>
                  {p.previous_source && p.source_changed_at !== null && (
                    <span className="warning-text" data-testid="phone-new-source"> — new since {stamp(p.source_changed_at)} (was <code className="mono">{p.previous_source}</code>)</span>
                  )}
                </td>
                <td>{p.passkey ? "asked at each decision" : <span className="muted">none</span>}</td>
                <td className="row">
                  <button className="small" onClick={() => setRenaming({ id: p.id, name: p.name })} data-testid="phone-rename">Rename</button>
                  <button className="small danger" data-testid="phone-revoke" onClick={() => void (async () => {
                    const ok = await confirm(`Revoke “${p.name}”?`, "It is refused from its next request, and its page stops updating. Decisions made on it stay in History.", "Revoke");
                    if (ok) await act(() => api.revokePhone(p.id));
                  })()}>Revoke…</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
