import type { Presented } from "../api/types/Presented";
import { assertNever } from "../lib/assert";
import { DiffView } from "./DiffView";
import { Verbatim } from "./Verbatim";

/** What the call would do, by card kind. A new kind does not compile until handled here. */
export function CallBody({ p }: { p: Presented }) {
  const call = p.approval.call;
  const m = (field: string) => p.marks[field];
  switch (call.card) {
    case "terminal":
      return (
        <div className="call-terminal">
          {call.description && (
            <p className="description"><Verbatim text={call.description} marks={m("call.description")} /></p>
          )}
          {call.cwd && (
            <p className="cwd"><span className="label">in</span>{" "}
              <span className="mono"><Verbatim text={call.cwd} marks={m("call.cwd")} /></span></p>
          )}
          <pre className="command mono" data-testid="command"><span className="prompt" aria-hidden>$ </span><Verbatim text={call.command} marks={m("call.command")} /></pre>
          <RawInput p={p} />
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
          <Locations locations={call.locations ?? []} />
          <RawInput p={p} />
        </div>
      );
    case "generic":
      return (
        <div className="call-generic">
          {call.kind && <p><span className="pill">{call.kind}</span></p>}
          {(call.content ?? []).map((block, i) => {
            switch (block.type) {
              case "text":
                return <pre key={i} className="content-text"><Verbatim text={block.text} marks={m(`call.content[${i}].text`)} /></pre>;
              case "image":
                return <img key={i} className="content-image" alt={`content ${i + 1}`} src={`data:${block.mime_type};base64,${block.data}`} />;
              default:
                return assertNever(block);
            }
          })}
          <Locations locations={call.locations ?? []} />
          <RawInput p={p} open />
        </div>
      );
    default:
      return assertNever(call);
  }
}

function Locations({ locations }: { locations: { path: string; line?: number }[] }) {
  if (locations.length === 0) return null;
  return (
    <ul className="locations">
      {locations.map((l, i) => (
        <li key={i} className="mono">{l.path}{l.line !== undefined ? `:${l.line}` : ""}</li>
      ))}
    </ul>
  );
}

/** The raw arguments exactly as sent, as pretty JSON. */
function RawInput({ p, open }: { p: Presented; open?: boolean }) {
  if (p.raw_input_json === null) return null;
  return (
    <details className="raw-input" open={open}>
      <summary>Raw input</summary>
      <pre className="mono" data-testid="raw-input"><Verbatim text={p.raw_input_json} marks={p.marks["raw_input_json"]} /></pre>
    </details>
  );
}
