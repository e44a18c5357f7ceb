import type { FileDiff } from "../api/types/FileDiff";
import type { Mark } from "../api/types/Mark";
import type { RenderedDiff } from "../api/types/RenderedDiff";
import { Verbatim } from "./Verbatim";

const SIGN = { context: " ", removed: "−", added: "+" } as const;

/** One file's change: unified hunks with old/new line numbers and word-level highlights. */
export function DiffView({ rendered, file, marks }: {
  rendered: RenderedDiff;
  file: FileDiff;
  marks: (field: "old_text" | "new_text" | "path") => Mark[] | undefined;
}) {
  return (
    <section className="diff-file" data-testid="diff-file">
      <header className="diff-path">
        <span className="mono"><Verbatim text={rendered.path} marks={marks("path")} /></span>
        {rendered.new_file && <span className="pill pill-new">new file</span>}
        {file.replace_all && <span className="pill pill-warn" data-testid="replace-all">every occurrence</span>}
        <span className="diff-stat">
          <span className="added">+{rendered.added}</span> <span className="removed">−{rendered.removed}</span>
        </span>
      </header>
      {rendered.fallback ? (
        <Fallback reason={rendered.fallback} file={file} marks={marks} />
      ) : rendered.hunks.length === 0 ? (
        <p className="muted pad">No change: the old and new texts are identical.</p>
      ) : (
        <table className="diff" data-testid="diff-table">
          <tbody>
            {rendered.hunks.map((h, hi) => [
              <tr key={`h${hi}`} className="hunk-header">
                <td colSpan={4} className="mono">
                  @@ −{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines} @@
                </td>
              </tr>,
              ...h.lines.map((l, li) => (
                <tr key={`${hi}-${li}`} className={`line line-${l.kind}`} data-kind={l.kind}>
                  <td className="ln" data-testid="old-line">{l.old_line ?? ""}</td>
                  <td className="ln" data-testid="new-line">{l.new_line ?? ""}</td>
                  <td className="sign">{SIGN[l.kind]}</td>
                  <td className="code mono">
                    {l.segments.map((s, si) => (
                      <span key={si} className={s.changed ? "word-changed" : undefined}>
                        <Verbatim text={s.text} marks={s.marks} />
                      </span>
                    ))}
                    {l.no_newline && <span className="muted no-newline"> ⏎̸ no newline at end</span>}
                  </td>
                </tr>
              )),
            ])}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Fallback({ reason, file, marks }: {
  reason: NonNullable<RenderedDiff["fallback"]>;
  file: FileDiff;
  marks: (field: "old_text" | "new_text") => Mark[] | undefined;
}) {
  const why = reason === "too_large" ? "the diff is too large" : "the diff took too long to compute";
  return (
    <div className="fallback" data-testid="diff-fallback">
      <p className="notice">Shown as whole texts: {why}. Compare them before approving.</p>
      {file.old_text !== null && (
        <>
          <h4>Before</h4>
          <pre className="code-block mono"><Verbatim text={file.old_text} marks={marks("old_text")} /></pre>
        </>
      )}
      <h4>{file.old_text === null ? "New file" : "After"}</h4>
      <pre className="code-block mono"><Verbatim text={file.new_text} marks={marks("new_text")} /></pre>
    </div>
  );
}
