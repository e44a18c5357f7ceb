import { useEffect, useRef, useState } from "react";

import type { HistoryFacets } from "../api/types/HistoryFacets";
import type { HistoryQuery } from "../api/types/HistoryQuery";
import type { Outcome } from "../api/types/Outcome";
import { chips, cleaned, dateValue, lastDayValue, midnight, nextMidnight, OUTCOMES, without } from "../lib/history";

/** How long typing pauses before the search runs. */
const TYPING_MS = 250;

/** History's search box, its filters and a removable chip for each filter set. `/` focuses
 * the search; Escape in it clears it. */
export function HistoryFilters({ query, setQuery, facets }: {
  query: HistoryQuery;
  setQuery: (q: HistoryQuery) => void;
  facets: HistoryFacets;
}) {
  const [text, setText] = useState(query.text ?? "");
  const search = useRef<HTMLInputElement>(null);
  const apply = (q: HistoryQuery) => setQuery(cleaned(q));
  // The box follows the query when a chip or a link changes it.
  useEffect(() => { setText((t) => (t.trim() === (query.text ?? "").trim() ? t : query.text ?? "")); }, [query.text]);
  useEffect(() => {
    // Spaces alone change no search.
    if ((query.text ?? "").trim() === text.trim()) return undefined;
    const t = window.setTimeout(() => apply({ ...query, text }), TYPING_MS);
    return () => window.clearTimeout(t);
  });
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement
        || e.target instanceof HTMLTextAreaElement;
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  }, []);

  const set = chips(query);
  return (
    <div className="history-filters">
      <input ref={search} className="history-search" type="search" value={text} data-testid="history-search"
        placeholder="Search what agents asked and what came back: commands, paths, titles, reasons, output  ( / )"
        aria-label="Search History" maxLength={1000}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") apply({ ...query, text });
          if (e.key === "Escape" && text !== "") { e.preventDefault(); setText(""); apply({ ...query, text: "" }); }
        }} />
      <div className="filter-row" role="group" aria-label="Filters">
        <Field label="Agent" testid="filter-agent" value={query.agent} options={facets.agents}
          set={(v) => apply({ ...query, agent: v })} />
        <Field label="Project" testid="filter-project" value={query.project} options={facets.projects}
          set={(v) => apply({ ...query, project: v })} />
        <Field label="Session" testid="filter-session" value={query.session} options={[]}
          set={(v) => apply({ ...query, session: v })} />
        <Field label="Tool" testid="filter-tool" value={query.tool} options={[]}
          set={(v) => apply({ ...query, tool: v })} />
        <label className="filter">Outcome
          <select data-testid="filter-outcome" value={query.outcome ?? ""}
            onChange={(e) => apply({ ...query, outcome: (e.target.value || undefined) as Outcome | undefined })}>
            <option value="">any</option>
            {(Object.keys(OUTCOMES) as Outcome[]).map((o) => <option key={o} value={o}>{OUTCOMES[o]}</option>)}
          </select>
        </label>
        <label className="filter">Decided by
          <select data-testid="filter-decider" value={query.decider?.kind === "rule" ? "rule" : query.decider?.kind ?? ""}
            onChange={(e) => {
              const v = e.target.value;
              if (v === "rule") return;
              apply({ ...query, decider: v === "person" || v === "any_rule" || v === "expiry" ? { kind: v } : undefined });
            }}>
            <option value="">anyone</option>
            <option value="person">you</option>
            <option value="any_rule">a rule</option>
            {query.decider?.kind === "rule" && <option value="rule">one rule (see its chip)</option>}
            <option value="expiry">nobody (expired)</option>
          </select>
        </label>
        <label className="filter check">
          <input type="checkbox" data-testid="filter-failed" checked={query.failed ?? false}
            onChange={(e) => apply({ ...query, failed: e.target.checked })} />
          Failed results
        </label>
        <label className="filter">From
          <input type="date" data-testid="filter-since" value={dateValue(query.since)} data-empty={query.since === undefined || query.since === null ? "" : undefined}
            onChange={(e) => apply({ ...query, since: midnight(e.target.value) })} />
        </label>
        <label className="filter">To
          <input type="date" data-testid="filter-until" value={lastDayValue(query.until)} data-empty={query.until === undefined || query.until === null ? "" : undefined}
            // Through the end of the day picked.
            onChange={(e) => apply({ ...query, until: nextMidnight(e.target.value) })} />
        </label>
      </div>
      {set.length > 0 && (
        <div className="chips" data-testid="history-chips">
          {set.map((c) => (
            <span key={c.key} className="chip" data-testid="history-chip">
              {c.label}
              <button className="icon" aria-label={`Remove ${c.label}`} data-testid={`remove-${c.key}`}
                onClick={() => apply(without(query, c.key))}>✕</button>
            </span>
          ))}
          {set.length > 1 && <button className="link" data-testid="history-clear" onClick={() => apply({})}>Clear all</button>}
        </div>
      )}
    </div>
  );
}

/** A text filter that applies when it is left, on Enter, or when one of `options` is picked. */
function Field({ label, testid, value, options, set }: {
  label: string;
  testid: string;
  value: string | undefined;
  options: string[];
  set: (v: string | undefined) => void;
}) {
  const [draft, setDraft] = useState(value ?? "");
  useEffect(() => { setDraft(value ?? ""); }, [value]);
  const commit = (v: string) => { if (v.trim() !== (value ?? "")) set(v.trim() || undefined); };
  const list = `${testid}-options`;
  return (
    <label className="filter">{label}
      <input data-testid={testid} value={draft} list={options.length > 0 ? list : undefined} placeholder="any"
        onChange={(e) => { setDraft(e.target.value); if (options.includes(e.target.value)) commit(e.target.value); }}
        onBlur={() => commit(draft)}
        onKeyDown={(e) => { if (e.key === "Enter") commit(draft); }} />
      {options.length > 0 && <datalist id={list}>{options.map((o) => <option key={o} value={o} />)}</datalist>}
    </label>
  );
}
