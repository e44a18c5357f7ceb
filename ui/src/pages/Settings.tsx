import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Settings as SettingsData } from "../api/types/Settings";
import { Agents } from "../components/Agents";
import { useConfirm } from "../components/Confirm";
import { MachineTokens } from "../components/MachineTokens";
import { TeamLink } from "../components/TeamLink";
import { PhoneSection } from "../components/PhoneSettings";

/** The API address, the token, the data directory, notifications, the agents, the machines
 * with agent tokens, the phone. */
export function Settings({ onMachinesChange, onTeamChange }: { onMachinesChange?: () => void; onTeamChange?: () => void }) {
  const confirm = useConfirm();
  const [s, setS] = useState<SettingsData | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => { void api.settings().then(setS); }, []);
  if (!s) return <div className="page"><p className="muted">Loading…</p></div>;

  const copy = async (text: string) => {
    try { await navigator.clipboard.writeText(text); setMessage("Copied."); }
    catch { setMessage("Could not copy; select the text instead."); }
  };
  const rotate = async () => {
    const ok = await confirm("Replace the API token?",
      "Agents using the old token are refused until they get the new one.", "Replace token");
    if (!ok) return;
    try {
      setToken(await api.rotateToken());
      setMessage("Token replaced. The old one no longer works.");
    } catch (e) {
      setMessage(`The token was not replaced: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return (
    <div className="page settings">
      <h1>Settings</h1>
      <dl>
        <dt>Local API</dt>
        <dd><code className="mono" data-testid="api-url">{s.api_url}</code> <button className="small" onClick={() => void copy(s.api_url)}>Copy</button></dd>
        <dt>API token</dt>
        <dd>
          <code className="mono token" data-testid="token">{token ?? "••••••••••••••••••••••••••••••••"}</code>{" "}
          {token === null
            ? <button className="small" data-testid="reveal-token" onClick={() => void api.revealToken().then(setToken)}>Reveal</button>
            : <button className="small" onClick={() => setToken(null)}>Hide</button>}{" "}
          <button className="small" onClick={() => void api.revealToken().then(copy)}>Copy</button>{" "}
          <button className="small danger" data-testid="rotate-token" onClick={() => void rotate()}>Rotate…</button>
          <p className="muted">Kept in {s.token_store}. Also printed by <code>countersign token</code>.</p>
        </dd>
        <dt>Data directory</dt>
        <dd><code className="mono">{s.data_dir}</code></dd>
        <dt>Notifications</dt>
        <dd>
          <label><input type="checkbox" data-testid="notifications-toggle" checked={s.notifications}
            onChange={(e) => void api.setNotifications(e.target.checked).then(setS)} /> Notify me when an approval is waiting</label>
          <p className="muted" data-testid="notifications-status">{s.notifications_status}</p>
        </dd>
      </dl>
      {message && <p className="notice" role="status" data-testid="settings-message">{message}</p>}
      <h2>Agents</h2>
      <Agents />
      <h2>Agents on other machines</h2>
      <MachineTokens onChange={onMachinesChange} />
      <h2>Team console</h2>
      <TeamLink onChange={onTeamChange} />
      <h2>Phone</h2>
      <PhoneSection />
    </div>
  );
}
