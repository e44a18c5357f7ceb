import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { AgentTokenInfo } from "../api/types/AgentTokenInfo";
import type { MachineSettings } from "../api/types/MachineSettings";
import type { MadeToken } from "../api/types/MadeToken";
import { stamp } from "../lib/time";
import { useConfirm } from "./Confirm";

const said = (e: unknown) => (e instanceof Error ? e.message : String(e));

const networkWords: Record<string, string> = { lan: "local network", tailscale: "Tailscale", test: "test address" };

/** What a person runs on an agent's machine to have its agents ask this console: it asks
 * for the token, which it keeps for them. */
export function setupCommand(listening: MachineSettings["listening"]): string {
  return `countersign console use ${listening?.url ?? "https://<this computer>:<port>"} --fingerprint ${listening?.fingerprint ?? "<shown once listening>"}`;
}

/**
 * Settings → Agents on other machines: the listener for agents on other machines (a dev
 * container, an SSH host, a CI runner), on an address the person picks; one agent token per
 * machine, made here or with `countersign agents token create`, shown once, listed by the name
 * the person gave it, and revoked here.
 */
export function MachineTokens({ onChange }: { onChange?: () => void }) {
  const confirm = useConfirm();
  const [s, setS] = useState<MachineSettings | null>(null);
  const [address, setAddress] = useState("");
  const [name, setName] = useState("");
  const [made, setMade] = useState<MadeToken | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const take = (next: MachineSettings) => {
    setS(next);
    setAddress((a) => (next.addresses.some((x) => x.address === a) ? a : next.listening?.address ?? next.addresses[0]?.address ?? ""));
  };
  useEffect(() => {
    let live = true;
    api.machineSettings()
      .then((n) => { if (live) take(n); })
      .catch((e: unknown) => { if (live) setError(`Agents on other machines could not be read: ${said(e)}`); });
    return () => { live = false; };
  }, []);

  const act = async (what: string, f: () => Promise<void>) => {
    setBusy(true); setError(null); setNotice(null);
    try { await f(); } catch (e) { setError(`${what}: ${said(e)}`); } finally { setBusy(false); }
  };
  const make = () => act("No token was made", async () => {
    const m = await api.createAgentToken(name);
    setMade(m);
    setName("");
    take(await api.machineSettings());
    onChange?.();
  });
  const revoke = async (t: AgentTokenInfo) => {
    const ok = await confirm(`Revoke “${t.name}”?`,
      "Its agents are refused from their next request, and their calls waiting now are withdrawn. What they asked stays in History.",
      "Revoke");
    if (!ok) return;
    await act(`“${t.name}” was not revoked`, async () => {
      take(await api.revokeAgentToken(t.id));
      if (made?.info.id === t.id) setMade(null);
      setNotice(`“${t.name}” is revoked.`);
      onChange?.();
    });
  };
  const copy = async (text: string) => {
    try { await navigator.clipboard.writeText(text); setNotice("Copied."); }
    catch { setNotice("Could not copy; select the text instead."); }
  };

  if (!s) return <section className="machines">{error ? <p className="error" role="alert">{error}</p> : <p className="muted">Loading…</p>}</section>;
  const listening = s.listening;
  return (
    <section className="machines" data-testid="machines">
      <p className="muted">
        Agents on another machine ask this console over TLS, each machine with a token of its own. Their calls are marked
        with the machine's name; your approve rules never decide them, only your decline rules.
      </p>
      {listening ? (
        <dl className="listening" data-testid="machines-listening">
          <dt>Address</dt>
          <dd><code className="mono" data-testid="machines-url">{listening.url}</code>{" "}
            <button className="small" onClick={() => void copy(listening.url)}>Copy</button>{" "}
            <button className="small danger" disabled={busy} data-testid="machines-off"
              onClick={() => void act("Still listening", async () => take(await api.machinesStop()))}>Stop listening</button></dd>
          <dt>Certificate</dt>
          <dd><code className="mono fingerprint" data-testid="machines-fingerprint">{listening.fingerprint}</code>{" "}
            <button className="small" onClick={() => void copy(listening.fingerprint)}>Copy</button>
            <p className="muted">Agents pin this SHA-256 fingerprint: they send nothing to a certificate without it.</p></dd>
        </dl>
      ) : s.addresses.length === 0 ? (
        <p className="notice" data-testid="machines-no-address">This computer has no private network or Tailscale address to listen on. Join a local network or start Tailscale; agents are never served on a public address from here (<code>countersign serve --listen</code> can).</p>
      ) : (
        <p className="row">
          <label htmlFor="machines-address">Listen on</label>
          <select id="machines-address" value={address} onChange={(e) => setAddress(e.target.value)} data-testid="machines-address">
            {s.addresses.map((a) => (
              <option key={a.address} value={a.address}>{a.address} — {networkWords[a.network] ?? a.network} ({a.interface})</option>
            ))}
          </select>
          <button className="primary" disabled={busy || !address} data-testid="machines-on"
            onClick={() => void act("Not listening", async () => take(await api.machinesStart(address)))}>Listen</button>
        </p>
      )}
      <form className="row" onSubmit={(e) => { e.preventDefault(); void make(); }}>
        <label htmlFor="machine-name">Machine</label>
        <input id="machine-name" value={name} maxLength={100} placeholder="ci-runner-3" data-testid="machine-name"
          onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="primary" disabled={busy || name.trim() === ""} data-testid="machine-make">Make a token</button>
      </form>
      {made && (
        <div className="notice made-token" role="status" data-testid="machine-made">
          <p>On <strong>{made.info.name}</strong>, run this; it asks for the token below and keeps it for that machine's agents.</p>
          <pre className="mono" data-testid="machine-setup">{setupCommand(listening)}</pre>
          <p><button className="small" onClick={() => void copy(setupCommand(listening))}>Copy command</button></p>
          <p>The token, shown this once:</p>
          <pre className="mono token" data-testid="machine-token">{made.token}</pre>
          <p><button className="small" onClick={() => void copy(made.token)}>Copy token</button>{" "}
            <button className="small" onClick={() => setMade(null)} data-testid="machine-made-done">Done</button></p>
        </div>
      )}
      {notice && <p className="notice" role="status" data-testid="machine-notice">{notice}</p>}
      {error && <p className="error" role="alert" data-testid="machine-error">{error}</p>}
      {s.tokens.length === 0 ? (
        <p className="muted" data-testid="machines-none">No machine has a token.</p>
      ) : (
        <table className="phones" data-testid="machine-list">
          <thead><tr><th>Machine</th><th>Made</th><th>Last used</th><th /></tr></thead>
          <tbody>
            {s.tokens.map((t) => (
              <tr key={t.id} data-testid="machine" data-id={t.id} className={t.revoked_at !== null ? "revoked" : undefined}>
                <td data-testid="machine-row-name">{t.name}</td>
                <td>{stamp(t.created_at)}</td>
                <td>{t.last_used_at === null ? <span className="muted">never</span> : stamp(t.last_used_at)}</td>
                <td>
                  {t.revoked_at !== null
                    ? <span className="muted" data-testid="machine-revoked">revoked {stamp(t.revoked_at)}</span>
                    : <button className="small danger" disabled={busy} data-testid="machine-revoke" onClick={() => void revoke(t)}>Revoke…</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
