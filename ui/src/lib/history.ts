// History's query as the window holds it: a stable key, and the chips that show each filter.
import type { Decider } from "../api/types/Decider";
import type { HistoryQuery } from "../api/types/HistoryQuery";
import type { Outcome } from "../api/types/Outcome";

/** The query without its unset parts, as a stable string (`{}` when nothing narrows it). */
export function queryKey(q: HistoryQuery): string {
  const set = Object.entries(q)
    .filter(([k, v]) => v !== undefined && v !== null && v !== false && !(k === "text" && String(v).trim() === ""))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(set));
}

/** The query as the shell takes it: blank text and empty values left out. */
export function cleaned(q: HistoryQuery): HistoryQuery {
  return JSON.parse(queryKey(q)) as HistoryQuery;
}

export const OUTCOMES: Record<Outcome, string> = {
  approved: "Approved",
  declined: "Declined",
  expired: "Expired",
  withdrawn: "Withdrawn",
};

/** A decider's words on its chip. */
export function deciderWords(d: Decider): string {
  switch (d.kind) {
    case "person": return "decided by you";
    case "any_rule": return "decided by a rule";
    case "rule": return `decided by rule ${d.id}`;
    case "expiry": return "expired unanswered";
  }
}

/** One removable chip per filter set, in a fixed order. */
export interface Chip {
  key: keyof HistoryQuery;
  label: string;
}

/** A short date for a chip (local time). */
function day(ms: number): string {
  return new Date(ms).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

export function chips(q: HistoryQuery): Chip[] {
  const out: Chip[] = [];
  if (q.text?.trim()) out.push({ key: "text", label: `“${q.text.trim()}”` });
  if (q.agent) out.push({ key: "agent", label: `agent: ${q.agent}` });
  if (q.project) out.push({ key: "project", label: `project: ${q.project}` });
  if (q.session) out.push({ key: "session", label: `session: ${q.session}` });
  if (q.tool) out.push({ key: "tool", label: `tool: ${q.tool}` });
  if (q.outcome) out.push({ key: "outcome", label: OUTCOMES[q.outcome].toLowerCase() });
  if (q.decider) out.push({ key: "decider", label: deciderWords(q.decider) });
  if (q.watched_by) out.push({ key: "watched_by", label: `rule ${q.watched_by} would have decided` });
  if (q.failed) out.push({ key: "failed", label: "failed results" });
  if (q.since !== undefined) out.push({ key: "since", label: `from ${day(q.since)}` });
  if (q.until !== undefined) out.push({ key: "until", label: `through ${day(q.until - 1)}` });
  return out;
}

/** `q` without `key`. */
export function without(q: HistoryQuery, key: keyof HistoryQuery): HistoryQuery {
  const next = { ...q };
  delete next[key];
  return next;
}

/** The local midnight starting `date` (`YYYY-MM-DD` from a date input), as unix ms. */
export function midnight(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime();
}

/** `ms` as a date input's value (local). */
export function dateValue(ms: number | undefined): string {
  if (ms === undefined) return "";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The query's dates in words for the summary (local dates), after the shell's words. */
export function dateWords(q: HistoryQuery): string {
  const from = q.since !== undefined ? `, from ${day(q.since)}` : "";
  // `until` is the midnight after the last day picked.
  const to = q.until !== undefined ? `, through ${day(q.until - 1)}` : "";
  return from + to;
}

/** The local midnight ending `date` (the start of the next day, whatever its length). */
export function nextMidnight(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).getTime();
}

/** The day a `until` (a next midnight) ends, as a date input's value. */
export function lastDayValue(until: number | undefined): string {
  return until === undefined ? "" : dateValue(until - 1);
}
