import { type ReactNode, useEffect, useRef, useState } from "react";

import type { Answer } from "../api/types/Answer";
import type { Decision } from "../api/types/Decision";
import type { Edit } from "../api/types/Edit";
import type { EditOffer } from "../api/types/EditOffer";
import type { Effect } from "../api/types/Effect";
import type { Mark } from "../api/types/Mark";
import type { Presented } from "../api/types/Presented";
import { type Reading, useReading } from "../lib/reading";
import { stamp } from "../lib/time";
import { type Answering, CallBody } from "./CallBody";
import { Since, Until } from "./Clock";
import { DiffView } from "./DiffView";
import { GrantChooser } from "./GrantChooser";
import { ResultBody } from "./ResultBody";
import { ConflictingReports, ReportedBy } from "./ResultReports";
import { moreMarks, Verbatim } from "./Verbatim";

export interface CardActions {
  /** Decides the card shown, named by its id and digest. */
  decide: (id: string, digest: string, d: Decision) => Promise<void>;
  openArtifact: (id: string) => void;
  openApproval?: (id: string) => void;
  /** An artifact's title: `undefined` while it is looked up, `null` when there is none. */
  artifactTitle: (id: string) => ArtifactTitle | null | undefined;
  /** The machine an agent token was made for (`undefined` while looked up, or where the
   * names are not known, as on the phone). */
  machineName?: (id: string) => string | undefined;
  /** Shows a failure the person must see (e.g. a keyboard decision on an expired request). */
  report: (message: string) => void;
}

/** An artifact's title as a card names it, with its hidden-character marks. */
export interface ArtifactTitle { title: string; marks?: Mark[] }

/** Where the inbox finds, by approval id, whether each card's command has been read to its
 * end: its `a` key asks before it decides. */
export type Readings = Map<string, Reading>;

const count = (x: number) => x.toLocaleString("en-US");

/** One approval: who asks, what exactly would run, and the person's choices. `armed` is false
 * while the decision buttons are inert (the card just appeared or moved). */
export function ApprovalCard({ p, selected, actions, armed, declining, setDeclining, choosing, setChoosing, readings, onPhone, rules }: {
  p: Presented;
  /** Shown on the phone page: approve or decline this call only; rules are made at the desk. */
  onPhone?: boolean;
  /** On a team's page: its own "don't ask again", shown above the buttons it goes with. */
  rules?: ReactNode;
  selected?: boolean;
  actions: CardActions;
  armed: boolean;
  declining?: boolean;
  setDeclining?: (on: boolean) => void;
  /** The "don't ask again" chooser open on this card, for approving or declining. */
  choosing?: Effect | null;
  setChoosing?: (effect: Effect | null) => void;
  readings?: Readings;
}) {
  const a = p.approval;
  const pending = a.status === "pending";
  const ref = useRef<HTMLElement>(null);
  // A pending command is approved only once its end has been on screen.
  const reading = useReading(a.digest, pending && a.call.card === "terminal");
  useEffect(() => {
    readings?.set(a.id, reading);
    return () => { readings?.delete(a.id); };
  });
  // Only a card that becomes selected is brought into view: one that is put back in the page
  // as the person scrolls (the inbox keeps only what is on screen) never pulls the view.
  const wasSelected = useRef(selected);
  useEffect(() => {
    if (selected && !wasSelected.current) ref.current?.scrollIntoView({ block: "nearest" });
    wasSelected.current = selected;
  }, [selected]);
  const covered = p.coverage.unshown.length === 0 && p.coverage.disagree.length === 0;
  const answering = useAnswering(p, pending && (selected ?? true), armed, actions);
  const [editing, setEditing] = useState(false);
  useEditKey(p, pending && (selected ?? true) && !onPhone && !editing, reading, setEditing);
  return (
    <article ref={ref} className={`card ${selected ? "selected" : ""} status-${a.status}`}
      data-testid="approval-card" data-id={a.id} data-status={a.status} data-armed={pending && armed}
      data-read-to-end={reading.ready}>
      <CardHeader p={p} actions={actions} onPhone={onPhone ?? false} />
      {a.hidden_marks > 0 && (
        <div className="warning" role="alert" data-testid="hidden-warning">
          ⚠ This call carries {count(a.hidden_marks)} hidden character{a.hidden_marks === 1 ? "" : "s"} —
          shown below as ⟨labelled marks⟩. They can make text read differently from what runs.
          <MoreMarks p={p} />
        </div>
      )}
      {!covered && <NotOnCard p={p} />}
      {a.watched && <p className="watched" data-testid="card-watched">A rule you are trying out would have{" "}
        <strong>{a.watched.effect === "approve" ? "approved" : "declined"}</strong> this call; it is watching, so it
        decided nothing (<code className="mono">{a.watched.grant}</code> on the Grants page).</p>}
      <h3 className="card-title"><Verbatim text={a.call.title} marks={p.marks["call.title"]} /></h3>
      <CallBody p={p} reading={reading.refs} answering={answering?.state} />
      {pending && answering ? (
        <AnswerChoices p={p} answering={answering} armed={armed} declining={declining ?? false}
          setDeclining={setDeclining} actions={actions} onPhone={onPhone ?? false} />
      ) : pending && a.call.card === "plan" ? (
        <PlanChoices p={p} armed={armed} declining={declining ?? false} setDeclining={setDeclining} actions={actions} />
      ) : pending && editing && p.edit ? (
        <EditForm p={p} offer={p.edit} armed={armed} close={() => setEditing(false)} actions={actions} />
      ) : pending ? (
        <Choices p={p} actions={actions} armed={armed} declining={declining ?? false} setDeclining={setDeclining}
          choosing={choosing ?? null} setChoosing={setChoosing} reading={reading} onPhone={onPhone ?? false}
          edit={() => setEditing(true)} rules={rules} />
      ) : (
        <Outcome p={p} actions={actions} />
      )}
    </article>
  );
}

