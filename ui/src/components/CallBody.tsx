import type { Answer } from "../api/types/Answer";
import type { ContentBlock } from "../api/types/ContentBlock";
import type { FileLocation } from "../api/types/FileLocation";
import type { Presented } from "../api/types/Presented";
import type { QuestionCall } from "../api/types/QuestionCall";
import type { TerminalCall } from "../api/types/TerminalCall";
import { assertNever } from "../lib/assert";
import type { ReadingRefs } from "../lib/reading";
import { CommandBox } from "./CommandBox";
import { DiffView } from "./DiffView";
import { LongText } from "./LongText";
import { PlanText } from "./PlanText";
import { type FieldMarks, Verbatim } from "./Verbatim";

type Marks = (field: string) => FieldMarks;

/**
 * What the call would do, by card kind. A new kind does not compile until handled here. What
 * runs comes first (command, diff, raw input); text and images the agent supplied come after
 * it, so nothing an agent draws can sit above what it asks to run.
 */
export function CallBody({ p, reading, answering }: { p: Presented; reading: ReadingRefs; answering?: Answering }) {
  const call = p.approval.call;
  const m: Marks = (field) => ({ marks: p.marks[field], more: p.more_marks[field] });
  // Fields the card does not show as sent: the raw input is what to read, so it is open.
  const incomplete = p.coverage.unshown.length > 0 || p.coverage.disagree.length > 0;
  switch (call.card) {
    case "terminal":
      return (
        <div className="call-terminal">
          {call.description && (
            <p className="description"><Verbatim text={call.description} {...m("call.description")} /></p>
          )}
          {call.cwd && (
            <p className="cwd"><span className="label">in</span>{" "}
              <span className="mono"><Verbatim text={call.cwd} {...m("call.cwd")} /></span></p>
          )}
          <CommandBox text={call.command} {...m("call.command")} refs={reading} />
          <Args call={call} m={m} />
          <Env call={call} m={m} />
          <Options call={call} m={m} />
          <RawInput p={p} open={incomplete} />
        </div>
      );
    case "diff":
      return (
        <div className="call-diff">
          {call.diffs.map((file, i) => {
            const rendered = p.diffs[i];
            return rendered ? (
              <DiffView key={i} rendered={rendered} file={file}
                marks={(f) => m(`call.diffs[${i}].${f}`)} />
            ) : null;
          })}
          <Locations locations={call.locations ?? []} m={m} />
          <RawInput p={p} open={incomplete} />
          <Content blocks={call.content ?? []} m={m} />
        </div>
      );
    case "generic":
      return (
        <div className="call-generic">
          {call.kind && <p><span className="pill" data-testid="call-kind"><Verbatim text={call.kind} {...m("call.kind")} /></span></p>}
          <Locations locations={call.locations ?? []} m={m} />
          <RawInput p={p} open />
          <Content blocks={call.content ?? []} m={m} />
        </div>
      );
    case "question":
      return (
        <>
          <QuestionBody id={p.approval.id} call={call} m={m} answering={answering} />
          <RawInput p={p} open={incomplete} />
        </>
      );
    case "plan":
      return (
        <div className="call-plan">
          {call.path && (
            <p className="cwd"><span className="label">kept in</span>{" "}
              <span className="mono"><Verbatim text={call.path} {...m("call.path")} /></span></p>
          )}
          {/* Drawn from its Markdown, never as HTML: nothing in it is loaded or followed. */}
          {(m("call.plan").more ?? 0) > 0 ? (
            // More hidden characters than are marked one by one: the plan as written, so none
            // of them is drawn unmarked inside a link or a heading.
            <div className="plan" data-testid="plan">
              <p className="warning">This plan carries more hidden characters than a card marks: it is shown as written, not drawn.</p>
              <LongText text={call.plan} {...m("call.plan")} />
            </div>
          ) : (
            <div className="plan" data-testid="plan"><PlanText text={call.plan} marks={m("call.plan").marks} /></div>
          )}
          <RawInput p={p} open={incomplete} />
        </div>
      );
    default:
      return assertNever(call);
  }
}

/** The person's answers while they choose: one per question, as the card offers. */
export interface Answering {
  answers: Answer[];
  set: (question: number, answer: Answer) => void;
  /** The question the number keys pick options of. */
  focused: number;
  setFocused: (question: number) => void;
}

