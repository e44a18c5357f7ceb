import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "react";

import { api } from "../api/ipc";
import type { Effect } from "../api/types/Effect";
import type { Presented } from "../api/types/Presented";
import { type Entry, groupKey, type Pending, waitingGroups } from "../lib/inbox";
import { ApprovalCard, type CardActions, type Readings } from "../components/ApprovalCard";
import { clashing, InboxRow } from "../components/InboxRow";
import { DeclineGroup, type GroupDecline, GroupBar, WhoIsWaiting } from "../components/WhoIsWaiting";
import { useArming } from "../lib/arming";
import { useRowWindow } from "../lib/rows";

/**
 * What the person has in front of them. Calls are kept by approval id, in the order listed;
 * requests that arrive later wait behind the "N new requests" bar until the person brings them
 * in, so nothing an agent sends moves the card under the cursor or the keypress. `group`
 * narrows the list to one agent and project (a chip).
 */
export interface View {
  shown: string[];
  selected: string | null;
  /** Bumped whenever the shown list changes: decisions re-arm after it. */
  layout: number;
  /** What the person was looking at left without their decision (withdrawn or expired):
   * whatever is pending waits behind the bar rather than taking its place. */
  withdrawn: boolean;
  /** The group the list is narrowed to (its key), or every group. */
  group: string | null;
}

/** Each pending call's group key, by id. */
export type GroupOf = (id: string) => string | undefined;

export type Action =
  | { kind: "sync"; ids: string[]; decided: ReadonlySet<string>; groupOf: GroupOf }
  | { kind: "bring_in"; ids: string[]; groupOf: GroupOf }
  | { kind: "select"; id: string }
  | { kind: "move"; by: 1 | -1; groupOf: GroupOf }
  | { kind: "filter"; group: string | null; groupOf: GroupOf };

export function reduce(v: View, a: Action): View {
  const inView = (group: string | null, groupOf: GroupOf) => (id: string) => group === null || groupOf(id) === group;
  switch (a.kind) {
    case "sync": {
      const live = new Set(a.ids);
      const listed = inView(v.group, a.groupOf);
      if (a.ids.length === 0) {
        return v.shown.length === 0 && !v.withdrawn && v.group === null
          ? v
          : { shown: [], selected: null, layout: v.layout + 1, withdrawn: false, group: null };
      }
      const kept = v.shown.filter((id) => live.has(id));
      if (kept.length === 0) {
        // Nothing was on screen, or the person decided what was: nothing to displace.
        const displaced = v.withdrawn || v.shown.some((id) => !a.decided.has(id));
        if (!displaced) {
          return { ...v, shown: a.ids, selected: a.ids.find(listed) ?? null, layout: v.layout + 1, withdrawn: false };
        }
        return v.withdrawn ? v : { ...v, shown: [], selected: null, layout: v.layout + 1, withdrawn: true };
      }
      if (kept.length === v.shown.length) return v;
      let selected = v.selected;
      if (selected === null || !live.has(selected)) {
        // The selected call left: its neighbour below in the list, else above, is selected.
        const at = selected === null ? 0 : v.shown.indexOf(selected);
        const stays = (id: string) => live.has(id) && listed(id);
        const below = v.shown.slice(at + 1).find(stays);
        const above = v.shown.slice(0, Math.max(at, 0)).reverse().find(stays);
        selected = below ?? above ?? null;
      }
      return { ...v, shown: kept, selected, layout: v.layout + 1 };
    }
    case "bring_in": {
      const shown = new Set(v.shown);
      const fresh = a.ids.filter((id) => !shown.has(id));
      if (fresh.length === 0) return v;
      const first = fresh.find(inView(v.group, a.groupOf));
      return { ...v, shown: [...fresh, ...v.shown], selected: first ?? v.selected, layout: v.layout + 1, withdrawn: false };
    }
    case "select":
      return v.selected === a.id ? v : { ...v, selected: a.id };
    case "move": {
      const rows = v.shown.filter(inView(v.group, a.groupOf));
      const at = v.selected === null ? -1 : rows.indexOf(v.selected);
      const next = rows[Math.min(Math.max(at + a.by, 0), rows.length - 1)];
      return next === undefined || next === v.selected ? v : { ...v, selected: next };
    }
    case "filter": {
      if (a.group === v.group) return v;
      const listed = inView(a.group, a.groupOf);
      const selected = v.selected !== null && listed(v.selected) ? v.selected : v.shown.find(listed) ?? null;
      return { ...v, group: a.group, selected, layout: v.layout + 1 };
    }
  }
}