/** A question card's answers while the person chooses, and sending them. */
interface QuestionAnswers {
  state: Answering;
  complete: boolean;
  send: () => Promise<void>;
  busy: boolean;
  error: string | null;
}

/** Whether every question has an option chosen or words typed. */
function answered(a: Answer): boolean {
  return a.chosen.length > 0 || (a.other ?? "").trim() !== "";
}

/** The answers of a pending question card (else `undefined`); on the selected card, keys 1–9
 * pick an option of the question in focus (toggle in a multiple choice), Enter sends them. */
function useAnswering(p: Presented, keys: boolean, armed: boolean, actions: CardActions): QuestionAnswers | undefined {
  const call = p.approval.call;
  const count = call.card === "question" ? call.questions.length : 0;
  const [answers, setAnswers] = useState<Answer[]>(() => Array.from({ length: count }, () => ({ chosen: [] })));
  const [focused, setFocused] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const complete = count > 0 && answers.length === count && answers.every(answered);
  const set = (i: number, answer: Answer) => setAnswers((all) => all.map((x, k) => (k === i ? answer : x)));
  const send = async () => {
    if (!armed || !complete || busy) return;
    setBusy(true);
    setError(null);
    const given = answers.map((x) => ({ chosen: x.chosen, other: (x.other ?? "").trim() || undefined }));
    try {
      await actions.decide(p.approval.id, p.approval.digest, { decision: "answer", answers: given });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  useEffect(() => {
    if (call.card !== "question" || !keys) return;
    const onKey = (e: KeyboardEvent) => {
      // Keys typed into a field or pressed on a button are theirs: only the page itself and
      // this card's own options take 1–9 and Enter.
      const t = e.target instanceof HTMLElement ? e.target : null;
      const option = t instanceof HTMLInputElement && (t.type === "radio" || t.type === "checkbox")
        && t.closest(`[data-id='${p.approval.id}']`) !== null;
      if (t && !option && t.closest("input, textarea, select, button, a, summary, [contenteditable]")) return;
      if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector(".overlay")) return;
      const q = call.questions[focused];
      if (/^[1-9]$/.test(e.key) && q) {
        const j = Number(e.key) - 1;
        if (j >= q.options.length) return;
        const a = answers[focused] ?? { chosen: [] };
        const chosen = q.multi_select
          ? (a.chosen.includes(j) ? a.chosen.filter((c) => c !== j) : [...a.chosen, j])
          : [j];
        set(focused, { chosen, other: q.multi_select ? a.other : undefined });
        // A single choice made, the next question is in focus.
        if (!q.multi_select && focused + 1 < count) setFocused(focused + 1);
      } else if (e.key === "Tab" && count > 1 && !option) {
        // From the page itself only: on an option, Tab moves the focus on as anywhere else.
        setFocused((focused + (e.shiftKey ? count - 1 : 1)) % count);
      } else if (e.key === "Enter") {
        if (e.repeat) return;
        if (complete) void send();
        else actions.report("Answer every question first: pick with 1–9, Tab for the next question.");
      } else if (e.key === "a" || e.key === "A") {
        actions.report("A question is answered, not approved: pick with 1–9, then Enter.");
      } else {
        return;
      }
      // The inbox's own keys (a, Enter) do not act on a question.
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  });
  if (call.card !== "question") return undefined;
  return { state: { answers, set, focused, setFocused }, complete, send, busy, error };
}

function AnswerChoices({ p, answering, armed, declining, setDeclining, actions, onPhone }: {
  p: Presented; answering: QuestionAnswers; armed: boolean; declining: boolean;
  setDeclining?: (on: boolean) => void; actions: CardActions; onPhone: boolean;
}) {
  const inert = answering.busy || !armed;
  return (
    <footer className={`choices ${armed ? "" : "arming"}`}>
      {declining ? (
        <DeclineForm p={p} armed={armed} label="Why not answer (the agent reads it; optional)" setDeclining={setDeclining} actions={actions} />
      ) : (
        <>
        {p.answers_as_reason && (
          <p className="warning" data-testid="answers-as-reason">
            This agent's hook cannot receive answers: sending them declines the call, and the model reads your answers as the reason.</p>
        )}
        <div className="row">
          <button className="primary" disabled={inert || !answering.complete} onClick={() => void answering.send()}
            data-testid="send-answers" title={answering.complete ? "Enter" : "Answer every question first"}>
            Send answers <kbd>Enter</kbd></button>
          <button className="danger" disabled={inert} onClick={() => setDeclining?.(true)}
            data-testid="decline" title="d">Decline… <kbd>d</kbd></button>
        </div>
        </>
      )}
      <p className="muted scope" data-testid="grant-scope">
        {onPhone ? "Pick an answer for every question, then Send answers. "
          : <>Keys <kbd>1</kbd>–<kbd>9</kbd> pick an option of the question in focus (<kbd>Tab</kbd> moves between questions). </>}
        A question is answered each time: no rule is made from it.</p>
      {answering.error && <p className="error" role="alert">{answering.error}</p>}
    </footer>
  );
}

function PlanChoices({ p, armed, declining, setDeclining, actions }: {
  p: Presented; armed: boolean; declining: boolean; setDeclining?: (on: boolean) => void; actions: CardActions;
}) {
  const call = p.approval.call;
  const modes = call.card === "plan" ? call.modes : [];
  const feedback = call.card === "plan" && call.feedback;
  // No mode is chosen for the person: approving waits until they pick one.
  const [mode, setMode] = useState<string | null>(null);
  const unchosen = modes.length > 0 && mode === null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const approve = async () => {
    if (!armed || busy || unchosen) return;
    setBusy(true);
    setError(null);
    try {
      await actions.decide(p.approval.id, p.approval.digest, { decision: "approve_plan", mode: mode ?? undefined });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <footer className={`choices ${armed ? "" : "arming"}`}>
      {declining ? (
        <DeclineForm p={p} armed={armed} setDeclining={setDeclining} actions={actions}
          label={feedback ? "What to change (the agent reads it and keeps planning)" : "Reason (optional)"} />
      ) : (
        <>
          {modes.length > 0 && (
            <div className="modes" role="radiogroup" aria-label="Once approved">
              <span className="label">Once approved, the agent</span>
              {modes.map((m, i) => (
                <label key={m.id}><input type="radio" name={`mode-${p.approval.id}`} checked={mode === m.id}
                  onChange={() => setMode(m.id)} data-testid="plan-mode" data-mode={m.id} />{" "}
                  <Verbatim text={m.label} marks={p.marks[`call.modes[${i}].label`]} /></label>
              ))}
            </div>
          )}
          <div className="row">
            <button className="primary" disabled={busy || !armed || unchosen} onClick={() => void approve()} data-testid="approve-plan"
              title={unchosen ? "Choose how the agent goes on first" : undefined}>
              Approve the plan</button>
            <button className="danger" disabled={busy || !armed} onClick={() => setDeclining?.(true)} data-testid="decline">
              {feedback ? "Keep planning…" : "Decline…"} <kbd>d</kbd></button>
          </div>
        </>
      )}
      <p className="muted scope" data-testid="grant-scope">A plan is approved each time: no rule is made from it.</p>
      {error && <p className="error" role="alert">{error}</p>}
    </footer>
  );
}

/** Declining with words the agent reads. */
function DeclineForm({ p, armed, label, setDeclining, actions }: {
  p: Presented; armed: boolean; label: string; setDeclining?: (on: boolean) => void; actions: CardActions;
}) {
  const a = p.approval;
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    if (!armed || busy) return;
    setBusy(true);
    try {
      await actions.decide(a.id, a.digest, { decision: "decline", reason: reason.trim() || undefined });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <form className="decline-form" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <label htmlFor={`reason-${a.id}`}>{label}</label>
      <input id={`reason-${a.id}`} data-testid="decline-reason" autoFocus value={reason}
        onChange={(e) => setReason(e.target.value)} maxLength={4000}
        onKeyDown={(e) => { if (e.key === "Escape") setDeclining?.(false); }} />
      <div className="row">
        <button type="submit" className="danger" disabled={busy || !armed} data-testid="confirm-decline">Send</button>
        <button type="button" onClick={() => setDeclining?.(false)}>Cancel</button>
      </div>
      {error && <p className="error" role="alert">{error}</p>}
    </form>
  );
}

/** Fields with more hidden characters than a card marks one by one: how many past the marks. */
function MoreMarks({ p }: { p: Presented }) {
  const cut = Object.entries(p.more_marks).filter((e): e is [string, number] => (e[1] ?? 0) > 0);
  if (cut.length === 0) return null;
  const listed = (field: string) => p.marks[field]?.length ?? 0;
  return (
    <ul className="fields" data-testid="marks-more">
      {cut.map(([field, more]) => (
        <li key={field}>
          <code className="mono">{field}</code>: the first {count(listed(field))} are marked, {moreMarks(more)}
        </li>
      ))}
    </ul>
  );
}

/** The raw input holds what the card does not show, or contradicts it: say which fields. */
function NotOnCard({ p }: { p: Presented }) {
  const { unshown, disagree } = p.coverage;
  return (
    <div className="warning" role="alert" data-testid="not-on-card">
      ⚠ The raw input below is what the agent will run with, and the card does not show all of it.
      <ul className="fields">
        {disagree.map((f) => <li key={f}><code className="mono">{f}</code> differs from the card</li>)}
        {unshown.map((f) => <li key={f}><code className="mono">{f}</code> is not on the card</li>)}
      </ul>
    </div>
  );
}

/** Where a call asked with an agent token comes from: the machine the person named when the
 * token was made — not what the agent says of itself. */
export function Machine({ name }: { name: string | undefined }) {
  return (
    <span className="machine" data-testid="card-machine" title="Asked with this machine's agent token">
      {" · on "}<strong>{name ?? "another machine"}</strong>
    </span>
  );
}

function CardHeader({ p, actions, onPhone }: { p: Presented; actions: CardActions; onPhone: boolean }) {
  const a = p.approval;
  const parts = a.tool_parts;
  const artifactTitle = a.artifact_id ? actions.artifactTitle(a.artifact_id) : undefined;
  return (
    <header className="card-header">
      <div className="who">
        <span className="requester"><Verbatim text={a.requester.name} marks={p.marks["requester.name"]} /></span>
        {a.requester.session && <span className="muted session"> · session <Verbatim text={a.requester.session} marks={p.marks["requester.session"]} /></span>}
        {a.asked_with && <Machine name={actions.machineName?.(a.asked_with)} />}
      </div>
      {/* On the phone the card stands alone: it says the whole project, not only its last folder. */}
      {onPhone && a.requester.cwd && (
        <div className="project" data-testid="card-project">in <code className="mono"><Verbatim text={a.requester.cwd} marks={p.marks["requester.cwd"]} /></code></div>
      )}
      <div className="tool" data-testid="tool-address">
        {parts ? (
          <span className="parts">
            <Part label="integration" value={parts.integration} />
            <Part label={parts.owner} value={parts.connection} />
            <Part label="tool" value={parts.tool} />
          </span>
        ) : (
          <code className="mono">{a.tool}</code>
        )}
      </div>
      {a.artifact_id && (
        <button className="link" onClick={() => actions.openArtifact(a.artifact_id!)} data-testid="card-artifact">
          ◧ {artifactTitle ? <Verbatim text={artifactTitle.title} marks={artifactTitle.marks} /> : a.artifact_id}
        </button>
      )}
      {p.parent && (
        <div className="part-of" data-testid="part-of">
          part of the <span className={`badge badge-${p.parent.status}`}>{p.parent.status}</span> run{" "}
          {actions.openApproval ? (
            <button className="link" onClick={() => actions.openApproval!(p.parent!.id)}>“<Verbatim text={p.parent.title} marks={p.parent.marks} />”</button>
          ) : <>“<Verbatim text={p.parent.title} marks={p.parent.marks} />”</>}
        </div>
      )}
      <div className="times muted">
        <Since at={a.created_at} />
        {a.status === "pending" && <>{" "}· <Until at={a.expires_at} prefix="expires in " /></>}
      </div>
    </header>
  );
}

function Part({ label, value }: { label: string; value: string }) {
  return (
    <span className="part"><span className="part-label">{label}</span><code className="mono">{value}</code></span>
  );
}

function Choices({ p, actions, armed, declining, setDeclining, choosing, setChoosing, reading, onPhone, edit, rules }: {
  p: Presented; actions: CardActions; armed: boolean; declining: boolean; setDeclining?: (on: boolean) => void;
  choosing: Effect | null; setChoosing?: (effect: Effect | null) => void; reading: Reading; onPhone: boolean;
  edit: () => void; rules?: ReactNode;
}) {
  const a = p.approval;
  const [reason, setReason] = useState("");
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (d: Decision) => {
    if (!armed) return;
    setBusy(true);
    setError(null);
    try {
      await actions.decide(a.id, a.digest, d);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const named = a.artifact_id ? actions.artifactTitle(a.artifact_id) : undefined;
  const artifact = named
    ? <>“<Verbatim text={named.title} marks={named.marks} />”</>
    : <code className="mono">{a.artifact_id}</code>;
  const blocked = p.no_grant !== null;
  const inert = busy || !armed;
  if (choosing && !onPhone) {
    return (
      <footer className="choices">
        <GrantChooser p={p} effect={choosing} armed={armed} onCancel={() => setChoosing?.(null)}
          onSave={async (scope, why) => {
            await run(choosing === "approve"
              ? { decision: "approve_always", scope }
              : { decision: "decline_always", scope, reason: why });
          }} />
        {error && <p className="error" role="alert">{error}</p>}
      </footer>
    );
  }
  return (
    <footer className={`choices ${armed ? "" : "arming"}`}>
      {rules}
      {noting && !declining ? (
        <form className="decline-form note-form" onSubmit={(e) => { e.preventDefault(); if (note.trim()) void run({ decision: "approve_with_note", note: note.trim() }); }}>
          <label htmlFor={`note-${a.id}`}>A note the model reads with your approval</label>
          <input id={`note-${a.id}`} data-testid="note-text" autoFocus value={note}
            onChange={(e) => setNote(e.target.value)} maxLength={4000}
            onKeyDown={(e) => { if (e.key === "Escape") setNoting(false); }} />
          <div className="row">
            <button type="submit" className="primary" disabled={inert || !reading.ready || note.trim() === ""} data-testid="approve-with-note">Approve with this note</button>
            <button type="button" onClick={() => setNoting(false)}>Cancel</button>
          </div>
        </form>
      ) : declining ? (
        <form className="decline-form" onSubmit={(e) => { e.preventDefault(); void run({ decision: "decline", reason: reason.trim() || undefined }); }}>
          <label htmlFor={`reason-${a.id}`}>Reason for the agent (optional)</label>
          <input id={`reason-${a.id}`} data-testid="decline-reason" autoFocus value={reason}
            onChange={(e) => setReason(e.target.value)} maxLength={4000}
            onKeyDown={(e) => { if (e.key === "Escape") setDeclining?.(false); }} />
          <div className="row">
            <button type="submit" className="danger" disabled={inert} data-testid="confirm-decline">Decline</button>
            <button type="button" onClick={() => setDeclining?.(false)}>Cancel</button>
          </div>
        </form>
      ) : (
        <div className="row">
          {/* Until the command's end has been on screen, Approve brings it there: it says why
              it waits, and is never a dead button. Declining never waits. */}
          {reading.ready ? (
            <button className="primary" disabled={inert} onClick={() => void run({ decision: "approve" })}
              data-testid="approve" title="a">Approve <kbd>a</kbd></button>
          ) : (
            <button className="primary waits" disabled={busy} onClick={reading.reveal} data-testid="approve"
              data-waits="end" title="The end of the command has not been on screen yet">
              Scroll to the end of the command to approve <kbd>a</kbd></button>
          )}
          {!onPhone && (
            <button disabled={inert || blocked} onClick={() => (reading.ready ? setChoosing?.("approve") : reading.reveal())}
              data-testid="approve-always"
              title={reading.ready ? "A" : "A — first, the end of the command must have been on screen"}>
              Approve &amp; don't ask again… <kbd>A</kbd></button>
          )}
          {!onPhone && p.note && (
            <button disabled={inert} onClick={() => (reading.ready ? setNoting(true) : reading.reveal())} data-testid="note">
              Approve with a note…</button>
          )}
          {!onPhone && p.edit && (
            <button disabled={inert} onClick={() => (reading.ready ? edit() : reading.reveal())} data-testid="edit"
              title={reading.ready ? "e" : "e — first, the end of the command must have been on screen"}>
              Edit, then approve… <kbd>e</kbd></button>
          )}
          <button className="danger" disabled={inert} onClick={() => setDeclining?.(true)}
            data-testid="decline" title="d">Decline… <kbd>d</kbd></button>
          {!onPhone && (
            <button className="danger" disabled={inert} onClick={() => setChoosing?.("deny")}
              data-testid="decline-always" title="D">Decline &amp; don't ask again… <kbd>D</kbd></button>
          )}
        </div>
      )}
      {p.edit === null && p.no_edit !== null && !onPhone && (
        <p className="muted scope" data-testid="no-edit">No edit here: {p.no_edit}</p>
      )}
      {!rules && <p className="muted scope" data-testid="grant-scope">
        {onPhone
          ? <>“Don't ask again”{p.edit ? " and editing the call stay" : " stays"} at the desk: rules are made only in Countersign's window. Here you approve or decline this one call.</>
          : p.no_grant !== null
          ? p.no_grant
          : <>“Don't ask again” lets you choose what it covers (this exact call, a command or folder, or any call to <code>{a.tool}</code>){a.artifact_id ? <>, for {artifact}</> : ", here or everywhere"}, and for how long. Rules are listed on the Grants page.</>}
      </p>}
      {error && <p className="error" role="alert">{error}</p>}
    </footer>
  );
}

function Outcome({ p, actions }: { p: Presented; actions: CardActions }) {
  const a = p.approval;
  const on = a.decided_on ? ` on ${a.decided_on}${a.decided_from ? ` (from ${a.decided_from})` : ""}` : "";
  const by = a.decided_by === "person" ? `by you${on}` : a.decided_by ? `by ${a.decided_by}` : "";
  const text = {
    approved: `Approved ${by}`,
    declined: `Declined ${by}`,
    expired: "Expired before a decision",
    cancelled: "Withdrawn by the agent",
    pending: "Pending",
  }[a.status];
  return (
    <footer className="outcome">
      <p><span className={`badge badge-${a.status}`} data-testid="outcome">{text}</span>
        {a.decided_at !== null && <span className="muted"> · {stamp(a.decided_at)}</span>}
        {a.granted && <span className="muted"> · made grant {a.granted}</span>}</p>
      {a.reason && <p className="reason">Reason: {a.reason}</p>}
      <GivenAnswers p={p} />
      <p className="muted digest">{a.given?.kind === "edited" ? "The agent's call: digest " : "Digest "}<code className="mono" data-testid="digest">{a.digest}</code></p>
      {a.result ? (
        <section className="result"><h4>Result</h4>
          <ReportedBy by={a.result_by} marks={(f) => p.marks[f]} />
          <ResultBody result={a.result} diffs={p.result_diffs} valueJson={p.result_value_json} marks={(f) => ({ marks: p.marks[f], more: p.more_marks[f] })} />
          {a.result_conflicts > 0 && <ConflictingReports id={a.id} count={a.result_conflicts} />}</section>
      ) : a.status === "approved" ? <p className="muted" data-testid="no-result">No result attached.</p> : null}
      {p.nested.length > 0 && <Nested run={p} actions={actions} />}
    </footer>
  );
}

/** What the person gave beyond yes or no: a question's answers, a plan's mode. */
function GivenAnswers({ p }: { p: Presented }) {
  const { call, given } = p.approval;
  if (!given) return null;
  if (given.kind === "answers" && call.card === "question") {
    return (
      <dl className="given" data-testid="given-answers">
        {call.questions.map((q, i) => {
          const answer = given.answers[i];
          const labels = (answer?.chosen ?? []).map((j) => q.options[j]?.label ?? `option ${j + 1}`);
          return (
            <div key={i}>
              <dt><Verbatim text={q.question} marks={p.marks[`call.questions[${i}].question`]} /></dt>
              <dd>{labels.map((l, k) => <span key={k}>{k > 0 && ", "}<Verbatim text={l} /></span>)}
                {answer?.other && <>{labels.length > 0 && ", "}“<Verbatim text={answer.other} />”</>}</dd>
            </div>
          );
        })}
      </dl>
    );
  }
  if (given.kind === "note") {
    return <p className="reason" data-testid="given-note">Note to the model: <Verbatim text={given.note} /></p>;
  }
  if (given.kind === "edited") {
    const shown = p.edited_diff;
    return (
      <section className="given" data-testid="given-edit">
        <p>Approved as you edited it: what ran is your version, not the agent's.</p>
        {shown && (
          <DiffView rendered={shown} marks={() => ({})}
            file={{ path: shown.path, old_text: null, new_text: given.edit.kind === "command" ? given.edit.command : given.edit.new_text }} />
        )}
        <p className="muted digest">Your edit: digest <code className="mono" data-testid="edited-digest">{given.digest}</code></p>
      </section>
    );
  }
  if (given.kind === "plan" && call.card === "plan") {
    const mode = call.modes.find((m) => m.id === given.mode);
    return <p data-testid="given-plan">Plan approved{mode ? <>, going on as “<Verbatim text={mode.label} />”</> : ""}.</p>;
  }
  return null;
}

/** The calls a run made, oldest first, each opening to its whole card. A card is built only
 * when it is opened, so a run of many calls costs little until it is read. */
function Nested({ run, actions }: { run: Presented; actions: CardActions }) {
  const calls = run.nested;
  const more = run.nested_count - calls.length;
  return (
    <section className="nested" data-testid="nested">
      <h4>{run.nested_count} call{run.nested_count === 1 ? "" : "s"} inside this run</h4>
      <ol>
        {calls.map((n) => <NestedCall key={n.approval.id} n={n} actions={actions} />)}
      </ol>
      {more > 0 && (
        <p className="muted" data-testid="nested-more">
          and {more} more —{" "}
          {actions.openApproval
            ? <button className="link" onClick={() => actions.openApproval!(run.approval.id)}>open the run to see all</button>
            : "open the run to see all"}
        </p>
      )}
    </section>
  );
}

function NestedCall({ n, actions }: { n: Presented; actions: CardActions }) {
  const [open, setOpen] = useState(false);
  const a = n.approval;
  const flagged = a.hidden_marks > 0 || n.coverage.unshown.length > 0 || n.coverage.disagree.length > 0;
  return (
    <li data-testid="nested-call" data-id={a.id} data-status={a.status}>
      <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span className={`badge badge-${a.status}`}>{a.status}</span>{" "}
          {flagged && <span className="bad" title="hidden characters, or fields not on the card" data-testid="nested-flag">⚠ </span>}
          <Verbatim text={a.call.title} marks={n.marks["call.title"]} />{" "}
          <code className="mono muted">{a.tool}</code>
        </summary>
        {open && (a.status === "pending"
          ? (
            <p className="muted">Waiting for your decision in the inbox.{" "}
              {actions.openApproval && <button className="link" onClick={() => actions.openApproval!(a.id)}>Open it</button>}</p>
          )
          : <ApprovalCard p={{ ...n, parent: null }} actions={actions} armed={false} />)}
      </details>
    </li>
  );
}

/** Key `e` on the selected card opens its editor, where the card offers one: only once the
 * command's end has been on screen (else it brings it there, as Approve does). */
function useEditKey(p: Presented, on: boolean, reading: Reading, setEditing: (on: boolean) => void) {
  useEffect(() => {
    if (!on || !p.edit) return;
    const onKey = (e: KeyboardEvent) => {
      const t = e.target instanceof HTMLElement ? e.target : null;
      if (t?.closest("input, textarea, select, [contenteditable]") || document.querySelector(".overlay")) return;
      if (e.key !== "e" || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
      e.preventDefault();
      if (reading.ready) setEditing(true);
      else reading.reveal();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
}

/** The agent's text, to edit: a command, or the one file's new text. */
function editable(p: Presented, offer: EditOffer): string {
  const call = p.approval.call;
  if (offer === "command" && call.card === "terminal") return call.command;
  if (offer === "new_text" && call.card === "diff") return call.diffs[0]?.new_text ?? "";
  return "";
}

/** Editing the call before approving it: what is approved is the person's version, once. */
function EditForm({ p, offer, armed, close, actions }: {
  p: Presented; offer: EditOffer; armed: boolean; close: () => void; actions: CardActions;
}) {
  const a = p.approval;
  const asked = editable(p, offer);
  const [text, setText] = useState(asked);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const changed = text !== asked;
  const empty = offer === "command" && text.trim() === "";
  const submit = async () => {
    if (!armed || busy || !changed || empty) return;
    setBusy(true);
    setError(null);
    const edit: Edit = offer === "command" ? { kind: "command", command: text } : { kind: "new_text", new_text: text };
    try {
      await actions.decide(a.id, a.digest, { decision: "approve_edited", edit });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  const what = offer === "command" ? "command" : "new text";
  return (
    <footer className="choices edit-form">
      <form onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <label htmlFor={`edit-${a.id}`}>Your version of the {what} (what runs if you approve)</label>
        <textarea id={`edit-${a.id}`} className="mono" data-testid="edit-text" autoFocus value={text} spellCheck={false}
          rows={Math.min(40, Math.max(3, text.split("\n").length + 1))}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") close();
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); void submit(); }
          }} />
        {changed && <EditPreview p={p} asked={asked} text={text} />}
        <div className="row">
          <button type="submit" className="primary" disabled={busy || !armed || !changed || empty} data-testid="approve-edited"
            title={!changed ? "Change something first, or approve the call as asked" : empty ? "An empty command runs nothing" : "Ctrl+Enter"}>
            Approve as edited <kbd>Ctrl</kbd>+<kbd>Enter</kbd></button>
          <button type="button" onClick={close} data-testid="edit-cancel">Cancel <kbd>Esc</kbd></button>
        </div>
      </form>
      <p className="muted scope">Where the agent's answer carries it, the model is told its call was edited. An edited call is approved once: no rule is made from it, and History keeps both versions.</p>
      {error && <p className="error" role="alert">{error}</p>}
    </footer>
  );
}

/** The change the person is about to approve, line by line: what the agent asked, what will
 * run instead. */
function EditPreview({ asked, text }: { p: Presented; asked: string; text: string }) {
  const before = asked.split("\n");
  const after = text.split("\n");
  return (
    <div className="edit-preview" data-testid="edit-preview" aria-label="What changes">
      {before.filter((l) => !after.includes(l)).map((l, i) => <div key={`r${i}`} className="removed mono">− <bdi>{l}</bdi></div>)}
      {after.filter((l) => !before.includes(l)).map((l, i) => <div key={`a${i}`} className="added mono">+ <bdi>{l}</bdi></div>)}
    </div>
  );
}