/** The questions as the agent asked them; with `answering`, each option a choice to pick. */
function QuestionBody({ id, call, m, answering }: { id: string; call: QuestionCall; m: Marks; answering?: Answering }) {
  return (
    <div className="call-question">
      {call.questions.map((q, i) => {
        const at = `call.questions[${i}]`;
        const answer = answering?.answers[i] ?? { chosen: [] };
        const pick = (j: number) => {
          if (!answering) return;
          const has = answer.chosen.includes(j);
          const chosen = q.multi_select
            ? (has ? answer.chosen.filter((c) => c !== j) : [...answer.chosen, j])
            : [j];
          answering.set(i, { chosen, other: q.multi_select ? answer.other : undefined });
        };
        return (
          <fieldset key={i} className={`question ${answering?.focused === i ? "focused" : ""}`}
            data-testid="question" data-index={i} onFocus={() => answering?.setFocused(i)}>
            <legend>
              {q.header && <span className="pill"><Verbatim text={q.header} {...m(`${at}.header`)} /></span>}{" "}
              <Verbatim text={q.question} {...m(`${at}.question`)} />
              <span className="muted"> — {q.multi_select ? "choose any" : "choose one"}</span>
            </legend>
            <ol className="question-options">
              {q.options.map((o, j) => (
                <li key={j}>
                  <label>
                    <input type={q.multi_select ? "checkbox" : "radio"} name={`q-${id}-${i}`} disabled={!answering}
                      checked={answer.chosen.includes(j)} onChange={() => pick(j)}
                      data-testid="option" data-index={j} />{" "}
                    {j < 9 && answering && <kbd>{j + 1}</kbd>}{" "}
                    <strong><Verbatim text={o.label} {...m(`${at}.options[${j}].label`)} /></strong>
                    {o.description && <span className="muted"> — <Verbatim text={o.description} {...m(`${at}.options[${j}].description`)} /></span>}
                  </label>
                </li>
              ))}
            </ol>
            {q.other && answering && (
              <label className="other">Other:{" "}
                <input data-testid="other" maxLength={4000} value={answer.other ?? ""}
                  onChange={(e) => answering.set(i, {
                    chosen: q.multi_select ? answer.chosen : [],
                    other: e.target.value,
                  })} />
              </label>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}

/** Arguments as separate words: each in its own box, so where one ends is never in doubt. */
function Args({ call, m }: { call: TerminalCall; m: Marks }) {
  if (!call.args || call.args.length === 0) return null;
  return (
    <p className="args" data-testid="args"><span className="label">arguments</span>{" "}
      {call.args.map((arg, i) => (
        <code key={i} className="arg mono"><Verbatim text={arg} {...m(`call.args[${i}]`)} /></code>
      ))}
    </p>
  );
}

function Env({ call, m }: { call: TerminalCall; m: Marks }) {
  if (!call.env || call.env.length === 0) return null;
  return (
    <div className="env" data-testid="env">
      <span className="label">environment</span>
      <table className="kv mono">
        <tbody>
          {call.env.map((v, i) => (
            <tr key={i}>
              <td><Verbatim text={v.name} {...m(`call.env[${i}].name`)} /></td>
              <td>=</td>
              <td><Verbatim text={v.value} {...m(`call.env[${i}].value`)} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Settings the call runs with, as flags; those that lift a safeguard stand out. */
function Options({ call, m }: { call: TerminalCall; m: Marks }) {
  const options = Object.entries(call.options ?? {});
  if (options.length === 0) return null;
  const lifts = (name: string, value: unknown) => value === true && /danger|sandbox|unsafe|force|skip/i.test(name);
  return (
    <p className="options" data-testid="options">
      {options.map(([name, value]) => (
        <span key={name} className={`flag ${lifts(name, value) ? "flag-danger" : ""}`} data-testid="option">
          <Verbatim text={name} {...m(`call.options.${name}.name`)} />
          {value !== true && <>: {typeof value === "string" ? <Verbatim text={value} {...m(`call.options.${name}`)} /> : String(value)}</>}
        </span>
      ))}
    </p>
  );
}

function Locations({ locations, m }: { locations: FileLocation[]; m: Marks }) {
  if (locations.length === 0) return null;
  return (
    <ul className="locations">
      {locations.map((l, i) => (
        <li key={i} className="mono" data-testid="location">
          <Verbatim text={l.path} {...m(`call.locations[${i}].path`)} />{l.line !== undefined ? `:${l.line}` : ""}
        </li>
      ))}
    </ul>
  );
}

/** Text and images the agent supplied with the call, after what runs. Images are capped and
 * labelled as the agent's, so one cannot pass for part of the console. */
function Content({ blocks, m }: { blocks: ContentBlock[]; m: Marks }) {
  if (blocks.length === 0) return null;
  return (
    <div className="content" data-testid="content">
      <p className="label">Supplied by the agent</p>
      {blocks.map((block, i) => {
        switch (block.type) {
          case "text":
            return <pre key={i} className="content-text"><Verbatim text={block.text} {...m(`call.content[${i}].text`)} /></pre>;
          case "unreadable":
            return (
              <div key={i} className="warning" role="alert" data-testid="content-unreadable">
                ⚠ This item of the request could not be read into the card; here it is as sent.
                <pre className="content-text"><Verbatim text={block.text} {...m(`call.content[${i}].text`)} /></pre>
              </div>
            );
          case "image":
            return (
              <figure key={i} className="content-image" data-testid="content-image">
                <figcaption className="muted">Image supplied by the agent ({block.mime_type})</figcaption>
                <div className="frame"><img alt={`image ${i + 1} supplied by the agent`} src={`data:${block.mime_type};base64,${block.data}`} /></div>
              </figure>
            );
          default:
            return assertNever(block);
        }
      })}
    </div>
  );
}

/** The raw arguments exactly as sent, as pretty JSON. */
function RawInput({ p, open }: { p: Presented; open?: boolean }) {
  if (p.raw_input_json === null) return null;
  return (
    <details className="raw-input" open={open}>
      <summary>Raw input</summary>
      <pre className="mono" data-testid="raw-input"><Verbatim text={p.raw_input_json} marks={p.marks["raw_input_json"]} more={p.more_marks["raw_input_json"]} /></pre>
    </details>
  );
}
