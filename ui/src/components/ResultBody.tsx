import type { Mark } from "../api/types/Mark";
import type { RenderedDiff } from "../api/types/RenderedDiff";
import type { ResultView } from "../api/types/ResultView";
import { assertNever } from "../lib/assert";
import { DiffView } from "./DiffView";
import { LongText } from "./LongText";
import { type FieldMarks, Verbatim } from "./Verbatim";

const encoder = new TextEncoder();

/** Log lines as one text, with each line's marks moved to where the line starts in it, and
 * the count of those past the listed ones summed. */
export function joinLines(lines: string[], marks: (field: string) => FieldMarks): { text: string; marks: Mark[]; more: number } {
  let offset = 0;
  let more = 0;
  const all: Mark[] = [];
  lines.forEach((line, i) => {
    const field = marks(`result.logs[${i}]`);
    for (const m of field.marks ?? []) all.push({ ...m, start: m.start + offset, end: m.end + offset });
    more += field.more ?? 0;
    offset += encoder.encode(line).length + 1;
  });
  return { text: lines.join("\n"), marks: all, more };
}

/** What the call returned, complete and in order: what it printed or logged, then what it
 * returned, then why it failed — or "No output." when there is none of these. Long texts show
 * head and tail with what is left out said, and "Show all". */
export function ResultBody({ result, diffs, valueJson, marks }: {
  result: ResultView;
  diffs: RenderedDiff[];
  /** A generic result's return value as pretty JSON. */
  valueJson: string | null;
  marks: (field: string) => FieldMarks;
}) {
  const title = result.title ? <h4 data-testid="result-title"><Verbatim text={result.title} {...marks("result.title")} /></h4> : null;
  const none = <p className="muted" data-testid="no-output">No output.</p>;
  switch (result.card) {
    case "terminal": {
      const both = result.output !== undefined && result.stderr !== undefined;
      return (
        <div className="result-terminal" data-testid="result">
          {title}
          {result.output && (
            <div className="result-part" data-testid="result-output">
              {both && <p className="result-label muted">Standard output</p>}
              <LongText text={result.output} {...marks("result.output")} />
            </div>
          )}
          {result.stderr && (
            <div className="result-part" data-testid="result-stderr">
              <p className="result-label muted">Standard error</p>
              <LongText text={result.stderr} {...marks("result.stderr")} />
            </div>
          )}
          {!result.output && !result.stderr && none}
          <p className="exit" data-testid="result-exit">
            {result.exit_code !== undefined && <span className={result.exit_code === 0 ? "ok" : "bad"}>exit code {result.exit_code}</span>}
            {result.signal && <span className="bad"> killed by signal {result.signal}</span>}
            {result.interrupted && <span className="bad"> interrupted before it finished</span>}
          </p>
        </div>
      );
    }
    case "generic": {
      const content = result.content ?? [];
      const logs = result.logs ?? [];
      const joined = joinLines(logs, marks);
      const empty = content.length === 0 && logs.length === 0 && valueJson === null && result.error === undefined;
      return (
        <div className="result-generic" data-testid="result">
          {title}
          {content.map((block, i) => {
            switch (block.type) {
              case "text":
              case "unreadable": return <LongText key={i} text={block.text} {...marks(`result.content[${i}].text`)} />;
              case "image": return (
                <figure key={i} className="content-image">
                  <figcaption className="muted">Image supplied by the agent ({block.mime_type})</figcaption>
                  <div className="frame"><img alt={`result image ${i + 1}`} src={`data:${block.mime_type};base64,${block.data}`} /></div>
                </figure>
              );
              default: return assertNever(block);
            }
          })}
          {logs.length > 0 && (
            <div className="result-part" data-testid="result-logs">
              <p className="result-label muted">Logged ({logs.length} line{logs.length === 1 ? "" : "s"})</p>
              <LongText text={joined.text} marks={joined.marks} more={joined.more} />
            </div>
          )}
          {valueJson !== null && (
            <div className="result-part" data-testid="result-value">
              <p className="result-label muted">Returned</p>
              <LongText text={valueJson} {...marks("result.value")} />
            </div>
          )}
          {result.error !== undefined && (
            <div className="result-part failed" data-testid="result-error">
              <p className="result-label bad">Failed</p>
              <LongText text={result.error} {...marks("result.error")} />
            </div>
          )}
          {empty && none}
        </div>
      );
    }
    case "diff":
      return (
        <div className="result-diff" data-testid="result">
          {title}
          {result.diffs.map((file, i) => {
            const rendered = diffs[i];
            return rendered ? <DiffView key={i} rendered={rendered} file={file} marks={(f) => marks(`result.diffs[${i}].${f}`)} /> : null;
          })}
        </div>
      );
    default:
      return assertNever(result);
  }
}
