import type { Mark } from "../api/types/Mark";
import type { RenderedDiff } from "../api/types/RenderedDiff";
import type { ResultView } from "../api/types/ResultView";
import { assertNever } from "../lib/assert";
import { DiffView } from "./DiffView";
import { LongText } from "./LongText";
import { Verbatim } from "./Verbatim";

/** What the call returned, complete: every line then the return value, or "no output". */
export function ResultBody({ result, diffs, marks }: {
  result: ResultView;
  diffs: RenderedDiff[];
  marks: (field: string) => Mark[] | undefined;
}) {
  const title = result.title ? <h4><Verbatim text={result.title} marks={marks("result.title")} /></h4> : null;
  switch (result.card) {
    case "terminal":
      return (
        <div className="result-terminal" data-testid="result">
          {title}
          {result.output ? <LongText text={result.output} marks={marks("result.output")} /> : <p className="muted" data-testid="no-output">No output.</p>}
          <p className="exit">
            {result.exit_code !== undefined && <span className={result.exit_code === 0 ? "ok" : "bad"}>exit code {result.exit_code}</span>}
            {result.signal && <span className="bad"> killed by signal {result.signal}</span>}
          </p>
        </div>
      );
    case "generic": {
      const content = result.content ?? [];
      return (
        <div className="result-generic" data-testid="result">
          {title}
          {content.length === 0 && <p className="muted" data-testid="no-output">No output.</p>}
          {content.map((block, i) => {
            switch (block.type) {
              case "text":
              case "unreadable": return <LongText key={i} text={block.text} marks={marks(`result.content[${i}].text`)} />;
              case "image": return (
                <figure key={i} className="content-image">
                  <figcaption className="muted">Image supplied by the agent ({block.mime_type})</figcaption>
                  <div className="frame"><img alt={`result image ${i + 1}`} src={`data:${block.mime_type};base64,${block.data}`} /></div>
                </figure>
              );
              default: return assertNever(block);
            }
          })}
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
