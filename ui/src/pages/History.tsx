import { useCallback, useEffect, useRef, useState } from "react";

import { api } from "../api/ipc";
import type { HistoryFacets } from "../api/types/HistoryFacets";
import type { HistoryOrder } from "../api/types/HistoryOrder";
import type { HistoryQuery } from "../api/types/HistoryQuery";
import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";
import { HistoryRow } from "../components/InboxRow";
import { ExportHistory } from "../components/ExportHistory";
import { HistoryFilters } from "../components/HistoryFilters";
import { dateWords, queryKey } from "../lib/history";
import { useRowWindow } from "../lib/rows";

/** How many decisions a page read holds (the shell's own page size). */
const PAGE = 100;
/** Older decisions are read once the list shows one this close to the end of what it holds. */
const READ_AHEAD = 10;
/** A row's height: two lines (who asks, then what the call would run). */
const ROW = 46;

/** Whether `a` comes after `b` in `order` (by when it was decided, then by id). */
function after(a: Presented, b: Presented, order: HistoryOrder): boolean {
  const [x, y] = [a.approval, b.approval];
  const cmp = (x.decided_at ?? 0) - (y.decided_at ?? 0) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  return order === "newest_first" ? cmp < 0 : cmp > 0;
}

/**
 * The first page read again, and what was read past it kept: a change (a new decision, a
 * result attached) never throws away the pages the person scrolled through.
 */
export function mergeFirst(prev: Presented[] | null, first: Presented[], order: HistoryOrder): Presented[] {
  const last = first[first.length - 1];
  if (prev === null || last === undefined || first.length < PAGE) return first;
  const seen = new Set(first.map((p) => p.approval.id));
  return [...first, ...prev.filter((p) => !seen.has(p.approval.id) && after(p, last, order))];
}

/** Decided approvals, the latest or the earliest first: a list of one-line rows beside the
 * selected call's whole card (j/k move). Only the rows on screen are in the page, and older
 * ones are read as the list nears the end of what it holds. */
export function History({ version, actions, query, setQuery }: {
  version: number;
  actions: CardActions;
  /** Kept by the window, so leaving History and coming back keeps the search. */
  query: HistoryQuery;
  setQuery: (q: HistoryQuery) => void;
}) {
  const [order, setOrder] = useState<HistoryOrder>("newest_first");
  const [facets, setFacets] = useState<HistoryFacets>({ agents: [], projects: [] });
  // Read once a visit: the agents and projects change slowly, and an agent's stream of
  // requests must not make History re-read them with every event.
  useEffect(() => { api.historyFacets().then(setFacets).catch(() => {}); }, []);
  return (
    <div className="page history" data-testid="history">
      <div className="page-head">
        <h1>History</h1>
        <div className="row">
        <ExportHistory query={query} />
        <div className="segmented" role="group" aria-label="Order">
          {(["newest_first", "oldest_first"] as const).map((o) => (
            <button key={o} aria-pressed={order === o} data-testid={`history-${o}`} onClick={() => setOrder(o)}>
              {o === "newest_first" ? "Latest first" : "Earliest first"}
            </button>
          ))}
        </div>
        </div>
      </div>
      <HistoryFilters query={query} setQuery={setQuery} facets={facets} />
      <Decisions key={`${order} ${queryKey(query)}`} order={order} query={query} version={version} actions={actions} />
    </div>
  );
}

