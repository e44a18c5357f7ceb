import type { InboxGroup } from "../api/types/InboxGroup";
import type { Mark } from "../api/types/Mark";
import { assertNever } from "../lib/assert";
import type { Presented } from "../api/types/Presented";
import { memo } from "react";

import { Age } from "./Clock";
import { Verbatim } from "./Verbatim";

/** How much of a field a row shows: a row is one line, the card holds the rest. */
const SHOWN_CHARS = 240;
const encoder = new TextEncoder();

/** The start of `text` a row shows, with the marks that fall in it; a mark the cut would split
 * ends the cut before it. */
export function head(text: string, marks: Mark[] | undefined): { text: string; marks: Mark[]; cut: boolean } {
  if (text.length <= SHOWN_CHARS) return { text, marks: marks ?? [], cut: false };
  let shown = text.slice(0, SHOWN_CHARS);
  // Never half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(shown)) shown = shown.slice(0, -1);
  let bytes = encoder.encode(shown).length;
  const split = (marks ?? []).find((m) => m.start < bytes && m.end > bytes);
  if (split) {
    shown = new TextDecoder().decode(encoder.encode(shown).slice(0, split.start));
    bytes = split.start;
  }
  return { text: shown, marks: (marks ?? []).filter((m) => m.end <= bytes), cut: true };
}

/**
 * A field's start, marked. A field with more hidden characters than its marks list (`more`)
 * is shown only up to its last listed mark, then says the rest holds hidden characters: text
 * past the listed marks could hold ones no mark stands for.
 */
function Field({ text, marks, more }: { text: string; marks?: Mark[]; more?: number }) {
  if ((more ?? 0) > 0) {
    const listed = marks ?? [];
    const end = listed.length > 0 ? listed[listed.length - 1]!.end : 0;
    const upTo = new TextDecoder().decode(encoder.encode(text).slice(0, end));
    const h = head(upTo, listed);
    return (
      <bdi>
        <Verbatim text={h.text} marks={h.marks} />
        <span className="mark mark-more" data-testid="marks-more-inline">⟨more hidden characters: see the card⟩</span>
      </bdi>
    );
  }
  const h = head(text, marks);
  return <bdi><Verbatim text={h.text} marks={h.marks} />{h.cut && "…"}</bdi>;
}

/** What a call would do, in a line: the command, the files, or the card's title. */
export function WhatItDoes({ p }: { p: Presented }) {
  const call = p.approval.call;
  switch (call.card) {
    case "terminal":
      return <span className="mono"><Field text={call.command} marks={p.marks["call.command"]} more={p.more_marks["call.command"]} /></span>;
    case "diff":
      return (
        <span className="mono">
          {call.diffs.slice(0, 3).map((d, i) => (
            <span key={i}>{i > 0 && ", "}<Field text={d.path} marks={p.marks[`call.diffs[${i}].path`]}
              more={p.more_marks[`call.diffs[${i}].path`]} /></span>
          ))}
          {call.diffs.length > 3 && <span className="muted"> and {call.diffs.length - 3} more</span>}
        </span>
      );
    case "generic":
      return <Field text={call.title} marks={p.marks["call.title"]} more={p.more_marks["call.title"]} />;
    case "question": {
      const first = call.questions[0];
      return (
        <span>
          <span className="pill">asks</span>{" "}
          {first && <Field text={first.question} marks={p.marks["call.questions[0].question"]}
            more={p.more_marks["call.questions[0].question"]} />}
          {call.questions.length > 1 && <span className="muted"> and {call.questions.length - 1} more</span>}
        </span>
      );
    }
    case "plan":
      return <span><span className="pill">plan</span>{" "}<Field text={call.title} marks={p.marks["call.title"]} more={p.more_marks["call.title"]} /></span>;
    default:
      return assertNever(call);
  }
}

/** The last part of a project's path: what a row has room for (the chip and card say all). */
export function projectName(project: string): string {
  const parts = project.split(/[\\/]/).filter((x) => x !== "");
  return parts[parts.length - 1] ?? project;
}

/** The keys of groups whose label (agent and last folder) another group shares: those show
 * the project's whole path, so two chips or rows never look alike. */
export function clashing(groups: readonly InboxGroup[]): Set<string> {
  const seen = new Map<string, string[]>();
  for (const g of groups) {
    const label = JSON.stringify([g.agent, g.project === null ? null : projectName(g.project)]);
    const key = JSON.stringify([g.agent, g.project]);
    const keys = seen.get(label) ?? [];
    if (!keys.includes(key)) keys.push(key);
    seen.set(label, keys);
  }
  return new Set([...seen.values()].filter((keys) => keys.length > 1).flat());
}

/** An agent and its project (its last folder, or `whole` the path), each with its hidden
 * characters marked and isolated, so no name reorders what is drawn after it. */
export function Who({ group, whole, machine }: { group: InboxGroup; whole?: boolean; machine?: string }) {
  const project = group.project;
  const marked = group.project_marks.length > 0 || group.project_more > 0;
  return (
    <>
      <span className="agent"><Field text={group.agent} marks={group.agent_marks} more={group.agent_more} /></span>
      {/* Before the project: which machine asked is what a narrow row must not cut off. */}
      {machine !== undefined && <span className="machine" data-testid="row-machine"> · on <strong>{machine}</strong></span>}
      {project !== null && (
        <span className="project">
          {" · "}
          {whole || marked
            ? <Field text={project} marks={group.project_marks} more={group.project_more} />
            : <bdi>{projectName(project)}</bdi>}
        </span>
      )}
    </>
  );
}

