import { useEffect, useRef, useState } from "react";

import type { Waiting } from "../lib/inbox";
import { Since } from "./Clock";
import { Who } from "./InboxRow";

const calls = (n: number) => `${n.toLocaleString("en-US")} call${n === 1 ? "" : "s"}`;

/**
 * One chip per agent and project with its count and its oldest wait ("Codex · api-server ·
 * 3 · 4 min ago"). A chip filters the list to its group (again: all of them); `f` cycles.
 */
export function WhoIsWaiting({ groups, active, pick }: {
  groups: Waiting[];
  active: string | null;
  pick: (key: string | null) => void;
}) {
  if (groups.length === 0) return null;
  return (
    <div className="chips waiting" role="toolbar" aria-label="Who is waiting" data-testid="who-is-waiting">
      {groups.map((g) => (
        <button key={g.key} className={`chip group-chip ${g.key === active ? "active" : ""}`} aria-pressed={g.key === active}
          data-testid="group-chip" onClick={() => pick(g.key === active ? null : g.key)}
          title={g.key === active ? "Show every agent's calls" : "Show only these calls"}>
          <span><Who group={g.group} /> · <b data-testid="group-count">{g.ids.length.toLocaleString("en-US")}</b> · <Since at={g.oldest} /></span>
        </button>
      ))}
    </div>
  );
}

/**
 * The group the list is filtered to, and its one group action: decline all its pending calls
 * with one reason, after a confirmation that names how many. Never approve: each call is
 * approved on its own card.
 */
export function GroupBar({ group, clear, decline }: {
  group: Waiting;
  clear: () => void;
  /** Declines exactly these ids (those counted when the person confirmed). */
  decline: (ids: string[], reason: string | undefined) => Promise<number>;
}) {
  const [asking, setAsking] = useState<string[] | null>(null);
  return (
    <div className="group-bar" data-testid="group-bar">
      <span>Only <Who group={group.group} whole />: {calls(group.ids.length)} waiting</span>
      <span className="row">
        <button onClick={() => setAsking(group.ids.slice())} className="danger" data-testid="decline-group">
          Decline all {group.ids.length.toLocaleString("en-US")}…</button>
        <button onClick={clear} data-testid="clear-group">Show every agent <kbd>f</kbd></button>
      </span>
      {asking && <DeclineGroup group={group} ids={asking} close={() => setAsking(null)} decline={decline} />}
    </div>
  );
}

function DeclineGroup({ group, ids, close, decline }: {
  group: Waiting;
  ids: string[];
  close: () => void;
  decline: (ids: string[], reason: string | undefined) => Promise<number>;
}) {
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => { cancelRef.current?.focus(); }, []);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await decline(ids, reason.trim() || undefined);
      close();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <div className="overlay" onKeyDown={(e) => { if (e.key === "Escape") close(); }}>
      <form className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="decline-group-title"
        data-testid="decline-group-dialog" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <h2 id="decline-group-title">Decline {calls(ids.length)} from <Who group={group.group} whole />?</h2>
        <p>Each of these {calls(ids.length)} is declined, and its agent is told why. Calls that arrive after
          this are not included. None is approved.</p>
        <label htmlFor="group-reason">Reason for the agent (optional)</label>
        <input id="group-reason" data-testid="group-reason" value={reason} maxLength={4000}
          onChange={(e) => setReason(e.target.value)} />
        {error && <p className="error" role="alert">{error}</p>}
        <div className="row end">
          <button type="button" ref={cancelRef} onClick={close} data-testid="decline-group-cancel">Cancel</button>
          <button type="submit" className="danger-solid" disabled={busy} data-testid="decline-group-ok">
            Decline {calls(ids.length)}</button>
        </div>
      </form>
    </div>
  );
}
