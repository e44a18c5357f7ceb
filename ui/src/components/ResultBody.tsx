import type { RenderedDiff } from "../api/types/RenderedDiff";
import type { ResultView } from "../api/types/ResultView";
import { assertNever } from "../lib/assert";
import { DiffView } from "./DiffView";
import { LongText } from "./LongText";

/** What the call returned, complete: every line then the return value, or "no output". */
export function ResultBody({ result, diffs }: { result: ResultView; diffs: RenderedDiff[] }) {
  switch (result.card) {
    case "terminal":
      return (
        <div className="result-terminal" data-testid="result">
          {result.title && <h4>{result.title}</h4>}
          {result.output ? <LongText text={result.output} /> : <p className="muted" data-testid="no-output">No output.</p>}
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
          {result.title && <h4>{result.title}</h4>}
          {content.length === 0 && <p className="muted" data-testid="no-output">No output.</p>}
          {content.map((block, i) => {
            switch (block.type) {
              case "text": return <LongText key={i} text={block.text} />;
              case "image": return <img key={i} className="content-image" alt={`result ${i + 1}`} src={`data:${block.mime_type};base64,${block.data}`} />;
              default: return assertNever(block);
            }
          })}
        </div>
      );
    }
    case "diff":
      return (
        <div className="result-diff" data-testid="result">
          {result.title && <h4>{result.title}</h4>}
          {result.diffs.map((file, i) => {
            const rendered = diffs[i];
            return rendered ? <DiffView key={i} rendered={rendered} file={file} marks={() => undefined} /> : null;
          })}
        </div>
      );
    default:
      return assertNever(result);
  }
}
