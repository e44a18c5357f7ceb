import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { AgentStatus } from "../api/types/AgentStatus";
import { Since } from "./Clock";
import { useConfirm } from "./Confirm";

/** Each agent Countersign supports: on this machine or not, its hook installed or not, when it
 * last asked; Install and Remove run the same code as `countersign hook install|uninstall`. */
export function Agents() {
  const confirm = useConfirm();
  const [agents, setAgents] = useState<AgentStatus[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    api.agents().then(setAgents).catch((e: Error) => setMessage(e.message));
  }, []);

  const act = async (a: AgentStatus, install: boolean) => {
    if (!install) {
      const ok = await confirm(`Remove Countersign's hook from ${a.title}?`,
        `${a.title} will no longer ask Countersign before its calls run. Its other settings stay.`,
        "Remove hook");
      if (!ok) return;
    }
    setBusy(a.agent);
    setMessage(null);
    try {
      setAgents(await (install ? api.installAgentHook(a.agent) : api.removeAgentHook(a.agent)));
      setMessage(install
        ? `${a.title}: hook installed in ${a.settings ?? "its settings"}.${a.note ? ` ${a.note}.` : ""}`
        : `${a.title}: hook removed.`);
    } catch (e) {
      setMessage(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };

  if (!agents) return <p className="muted">{message ?? "Looking for agents…"}</p>;
  return (
    <div data-testid="agents">
      <table className="grid agents">
        <thead><tr><th>Agent</th><th>On this machine</th><th>Hook</th><th>Last request</th><th /></tr></thead>
        <tbody>
          {agents.map((a) => (
            <tr key={a.agent} data-testid="agent-row" data-agent={a.agent} data-installed={a.hook_installed}>
              <td><strong>{a.title}</strong></td>
              <td className="found">
                {a.found !== null
                  ? <span className="pill pill-new">found</span>
                  : <span className="pill">not found</span>}
                {a.found !== null && <div className="muted small mono">{a.found}</div>}
              </td>
              <td>{a.hook_installed
                ? <><span className="pill pill-new" data-testid="hook-installed">installed</span>
                    <div className="muted small mono">{a.settings}</div></>
                : a.installable
                  ? <span className="pill" data-testid="hook-missing">not installed</span>
                  : <span className="pill" data-testid="hook-missing">set up by hand</span>}
                {!a.hook_installed && !a.installable &&
                  <div className="muted small how" data-testid="install-elsewhere">{a.note}</div>}</td>
              <td>{a.last_request_at !== null ? <Since at={a.last_request_at} /> : <span className="muted">never</span>}</td>
              <td className="actions">
                {a.hook_installed
                  ? <button className="small danger" disabled={busy !== null} data-testid="remove-hook"
                      onClick={() => void act(a, false)}>Remove…</button>
                  : a.installable &&
                    <button className="small" disabled={busy !== null} data-testid="install-hook"
                      onClick={() => void act(a, true)}>{busy === a.agent ? "Installing…" : "Install"}</button>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Installing keeps every other setting of the agent and leaves a backup beside the file. The same from a terminal: <code>countersign hook install &lt;agent&gt;</code>.</p>
      {message && <p className="notice" role="status" data-testid="agents-message">{message}</p>}
    </div>
  );
}
