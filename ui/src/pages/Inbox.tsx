import { defaultRangeExtractor, useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "react";

import { api } from "../api/ipc";
import type { Effect } from "../api/types/Effect";
import type { Pending } from "../lib/inbox";
import { ApprovalCard, type CardActions, type Readings } from "../components/ApprovalCard";
import { useArming } from "../lib/arming";

/**
 * What the person has in front of them. Cards are kept by approval id, in the order shown;
 * requests that arrive later wait behind the "N new requests" bar until the person brings them
 * in, so nothing an agent sends moves the card under the cursor or the keypress.
 */
interface View {
  shown: string[];
  selected: string | null;
  /** Bumped whenever the shown list changes: decisions re-arm after it. */
  layout: number;
  /** What the person was looking at left without their decision (withdrawn or expired):
   * whatever is pending waits behind the bar rather than taking its place. */
  withdrawn: boolean;
}

type Action =
  | { kind: "sync"; ids: string[]; decided: ReadonlySet<string> }
  | { kind: "bring_in"; ids: string[] }
  | { kind: "select"; id: string }
  | { kind: "move"; by: 1 | -1 };

export function reduce(v: View, a: Action): View {
  switch (a.kind) {
    case "sync": {
      const live = new Set(a.ids);
      if (a.ids.length === 0) {
        return v.shown.length === 0 && !v.withdrawn
          ? v
          : { shown: [], selected: null, layout: v.layout + 1, withdrawn: false };
      }
      const kept = v.shown.filter((id) => live.has(id));
      if (kept.length === 0) {
        // Nothing was on screen, or the person decided what was: nothing to displace.
        const displaced = v.withdrawn || v.shown.some((id) => !a.decided.has(id));
        if (!displaced) return { shown: a.ids, selected: a.ids[0] ?? null, layout: v.layout + 1, withdrawn: false };
        return v.withdrawn ? v : { shown: [], selected: null, layout: v.layout + 1, withdrawn: true };
      }
      if (kept.length === v.shown.length) return v;
      let selected = v.selected;
      if (selected === null || !live.has(selected)) {
        // The selected card left: its neighbour below, else above, becomes the selection.
        const at = selected === null ? 0 : v.shown.indexOf(selected);
        const below = v.shown.slice(at + 1).find((id) => live.has(id));
        const above = v.shown.slice(0, Math.max(at, 0)).reverse().find((id) => live.has(id));
        selected = below ?? above ?? null;
      }
      return { ...v, shown: kept, selected, layout: v.layout + 1 };
    }
    case "bring_in": {
      const shown = new Set(v.shown);
      const fresh = a.ids.filter((id) => !shown.has(id));
      if (fresh.length === 0) return v;
      return { shown: [...fresh, ...v.shown], selected: fresh[0] ?? v.selected, layout: v.layout + 1, withdrawn: false };
    }
    case "select":
      return v.selected === a.id ? v : { ...v, selected: a.id };
    case "move": {
      const at = v.selected === null ? -1 : v.shown.indexOf(v.selected);
      const next = v.shown[Math.min(Math.max(at + a.by, 0), v.shown.length - 1)];
      return next === undefined || next === v.selected ? v : { ...v, selected: next };
    }
  }
}

function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
}

/**
 * Pending approvals, newest first. j/k move, a approve, A don't ask again, d decline, Enter
 * open, n bring in new requests. Decisions name the card shown (its id and digest), ignore key
 * auto-repeat, and are inert for a moment after the card under them changes; `a` and `A` on a
 * command whose end has not been on screen bring the end into view instead.
 */