function Decisions({ order, query, version, actions }: {
  order: HistoryOrder;
  query: HistoryQuery;
  version: number;
  actions: CardActions;
}) {
  const [items, setItems] = useState<Presented[] | null>(null);
  // The count follows the rows: `total` is null while it is being counted for a new query (a
  // query read again keeps its last count meanwhile).
  const [summary, setSummary] = useState<{ key: string; words: string; total: number | null; atLeast: boolean; failed?: string } | null>(null);
  // The query whose count is being taken (one at a time: a read of the same query meanwhile
  // keeps the count it will get), and the query shown now (a count for another is dropped).
  const counting = useRef<string | null>(null);
  const countAgain = useRef(false);
  const shownKey = useRef("");
  // One count at a time per query; decisions that arrive meanwhile are counted once it ends.
  const countFor = useCallback((key: string, q: HistoryQuery, words: string) => {
    if (counting.current === key) { countAgain.current = true; return; }
    counting.current = key;
    countAgain.current = false;
    api.historyCount(q)
      .then(({ total, at_least }) => {
        if (shownKey.current === key) setSummary({ key, words, total, atLeast: at_least });
      })
      .catch((e: Error) => {
        if (shownKey.current === key) setSummary({ key, words, total: null, atLeast: false, failed: e.message });
      })
      .finally(() => {
        if (counting.current !== key) return;
        counting.current = null;
        if (countAgain.current && shownKey.current === key) countFor(key, q, words);
      });
  }, []);
  const [more, setMore] = useState(false);
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const key = queryKey(query);
    shownKey.current = key;
    api.history(order, null, query).then(({ calls: page, in_words }) => {
      if (!live) return;
      setItems((prev) => {
        const merged = mergeFirst(prev, page, order);
        // What was read past the first page still ends where it did.
        if (merged === page) setMore(page.length === PAGE);
        return merged;
      });
      setSummary((s) => (s?.key === key ? { ...s, words: in_words } : { key, words: in_words, total: null, atLeast: false }));
      setError(null);
      // Counted once the rows are in: a count over a million decisions never holds them back.
      countFor(key, query, in_words);
    }).catch((e: Error) => { if (live) setError(e.message); });
    return () => { live = false; };
  }, [version, order, query]);

  const readOlder = useCallback(async () => {
    const last = items?.[items.length - 1]?.approval;
    if (!last || last.decided_at === null || reading) return;
    setReading(true);
    try {
      const { calls: page } = await api.history(order, { decided_at: last.decided_at, id: last.id }, query);
      setItems((prev) => {
        const have = new Set((prev ?? []).map((p) => p.approval.id));
        return [...(prev ?? []), ...page.filter((p) => !have.has(p.approval.id))];
      });
      setMore(page.length === PAGE);
      setError(null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setReading(false);
    }
  }, [items, order, query, reading]);

  const listRef = useRef<HTMLDivElement>(null);
  const count = items?.length ?? 0;
  // The call whose card is shown, by id: the first listed until the person picks another.
  const [picked, setPicked] = useState<string | null>(null);
  const at = items === null || picked === null ? -1 : items.findIndex((p) => p.approval.id === picked);
  const selectedIndex = at >= 0 ? at : count > 0 ? 0 : -1;
  const selected = items?.[selectedIndex];
  const rowsRef = useRef<HTMLDivElement>(null);
  const shown = useRowWindow(count, ROW, listRef, rowsRef);
  const lastShown = shown.last;
  useEffect(() => {
    if (more && !reading && !error && count > 0 && lastShown >= count - READ_AHEAD) void readOlder();
  }, [lastShown, count, more, reading, error, readOlder]);
  useEffect(() => {
    shown.scrollTo(selectedIndex);
    document.querySelector(".history .inbox-card")?.scrollTo({ top: 0 });
  }, [selected?.approval.id]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (document.querySelector(".overlay") || e.ctrlKey || e.metaKey || e.altKey) return;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      const by = e.key === "j" ? 1 : e.key === "k" ? -1 : 0;
      if (by !== 0 && items && count > 0) {
        const next = items[Math.min(Math.max(selectedIndex + by, 0), count - 1)];
        if (next) setPicked(next.approval.id);
        e.preventDefault();
      } else if (e.key === "Enter" && selected && t === document.body) {
        actions.openApproval?.(selected.approval.id);
        e.preventDefault();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  if (items === null) {
    return error ? <p className="error" data-testid="history-error">{error}</p> : <p className="muted">Loading…</p>;
  }
  const filtered = queryKey(query) !== "{}";
  return (
    <>
      <div className="history-head">
        {summary && (filtered || (summary.total ?? 0) > 0) && (
          <p className="query-words" data-testid="history-summary" aria-live="polite" aria-busy={summary.total === null && !summary.failed}>
            {filtered && <>{summary.words}{dateWords(query)}: </>}
            {summary.total === null
              ? <span className="muted" data-testid="history-counting">
                {summary.failed ? `not counted (${summary.failed})` : "counting…"}</span>
              : <strong>{summary.atLeast
                ? `more than ${summary.total.toLocaleString()} calls`
                : `${summary.total.toLocaleString()} ${summary.total === 1 ? "call" : "calls"}`}</strong>}
            {!filtered && summary.total !== null && " in History"}
          </p>
        )}
        {error && <p className="error" data-testid="history-error">{error}</p>}
      </div>
      <div className="inbox-split">
        <div className="list-frame">
          <div ref={listRef} className="inbox-list" role="listbox" aria-label="Decided calls"
            data-testid="history-list" data-count={items.length}>
            {items.length === 0 && <p className="muted list-empty" data-testid="history-empty">
              {filtered ? "Nothing in History matches." : "No decisions yet."}</p>}
            <div ref={rowsRef} style={{ height: shown.total, position: "relative" }}>
              {items.slice(shown.first, shown.last + 1).map((p, i) => {
                const index = shown.first + i;
                return (
                  <div key={p.approval.id} className="row-slot" style={{ height: ROW, transform: `translateY(${index * ROW}px)` }}>
                    <HistoryRow p={p} selected={index === selectedIndex} onSelect={setPicked} />
                  </div>
                );
              })}
            </div>
            {more && (
              <button className="link history-list-end" onClick={() => void readOlder()} disabled={reading} data-testid="history-more">
                {reading ? "Reading older decisions…" : order === "newest_first" ? "Load older decisions" : "Load later decisions"}
              </button>
            )}
            {!more && items.length > 0 && <p className="muted history-list-end" data-testid="history-end">
              {filtered ? "The end of what matches."
                : order === "newest_first" ? "The earliest decision." : "The latest decision."}</p>}
          </div>
        </div>
          <div className="inbox-card" data-testid="history-card">
            {selected && <ApprovalCard key={selected.approval.id} p={selected} selected actions={actions} armed={false} />}
          </div>
      </div>
    </>
  );
}