function isTyping(target: EventTarget | null): boolean {
  const t = target as HTMLElement | null;
  return !!t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
}

/** A row's height: two lines (who asks, then what the call would run). */
const ROW = 46;
/** When each group was first seen, for the whole session. */
const CHIP_ORDER = new Map<string, number>();

/**
 * Pending approvals: a list of one-line summaries, newest first, beside the selected call's
 * whole card, which is the one decisions act on. j/k move, f narrows to the next agent and
 * project, a approve, A don't ask again, d decline, Enter open, n bring in new requests.
 * Decisions name the card shown (its id and digest), ignore key auto-repeat, and are inert for
 * a moment after the card or the list changes; `a` and `A` on a command whose end has not
 * been on screen bring the end into view instead.
 */
export function Inbox({ pending, need, actions, declineGroup }: {
  pending: Pending;
  /** Asks for the cards of these ids (the list reads a card when it shows it). */
  need: (ids: string[]) => void;
  actions: CardActions;
  /** Declines exactly these ids with one reason; answers how many were still pending. */
  declineGroup: (ids: string[], reason: string | undefined) => Promise<number>;
}) {
  const [view, dispatch] = useReducer(reduce, undefined, () => ({
    shown: pending.entries.map((e) => e.id),
    selected: pending.entries[0]?.id ?? null,
    layout: 0,
    withdrawn: false,
    group: null,
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
  const declineMany = async (ids: string[], reason: string | undefined) => {
    ids.forEach((id) => decided.current.add(id));
    let done;
    try { done = await declineGroup(ids, reason); } catch (e) { ids.forEach((id) => decided.current.delete(id)); throw e; }
    // The group declined, if it is still the filter, is no filter any more once nothing of it
    // is left: a call of it that arrived meanwhile keeps it (held behind the bar).
    const now = activeGroup;
    if (now && now.key === asking?.group.key && now.ids.every((id) => decided.current.has(id))) filter(null);
    return done;
  };
  // Whether each card's command has been read to its end, by id: `a` asks before deciding.
  const readings = useRef<Readings>(new Map()).current;
  const byId = pending.cards;
  const ids = useMemo(() => pending.entries.map((e) => e.id), [pending.entries]);
  // Each call's entry by id, kept from one change of the list to the next: an arrival adds its
  // entry rather than the whole index being made again (a call's entry never changes; an index
  // holding a call that left is made again).
  const index = useRef(new Map<string, Entry>()).current;
  const entryOf: ReadonlyMap<string, Entry> = useMemo(() => {
    for (const e of pending.entries) if (!index.has(e.id)) index.set(e.id, e);
    if (index.size !== pending.entries.length) {
      index.clear();
      for (const e of pending.entries) index.set(e.id, e);
    }
    return index;
  }, [pending.entries]);
  // Chips in the order their groups were first seen this session: a chip never trades places
  // with another, even after the person leaves the inbox and comes back.
  const firstSeen = CHIP_ORDER;
  const groups = useMemo(() => {
    const found = waitingGroups(pending.entries);
    // Bounded: a session that has seen 10,000 groups starts their order again.
    if (firstSeen.size > 10_000) firstSeen.clear();
    for (const g of found) if (!firstSeen.has(g.key)) firstSeen.set(g.key, firstSeen.size);
    return found.sort((a, b) => (firstSeen.get(a.key) ?? 0) - (firstSeen.get(b.key) ?? 0));
  }, [pending.entries]);
  const clash = useMemo(() => clashing(groups.map((g) => g.group)), [groups]);
  const groupOf: GroupOf = (id) => { const e = entryOf.get(id); return e ? groupKey(e.group) : undefined; };
  useEffect(() => dispatch({ kind: "sync", ids, decided: decided.current, groupOf }), [ids]);
  // For the benchmark: when the first rows and the first whole card were painted.
  useEffect(() => {
    if (byId.size > 0 && performance.getEntriesByName("inbox-first-card").length === 0) {
      requestAnimationFrame(() => setTimeout(() => performance.mark("inbox-first-card"), 0));
    }
  }, [byId.size > 0]);

  const activeGroup = view.group === null ? null : groups.find((g) => g.key === view.group) ?? null;
  // The listed approvals still pending, in order; a call not read yet lists who asks and when.
  const rows = useMemo(
    () => view.shown.filter((id) => entryOf.has(id) && (view.group === null || groupOf(id) === view.group)),
    [view.shown, view.group, ids],
  );
  const shownSet = useMemo(() => new Set(view.shown), [view.shown]);
  const held = useMemo(() => ids.filter((id) => !shownSet.has(id)), [ids, shownSet]);
  const current = view.selected === null ? undefined : byId.get(view.selected);

  const selectRow = useCallback((id: string) => dispatch({ kind: "select", id }), []);
  const bringIn = () => dispatch({ kind: "bring_in", ids: held, groupOf });
  // The list draws again only when what it shows changed: what it calls back is one function
  // for its whole life, which calls the latest of these.
  const latest = useRef({ bringIn, need });
  latest.current = { bringIn, need };
  const listBringIn = useCallback(() => latest.current.bringIn(), []);
  const listNeed = useCallback((wanted: string[]) => latest.current.need(wanted), []);
  const filter = (group: string | null) => dispatch({ kind: "filter", group, groupOf });
  // A group that has nothing left waiting is no filter any more: every group is listed again.
  useEffect(() => { if (view.group !== null && !activeGroup) filter(null); }, [view.group, activeGroup]);
  // A group decline asked for: what it declines is fixed when asked, and its dialog stays
  // until the person closes it, whatever the group does meanwhile.
  const [asking, setAsking] = useState<GroupDecline | null>(null);
  // Bumped when a dialog closes: decisions re-arm, so keys typed into it never decide.
  const [dialogs, setDialogs] = useState(0);
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    if (said === null) return undefined;
    const t = window.setTimeout(() => setSaid(null), 8000);
    return () => window.clearTimeout(t);
  }, [said]);
  const askDecline = () => {
    if (!activeGroup) return;
    const listed = rows.slice();
    setAsking({ group: activeGroup, ids: listed, held: activeGroup.ids.length - listed.length });
  };

  useEffect(() => {
    // The card beside the list starts at its top.
    document.querySelector(".inbox-card")?.scrollTo({ top: 0 });
    // A decline reason belongs to the card it was typed on.
    setDeclining((d) => (d !== null && d !== view.selected ? null : d));
  }, [view.selected]);

  // The card decisions act on: its id, the digest of what it shows (or that it is still
  // loading), and every change of the list beside it. Any change re-arms.
  // The card moving on screen (something above it came or went) counts as a change too.
  const [moved, setMoved] = useState(0);
  const cardTop = useRef<number | null>(null);
  useLayoutEffect(() => {
    const top = document.querySelector(".inbox-card")?.getBoundingClientRect().top ?? null;
    if (cardTop.current !== null && top !== null && Math.abs(top - cardTop.current) > 0.5) setMoved((n) => n + 1);
    cardTop.current = top;
  });
  const armKey = `${view.selected ?? ""}|${current?.approval.digest ?? "loading"}|${view.layout}|${dialogs}|${moved}`;
  const { armed, isArmed } = useArming(armKey);
  // A chooser belongs to the card it was opened on: another selection closes it.
  useEffect(() => { setChoosing((c) => (c && c.id !== view.selected ? null : c)); }, [view.selected]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // While a chooser or a dialog is open, the page's keys wait: they have their own.
      if (choosing || document.querySelector(".overlay")) return;
      // An edit or a note being written on the card: its own keys, never the inbox's.
      if (document.querySelector(".edit-form, .note-form")) return;
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
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
        case "j": dispatch({ kind: "move", by: 1, groupOf }); break;
        case "k": dispatch({ kind: "move", by: -1, groupOf }); break;
        case "f": {
          if (groups.length === 0) return;
          // Forward through the chips, then every group again; Shift goes back.
          const keys = [null, ...groups.map((g) => g.key)];
          const at = keys.indexOf(view.group);
          filter(keys[(at + (e.shiftKey ? keys.length - 1 : 1)) % keys.length] ?? null);
          break;
        }
        case "n": if (held.length > 0) bringIn(); else return; break;
        case "Escape": if (view.group !== null) filter(null); else return; break;
        case "a":
          if (!current || !a) break;
          if (a.call.card === "plan") actions.report("A plan is approved with its own choices: pick how the agent goes on, then “Approve the plan”.");
          else if (!always) void decide(a.id, a.digest, { decision: "approve" }).catch((err: Error) => actions.report(err.message));
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
  const selectedEntry = view.selected === null ? undefined : entryOf.get(view.selected);
  return (
    <div className="page inbox" data-testid="inbox">
      <div className="inbox-head">
        <h1>Inbox <span className="muted count">{ids.length.toLocaleString("en-US")} waiting</span></h1>
        <p className="muted hint" aria-live="polite" data-testid="inbox-said">{said ?? <><kbd>j</kbd>/<kbd>k</kbd> move · <kbd>f</kbd> next agent &amp; project · <kbd>a</kbd> approve · <kbd>A</kbd> …&amp; don't ask again · <kbd>d</kbd> decline · <kbd>D</kbd> …&amp; don't ask again · <kbd>Enter</kbd> open</>}</p>
        <WhoIsWaiting groups={groups} active={view.group} pick={filter} />
        {activeGroup && <GroupBar key={activeGroup.key} group={activeGroup} listed={rows.length} clear={() => filter(null)} decline={askDecline} />}
        {asking && <DeclineGroup asked={asking} decline={declineMany} close={(words) => {
          setAsking(null);
          setDialogs((n) => n + 1);
          if (words) setSaid(words);
          document.querySelector<HTMLElement>("[data-testid=inbox-list]")?.focus();
        }} />}
      </div>
      <div className="inbox-split">
        <InboxList rows={rows} entryOf={entryOf} cards={byId} selected={view.selected} clash={clash} onSelect={selectRow}
          need={listNeed} held={held.length} bringIn={listBringIn} withdrawn={view.withdrawn} group={view.group}
          machineName={actions.machineName} />
        <div className="inbox-card" data-testid="inbox-card">
          {current ? (
            <ApprovalCard key={current.approval.id} p={current} selected actions={cardActions}
              armed={armed} declining={declining === current.approval.id}
              setDeclining={(on) => setDeclining(on ? current.approval.id : null)}
              choosing={choosing?.id === current.approval.id ? choosing.effect : null}
              setChoosing={(effect) => setChoosing(effect ? { id: current.approval.id, effect } : null)}
              readings={readings} />
          ) : selectedEntry ? (
            <div className="card placeholder selected" data-testid="card-placeholder" aria-busy="true"><p className="muted">Loading…</p></div>
          ) : (
            <p className="muted">Select a call on the left to see it whole.</p>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * The inbox's list: one line per call, only the rows on screen (and a few beyond) in the page,
 * however many wait. It draws again when what it shows changed (its rows, the cards read for
 * them, the selection) or when it is scrolled to other rows, never because the card beside it
 * did. The selected row is kept in view; the cards of the rows shown are read as they are
 * shown, the selected one first.
 */
const InboxList = memo(function InboxList({ rows, entryOf, cards, selected, clash, onSelect, need, held, bringIn, withdrawn, group, machineName }: {
  rows: string[];
  /** The machine an agent token was made for, when known. */
  machineName?: (id: string) => string | undefined;
  entryOf: ReadonlyMap<string, Entry>;
  cards: ReadonlyMap<string, Presented>;
  selected: string | null;
  /** The group keys whose rows show the project's whole path. */
  clash: ReadonlySet<string>;
  onSelect: (id: string) => void;
  need: (ids: string[]) => void;
  /** How many requests wait behind the bar. */
  held: number;
  bringIn: () => void;
  withdrawn: boolean;
  /** The group the list is narrowed to, or every group. */
  group: string | null;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const rowsRef = useRef<HTMLDivElement>(null);
  /** The machine whose agent token asked a card's call, when one did. */
  const machineOf = (p: Presented | undefined): string | undefined => {
    const token = p?.approval.asked_with;
    return token ? machineName?.(token) ?? "another machine" : undefined;
  };
  const shown = useRowWindow(rows.length, ROW, listRef, rowsRef);
  const selectedIndex = useMemo(() => (selected === null ? -1 : rows.indexOf(selected)), [rows, selected]);
  // The selected row is kept in view (below the new-requests bar, which stays at the top), also
  // when the list is narrowed or widened around it.
  const barRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const l = listRef.current;
    if (l) ownScroll(l, () => shown.scrollTo(selectedIndex, barRef.current?.offsetHeight ?? 0));
  }, [selected, group]);
  const visible = rows.slice(shown.first, shown.last + 1);
  // The selected card is read at once; the rows' cards once the list stops moving, so a list
  // flicked through fast is drawn once per frame, not again as each screen's cards come in.
  const settled = useSettled(listRef);
  const wanted = selected !== null && !cards.has(selected) ? [selected] : [];
  const missing = settled ? [...wanted, ...visible.filter((id) => !cards.has(id) && id !== selected)] : wanted;
  useEffect(() => { need(missing); }, [missing.join(" ")]);
  useRowAnchor(listRef, selected);
  return (
    <div className="list-frame">
      <div ref={listRef} className="inbox-list" role="listbox" aria-label="Waiting calls" data-testid="inbox-list"
        tabIndex={0} aria-activedescendant={selectedIndex >= 0 ? `row-${selected}` : undefined}>
        {/* What comes and goes above the rows is in the list, never above the card: the card
            beside the list does not move when a request arrives. */}
        {withdrawn && (
          <p className="notice list-notice" data-testid="withdrawn">The request you were looking at was withdrawn or expired before you decided.</p>
        )}
        {held > 0 && (
          <button ref={barRef} className="new-requests" onClick={bringIn} data-testid="new-requests">
            {held === 1 ? "1 new request" : `${held.toLocaleString("en-US")} new requests`} — show {held === 1 ? "it" : "them"} <kbd>n</kbd>
          </button>
        )}
        {rows.length === 0 && (
          <p className="muted list-empty" data-testid="group-empty">
            {group !== null ? "Nothing more is listed from this agent and project." : "Nothing listed: the new requests wait above."}
          </p>
        )}
        <div ref={rowsRef} style={{ height: shown.total, position: "relative" }}>
          {visible.map((id, i) => {
            const e = entryOf.get(id);
            if (!e) return null;
            return (
              <div key={id} data-row={id} className="row-slot" style={{ height: ROW, transform: `translateY(${(shown.first + i) * ROW}px)` }}>
                <InboxRow id={id} group={e.group} whole={clash.has(groupKey(e.group))} createdAt={e.created_at} p={cards.get(id)}
                  machine={machineOf(cards.get(id))}
                  selected={id === selected} onSelect={onSelect} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
});

/** Scrolls `list` by `scroll` as the page, not the person: marked so the scroll it causes is
 * told apart (a scroll to where the list already is causes none, and leaves no mark). */
function ownScroll(list: HTMLElement, scroll: () => void) {
  const was = list.scrollTop;
  scroll();
  if (list.scrollTop !== was) list.dataset.ownScroll = "";
}

/** How long a list stays still before the cards of its rows are read. */
const SETTLE_MS = 120;

/** Whether `list` has not scrolled for [`SETTLE_MS`]: false from a scroll until then. */
function useSettled(list: React.RefObject<HTMLElement | null>): boolean {
  const [settled, setSettled] = useState(true);
  useEffect(() => {
    const el = list.current;
    if (!el) return undefined;
    let timer: number | undefined;
    const onScroll = () => {
      // The page's own scrolling (keeping a row in view or in its place) is not the person
      // moving through the list: their rows' cards are read as ever.
      if (el.dataset.ownScroll !== undefined) {
        delete el.dataset.ownScroll;
        return;
      }
      setSettled(false);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => setSettled(true), SETTLE_MS);
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => { el.removeEventListener("scroll", onScroll); window.clearTimeout(timer); };
  }, []);
  return settled;
}

/**
 * Keeps the selected row where it is on screen when what is above it in the list changes (rows
 * leaving, the new-requests bar or a notice appearing): the list scrolls by exactly what moved,
 * so the row under the pointer stays the one it was. The person's own scrolling is followed.
 */
function useRowAnchor(list: React.RefObject<HTMLDivElement | null>, selected: string | null) {
  const anchor = useRef<{ id: string; top: number; scrolled: number } | null>(null);
  const find = (id: string) => list.current?.querySelector<HTMLElement>(`[data-row="${id}"]`) ?? null;
  const record = () => {
    const el = selected === null ? null : find(selected);
    anchor.current = el && selected !== null && list.current
      ? { id: selected, top: el.getBoundingClientRect().top, scrolled: list.current.scrollTop } : null;
  };
  useLayoutEffect(() => {
    const a = anchor.current;
    const l = list.current;
    // Only what changed above the row moves it back: a list the person scrolled since (its
    // scroll event not handled yet) is left where they put it.
    if (a && l && a.id === selected && Math.abs(l.scrollTop - a.scrolled) < 0.5) {
      const el = find(a.id);
      const delta = el ? el.getBoundingClientRect().top - a.top : 0;
      if (el && Math.abs(delta) > 0.5) ownScroll(l, () => l.scrollBy(0, delta));
    }
    record();
  });
  useEffect(() => {
    const el = list.current;
    el?.addEventListener("scroll", record, { passive: true });
    return () => el?.removeEventListener("scroll", record);
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