export function Inbox({ pending, need, actions }: {
  pending: Pending;
  /** Asks for the cards of these ids (the list reads a card when it shows it). */
  need: (ids: string[]) => void;
  actions: CardActions;
}) {
  const [view, dispatch] = useReducer(reduce, undefined, () => ({
    shown: pending.entries.map((e) => e.id),
    selected: pending.entries[0]?.id ?? null,
    layout: 0,
    withdrawn: false,
  }));
  const [declining, setDeclining] = useState<string | null>(null);
  const [choosing, setChoosing] = useState<{ id: string; effect: Effect } | null>(null);
  // Cards the person decided here leave because of them; any other departure is the agent's.
  const decided = useRef(new Set<string>());
  const decide: CardActions["decide"] = async (id, digest, d) => {
    decided.current.add(id);
    try { await actions.decide(id, digest, d); } catch (e) { decided.current.delete(id); throw e; }
  };
  const cardActions: CardActions = { ...actions, decide };
  // Whether each card's command has been read to its end, by id: `a` asks before deciding.
  const readings = useRef<Readings>(new Map()).current;
  const byId = pending.cards;
  const ids = useMemo(() => pending.entries.map((e) => e.id), [pending.entries]);
  useEffect(() => dispatch({ kind: "sync", ids, decided: decided.current }), [ids]);
  // For the benchmark: when the first cards were painted.
  useEffect(() => {
    if (byId.size > 0 && performance.getEntriesByName("inbox-first-card").length === 0) {
      requestAnimationFrame(() => setTimeout(() => performance.mark("inbox-first-card"), 0));
    }
  }, [byId.size > 0]);

  const shownSet = new Set(view.shown);
  // The shown approvals still pending, in order; a card not read yet shows as a placeholder.
  const rows = useMemo(() => {
    const live = new Set(ids);
    return view.shown.filter((id) => live.has(id));
  }, [view.shown, ids]);
  const held = ids.filter((id) => !shownSet.has(id));
  const current = view.selected === null ? undefined : byId.get(view.selected);

  const bringIn = () => dispatch({ kind: "bring_in", ids: held });

  // Only the cards on screen (and a few beyond) are in the page, however many wait. The
  // selected card, and one being declined or given a rule, stay in the page even when scrolled
  // away: what the person typed or chose there is kept.
  const listRef = useRef<HTMLDivElement>(null);
  const indexOf = (id: string | null | undefined) => (id ? rows.indexOf(id) : -1);
  const selectedIndex = indexOf(view.selected);
  const keep = [selectedIndex, indexOf(declining), indexOf(choosing?.id)].filter((i) => i >= 0);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => document.querySelector<HTMLElement>(".main"),
    estimateSize: () => 300,
    overscan: 2,
    // The list's first render already holds the cards a window's height shows.
    initialRect: { width: 0, height: window.innerHeight },
    getItemKey: (i) => rows[i] ?? i,
    scrollMargin: listRef.current?.offsetTop ?? 0,
    rangeExtractor: (range) => [...new Set([...defaultRangeExtractor(range), ...keep])].sort((a, b) => a - b),
  });
  useEffect(() => {
    // A card in the page brings itself into view when selected; one that is not is scrolled
    // to by the list, top first, so a tall card shows its title and warnings.
    const el = view.selected === null ? null : document.querySelector(`[data-row="${view.selected}"]`);
    // The first card's place is under the page's heading, which stays in view with it.
    if (selectedIndex === 0 && !el) document.querySelector(".main")?.scrollTo({ top: 0 });
    else if (selectedIndex > 0 && !el) virtualizer.scrollToIndex(selectedIndex, { align: "start" });
    // A decline reason belongs to the card it was typed on.
    setDeclining((d) => (d !== null && d !== view.selected ? null : d));
  }, [view.selected]);

  // What can move the selected card: the cards in the page, and the bars above them.
  const anchorKey = useMemo(() => ({}), [rows, held.length > 0, view.withdrawn, byId]);
  // The cards the list shows are read as it shows them.
  const visible = virtualizer.getVirtualItems().map((item) => rows[item.index]).filter((id): id is string => !!id);
  const missing = visible.filter((id) => !byId.has(id));
  useEffect(() => { need(missing); }, [missing.join(" ")]);
  // A card read into its placeholder is a new card under the keypress or the pointer:
  // decisions wait again, as for any change of what is shown.
  const filled = visible.filter((id) => byId.has(id)).join(" ");
  const armKey = `${view.selected ?? ""}|${current?.approval.digest ?? "loading"}|${view.layout}|${filled}`;
  const { armed, isArmed } = useArming(armKey);
  useScrollAnchor(view.selected, anchorKey);
  // A chooser belongs to the card it was opened on: another selection closes it.
  useEffect(() => { setChoosing((c) => (c && c.id !== view.selected ? null : c)); }, [view.selected]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // While a chooser is open, the page's keys wait: it has its own.
      if (choosing || isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      // Letters by what they type, Shift by itself: Caps Lock never turns `a` into a grant.
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const decides = key === "a" || key === "d";
      if (decides && (e.repeat || !current || !isArmed(armKey))) {
        // A held key, or a card that just changed: nothing is decided.
        e.preventDefault();
        return;
      }
      const a = current?.approval;
      const always = key === "a" && e.shiftKey;
      // A command whose end has not been on screen is brought there instead of decided (a
      // card with nothing to read is ready at once; one not in the page yet is not).
      const reading = a ? readings.get(a.id) : undefined;
      if (key === "a" && !reading?.ready) {
        reading?.reveal();
        e.preventDefault();
        return;
      }
      switch (key) {
        case "j": dispatch({ kind: "move", by: 1 }); break;
        case "k": dispatch({ kind: "move", by: -1 }); break;
        case "n": if (held.length > 0) bringIn(); else return; break;
        case "a":
          if (!current || !a) break;
          if (!always) void decide(a.id, a.digest, { decision: "approve" }).catch((err: Error) => actions.report(err.message));
          else if (current.no_grant) actions.report(`${current.no_grant} Press a to approve it once.`);
          else setChoosing({ id: a.id, effect: "approve" });
          break;
        case "d":
          if (!a) break;
          if (e.shiftKey) setChoosing({ id: a.id, effect: "deny" });
          else setDeclining(a.id);
          break;
        case "Enter": if (a) actions.openApproval?.(a.id); else return; break;
        default: return;
      }
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  if (!pending.loaded) return <div className="page"><p className="muted" data-testid="inbox-loading">Loading…</p></div>;
  if (ids.length === 0) return <EmptyInbox />;
  return (
    <div className="page inbox" data-testid="inbox">
      <h1>Inbox <span className="muted count">{ids.length} waiting</span></h1>
      <p className="muted hint"><kbd>j</kbd>/<kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>A</kbd> approve &amp; don't ask again · <kbd>d</kbd> decline · <kbd>D</kbd> decline &amp; don't ask again · <kbd>Enter</kbd> open</p>
      {view.withdrawn && (
        <p className="notice" data-testid="withdrawn">The request you were looking at was withdrawn or expired before you decided.</p>
      )}
      {held.length > 0 && (
        <button className="new-requests" onClick={bringIn} data-testid="new-requests">
          {held.length === 1 ? "1 new request" : `${held.length} new requests`} — show {held.length === 1 ? "it" : "them"} <kbd>n</kbd>
        </button>
      )}
      <div ref={listRef} className="card-list" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const id = rows[item.index];
          if (id === undefined) return null;
          const p = byId.get(id);
          if (!p) {
            return (
              <div key={item.key} data-index={item.index} data-row={id} ref={virtualizer.measureElement}
                className="card-slot" style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
                onClick={() => dispatch({ kind: "select", id })}>
                <div className={`card placeholder ${id === view.selected ? "selected" : ""}`} data-testid="card-placeholder"
                  aria-busy="true"><p className="muted">Loading…</p></div>
              </div>
            );
          }
          return (
            <div key={item.key} data-index={item.index} data-row={id} ref={virtualizer.measureElement}
              className="card-slot" style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
              onClick={() => dispatch({ kind: "select", id: p.approval.id })}>
              <ApprovalCard p={p} selected={p.approval.id === view.selected} actions={cardActions}
                armed={armed} declining={declining === p.approval.id}
                setDeclining={(on) => setDeclining(on ? p.approval.id : null)}
                choosing={choosing?.id === p.approval.id ? choosing.effect : null}
                setChoosing={(effect) => setChoosing(effect ? { id: p.approval.id, effect } : null)}
                readings={readings} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

/**
 * Keeps the selected card where it is on screen when cards above it come or go: the list
 * scrolls by exactly what moved, so a click aimed at the card stays on it.
 */
function useScrollAnchor(selected: string | null, layout: object) {
  const anchor = useRef<{ id: string; top: number } | null>(null);
  const seenLayout = useRef(layout);
  // The card's slot: a card not read yet holds its place as a placeholder.
  const find = (id: string) => document.querySelector<HTMLElement>(`[data-row="${id}"]`);
  const record = () => {
    const el = selected === null ? null : find(selected);
    anchor.current = el && selected !== null ? { id: selected, top: el.getBoundingClientRect().top } : null;
  };
  useLayoutEffect(() => {
    const a = anchor.current;
    if (seenLayout.current !== layout && a) {
      const el = find(a.id);
      const delta = el ? el.getBoundingClientRect().top - a.top : 0;
      if (el && delta !== 0) el.closest(".main")?.scrollBy(0, delta);
    }
    seenLayout.current = layout;
    record();
  });
  useEffect(() => {
    const main = document.querySelector(".main");
    main?.addEventListener("scroll", record, { passive: true });
    return () => main?.removeEventListener("scroll", record);
  });
}

function EmptyInbox() {
  const [cli, setCli] = useState("countersign");
  useEffect(() => { void api.settings().then((s) => setCli(s.cli)).catch(() => {}); }, []);
  const quoted = /\s/.test(cli) ? `'${cli}'` : cli;
  return (
    <div className="page empty" data-testid="empty-inbox">
      <h1>Nothing to approve</h1>
      <p>When an agent asks before running a tool call, it appears here, exactly as it would run.</p>
      <h3>Try it</h3>
      <pre className="mono command" data-testid="try-it">{quoted} request --tool demo.Bash --command "echo hello"</pre>
      <h3>Connect an agent</h3>
      <p>Agents find this console through <code>connection.json</code> in the data directory and
        authenticate with the token from <code>{quoted} token</code> (see Settings), then
        <code> POST /v1/approvals</code> and wait on <code>GET /v1/approvals/&lt;id&gt;?wait=60</code>.</p>
    </div>
  );
}
