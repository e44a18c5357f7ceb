import { useEffect, useRef, useState } from "react";

import type { Waiting } from "../lib/inbox";
import { Since } from "./Clock";
import { clashing, Who } from "./InboxRow";

const calls = (n: number) => `${n.toLocaleString("en-US")} call${n === 1 ? "" : "s"}`;

/**
 * One chip per agent and project with its count and its oldest wait ("Codex · api-server ·
 * 3 · 4 min ago"), in the order the groups were first seen (a chip never trades places with
 * another). A chip narrows the list to its group (again: every group); `f` steps through them.
 * The chips stay on one line, which scrolls sideways, so they never push the card down.
 */
export function WhoIsWaiting({ groups, active, pick }: {
  groups: Waiting[];
  active: string | null;
  pick: (key: string | null) => void;
}) {
  if (groups.length === 0) return null;
  const clash = clashing(groups.map((g) => g.group));
  return (
    <div className="chips waiting" role="toolbar" aria-label="Who is waiting" data-testid="who-is-waiting">
      {groups.map((g) => (
        <button key={g.key} className={`chip group-chip ${g.key === active ? "active" : ""}`} aria-pressed={g.key === active}
          data-testid="group-chip" onClick={() => pick(g.key === active ? null : g.key)}
          title={g.key === active ? "Show every agent's calls" : "Show only these calls"}>
          <span><Who group={g.group} whole={clash.has(g.key)} /> · <b data-testid="group-count">{g.ids.length.toLocaleString("en-US")}</b> · <Since at={g.oldest} /></span>
        </button>
      ))}
    </div>
  );
}

/** What a group decline acts on: the group as it was when the person asked, the ids listed
 * then (exactly those are declined), and how many more waited behind the bar, not included. */
export interface GroupDecline { group: Waiting; ids: string[]; held: number }

/**
 * The group the list is narrowed to, and its one group action: decline its listed calls with
 * one reason, after a confirmation that names how many. Never approve: each call is approved
 * on its own card.
 */
export function GroupBar({ group, listed, clear, decline }: {
  group: Waiting;
  /** How many of its calls the list shows (the rest wait behind the bar). */
  listed: number;
  clear: () => void;
  decline: () => void;
}) {
  return (
    <div className="group-bar" data-testid="group-bar">
      <span>Only <Who group={group.group} whole />: {calls(group.ids.length)} waiting</span>
      <span className="row">
        <button onClick={decline} className="danger" disabled={listed === 0} data-testid="decline-group">
          Decline {listed === 1 ? "it" : `all ${listed.toLocaleString("en-US")}`}…</button>
        <button onClick={clear} data-testid="clear-group">Show every agent <kbd>Esc</kbd></button>
      </span>
    </div>
  );
}

/**
 * The confirmation of a group decline. It holds its own copy of what it declines, so a group
 * that empties while the person types stays on screen (and says so) rather than vanishing
 * under their keys; focus stays in it until it closes.
 */
export function DeclineGroup({ asked, close, decline }: {
  asked: GroupDecline;
  close: (said?: string) => void;
  /** Declines exactly these ids; answers how many were still pending. */
  decline: (ids: string[], reason: string | undefined) => Promise<number>;
}) {
  const { group, ids, held } = asked;
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const dialog = useRef<HTMLFormElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => { cancelRef.current?.focus(); }, []);
  useEffect(() => {
    // Escape closes it wherever the focus is; Tab goes round inside it.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !busy) { e.preventDefault(); close(); return; }
      if (e.key !== "Tab" || !dialog.current) return;
      const stops = [...dialog.current.querySelectorAll<HTMLElement>("input, button:not([disabled])")];
      const [first, last] = [stops[0], stops[stops.length - 1]];
      if (!first || !last) return;
      const inside = dialog.current.contains(document.activeElement);
      if (!inside || (e.shiftKey && document.activeElement === first)) { e.preventDefault(); (e.shiftKey || !inside ? last : first).focus(); }
      else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [busy, close]);
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      const n = await decline(ids, reason.trim() || undefined);
      close(n === ids.length ? `Declined ${calls(n)}.` : `Declined ${calls(n)}; ${calls(ids.length - n)} had already been decided or withdrawn.`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <div className="overlay" onKeyDown={(e) => { if (e.key === "Escape" && !busy) { e.preventDefault(); close(); } }}>
      <form ref={dialog} className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="decline-group-title"
        data-testid="decline-group-dialog" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <h2 id="decline-group-title">Decline {calls(ids.length)} from <Who group={group.group} whole />?</h2>
        <p>Each of the {calls(ids.length)} listed is declined, and its agent is told why. None is approved.
          {held > 0 && <> {calls(held)} behind the “new requests” bar {held === 1 ? "is" : "are"} not included.</>}
          {" "}Calls that arrive after this are not included.</p>
        <label htmlFor="group-reason">Reason for the agent (optional)</label>
        <input id="group-reason" data-testid="group-reason" value={reason} maxLength={4000}
          onChange={(e) => setReason(e.target.value)} />
        {error && <p className="error" role="alert">{error}</p>}
        <div className="row end">
          <button type="button" ref={cancelRef} onClick={() => close()} data-testid="decline-group-cancel">Cancel</button>
          <button type="submit" className="danger-solid" disabled={busy} data-testid="decline-group-ok">
            Decline {calls(ids.length)}</button>
        </div>
      </form>
    </div>
  );
}