/** Who asks from where, as a chip or row shows it, from a card. */
export function groupOf(p: Presented): InboxGroup {
  const a = p.approval;
  return {
    agent: a.requester.name, project: a.requester.cwd ?? null,
    agent_marks: p.marks["requester.name"] ?? [], project_marks: p.marks["requester.cwd"] ?? [],
    agent_more: p.more_marks["requester.name"] ?? 0, project_more: p.more_marks["requester.cwd"] ?? 0,
  };
}

/** Why a row carries ⚠, in words (its title), or null. */
export function warning(p: Presented): string | null {
  const said: string[] = [];
  const hidden = p.approval.hidden_marks;
  if (hidden > 0) said.push(`${hidden.toLocaleString("en-US")} hidden character${hidden === 1 ? "" : "s"}`);
  if (p.coverage.unshown.length > 0 || p.coverage.disagree.length > 0) said.push("the raw input holds what the card does not show");
  return said.length > 0 ? said.join("; ") : null;
}

/**
 * One pending call as the inbox lists it, on two lines: agent and project, tool and age, then
 * what it would run; ⚠ when it carries hidden characters or the card does not show all it holds.
 * A call whose card is not read yet shows who asks and when; the rest once it is read.
 */
export const InboxRow = memo(function InboxRow({ id, group, whole, createdAt, p, machine, selected, onSelect }: {
  id: string;
  /** The machine whose agent token asked the call, when one did. */
  machine?: string;
  group: InboxGroup;
  /** Show the project's whole path (its last folder is another group's too). */
  whole?: boolean;
  createdAt: number;
  p: Presented | undefined;
  selected: boolean;
  /** Selects the row's call (one function for every row, so a row draws again only when
   * what it shows changed). */
  onSelect: (id: string) => void;
}) {
  const warn = p ? warning(p) : null;
  return (
    <div role="option" id={`row-${id}`} aria-selected={selected} className={`inbox-row ${selected ? "selected" : ""}`}
      data-testid="inbox-row" data-id={id} data-warn={warn !== null} onClick={() => onSelect(id)}>
      <span className="warn" title={warn ?? undefined} aria-label={warn ? `Warning: ${warn}` : undefined}
        data-testid={warn ? "row-warning" : undefined}>{warn ? "⚠" : ""}</span>
      <span className="who"><Who group={group} whole={whole} machine={machine} /></span>
      {p ? (
        <>
          <code className="tool mono" data-testid="row-tool">{p.approval.tool}</code>
          <span className="what" data-testid="row-what"><WhatItDoes p={p} /></span>
        </>
      ) : <span className="what muted" aria-busy="true">Loading…</span>}
      <span className="age muted"><Age at={createdAt} /></span>
    </div>
  );
});

const OUTCOME: Record<string, string> = {
  approved: "approved", declined: "declined", expired: "expired", cancelled: "withdrawn", pending: "pending",
};

/** Whether a call's result says it failed: a non-zero exit, a signal, or an error. */
export function failed(p: Presented): boolean {
  const r = p.approval.result;
  if (!r) return false;
  if (r.card === "terminal") return (r.exit_code !== undefined && r.exit_code !== 0) || r.signal !== undefined;
  return r.card === "generic" && r.error !== undefined;
}

/**
 * One decided call as History lists it, on two lines: its outcome, who asked from where and when
 * it was decided, then what it ran and a failed result. ⚠ as in the inbox.
 */
export const HistoryRow = memo(function HistoryRow({ p, selected, onSelect }: {
  p: Presented;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const a = p.approval;
  const group = groupOf(p);
  const warn = warning(p);
  const by = a.decided_by === null ? "" : a.decided_by === "person"
    ? (a.decided_on ? `by you on ${a.decided_on}${a.decided_from ? ` (from ${a.decided_from})` : ""}` : "by you") : "by a rule";
  return (
    <div role="option" id={`row-${a.id}`} aria-selected={selected} className={`inbox-row history-row ${selected ? "selected" : ""}`}
      data-testid="history-row" data-id={a.id} data-status={a.status} onClick={() => onSelect(a.id)}>
      <span className="warn" title={warn ?? undefined} aria-label={warn ? `Warning: ${warn}` : undefined}
        data-testid={warn ? "row-warning" : undefined}>{warn ? "⚠" : ""}</span>
      <span className={`outcome-word status-${a.status}`} title={by}>{OUTCOME[a.status] ?? a.status}</span>
      <span className="who"><Who group={group} /></span>
      <span className="what" data-testid="row-what">
        {failed(p) && <span className="failed" data-testid="row-failed">failed · </span>}
        {a.watched && <span className="pill" data-testid="row-watched" title="A rule you are trying out decided nothing: this is what it would have done">
          rule would have {a.watched.effect === "approve" ? "approved" : "declined"}</span>}{a.watched && " "}<WhatItDoes p={p} /></span>
      <span className="age muted">{a.decided_at !== null && <Age at={a.decided_at} />}</span>
    </div>
  );
});
