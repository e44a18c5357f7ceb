import type { ResultView } from "../api/types/ResultView";
import { assertNever } from "../lib/assert";

/** What the call returned, complete, or an explicit "no output". */
export function ResultBody({ result }: { result: ResultView }) {
  switch (result.card) {
    case "terminal":
      return (
        <div className="result-terminal">
          {result.title && <h4>{result.title}</h4>}
          {result.output ? <pre className="output mono">{result.output}</pre> : <p className="muted">No output.</p>}
          <p className="exit">
            {result.exit_code !== undefined && <span className={result.exit_code === 0 ? "ok" : "bad"}>exit code {result.exit_code}</span>}
            {result.signal && <span className="bad"> signal {result.signal}</span>}
          </p>
        </div>
      );
    case "generic": {
      const content = result.content ?? [];
      return (
        <div className="result-generic">
          {result.title && <h4>{result.title}</h4>}
          {content.length === 0 && <p className="muted">No output.</p>}
          {content.map((block, i) => {
            switch (block.type) {
              case "text": return <pre key={i} className="output mono">{block.text}</pre>;
              case "image": return <img key={i} className="content-image" alt={`result ${i + 1}`} src={`data:${block.mime_type};base64,${block.data}`} />;
              default: return assertNever(block);
            }
          })}
        </div>
      );
    }
    case "diff":
      return (
        <div className="result-diff">
          {result.title && <h4>{result.title}</h4>}
          {result.diffs.map((d, i) => (
            <div key={i}>
              <p className="mono">{d.path}{d.old_text === null ? " (new file)" : ""}</p>
              <pre className="output mono">{d.new_text}</pre>
            </div>
          ))}
        </div>
      );
    default:
      return assertNever(result);
  }
}
