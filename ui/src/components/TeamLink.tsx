import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { TeamConnection } from "../api/types/TeamConnection";
import { useConfirm } from "./Confirm";

const said = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Settings → Team console: the team console this window reads beside its own. A person links
 * the window on the team's page ("Link Countersign's window", confirmed with their passkey),
 * and pastes what it gives here with the page's address and its certificate's fingerprint.
 */
export function TeamLink({ onChange }: { onChange?: () => void }) {
  const confirm = useConfirm();
  const [c, setC] = useState<TeamConnection | null | undefined>(undefined);
  const [page, setPage] = useState("");
  const [fingerprint, setFingerprint] = useState("");
  const [link, setLink] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.teamConnection()
      .then((n) => { if (live) setC(n); })
      .catch((e: unknown) => { if (live) { setC(null); setError(`The team console could not be read: ${said(e)}`); } });
    return () => { live = false; };
  }, []);

  const connect = async () => {
    setBusy(true); setError(null);
    try {
      setC(await api.teamConnect(page.trim(), fingerprint.trim(), link.trim()));
      setLink("");
      onChange?.();
    } catch (e) { setError(`Not linked: ${said(e)}`); } finally { setBusy(false); }
  };
  const disconnect = async () => {
    if (!await confirm("Stop reading this team console?", "The window's link is signed out there and forgotten here. Link the window again on the team's page to read it again.", "Stop reading")) return;
    setBusy(true); setError(null);
    try {
      const notThere = await api.teamDisconnect();
      setC(null);
      if (notThere) setError(notThere);
      onChange?.();
    } catch (e) { setError(said(e)); } finally { setBusy(false); }
  };
  /** A new link for the same page and certificate (the last one ended). */
  const replace = async () => {
    if (!c) return;
    setBusy(true); setError(null);
    try { setC(await api.teamConnect(c.page, c.fingerprint, link.trim())); setLink(""); onChange?.(); }
    catch (e) { setError(`Not linked: ${said(e)}`); } finally { setBusy(false); }
  };

  if (c === undefined) return <section className="team-link"><p className="muted">Loading…</p></section>;
  return (
    <section className="team-link" data-testid="team-link">
      {c ? (
        <>
          <dl className="listening">
            <dt>Team</dt>
            <dd data-testid="team-link-name">{c.team ?? "—"}{c.person && <span className="muted"> · signed in as {c.person} ({c.role}), reading only</span>}</dd>
            <dt>Page</dt>
            <dd><code className="mono">{c.page}</code></dd>
            <dt>Certificate</dt>
            <dd><code className="mono fingerprint">{c.fingerprint}</code></dd>
          </dl>
          {c.error && <p className="error" role="alert" data-testid="team-link-error">{c.error}</p>}
          <form className="row" onSubmit={(e) => { e.preventDefault(); void replace(); }}>
            <label htmlFor="team-new-link">A new link for this page</label>
            <input id="team-new-link" className="mono" type="password" autoComplete="off" value={link} onChange={(e) => setLink(e.target.value)} data-testid="team-new-link" />
            <button type="submit" disabled={busy || !link.trim()} data-testid="team-replace-link">Replace link</button>
          </form>
          <p><button className="danger" disabled={busy} onClick={() => void disconnect()} data-testid="team-unlink">Stop reading this team console</button></p>
        </>
      ) : (
        <form className="team-link-form" onSubmit={(e) => { e.preventDefault(); void connect(); }}>
          <p className="muted">
            Read a team console's waiting calls here, beside this computer's own, under the team's name. On the team's page,
            signed in, choose <b>Link Countersign's window</b> and confirm with your passkey; paste what it gives below. The
            window reads; you decide each call on the team's page, with your passkey.
          </p>
          <label htmlFor="team-page">The team's page</label>
          <input id="team-page" data-testid="team-page" placeholder="https://console.example.com:8443" value={page} onChange={(e) => setPage(e.target.value)} />
          <label htmlFor="team-fingerprint">Its certificate's fingerprint (SHA-256, from the console's admin: <code>serve</code> prints it)</label>
          <input id="team-fingerprint" data-testid="team-fingerprint" className="mono" value={fingerprint} onChange={(e) => setFingerprint(e.target.value)} />
          <label htmlFor="team-window-link">The window's link (csw_…)</label>
          <input id="team-window-link" data-testid="team-window-link" className="mono" type="password" autoComplete="off" value={link} onChange={(e) => setLink(e.target.value)} />
          <p><button type="submit" className="primary" disabled={busy || !page.trim() || !fingerprint.trim() || !link.trim()} data-testid="team-connect">Link</button></p>
        </form>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
