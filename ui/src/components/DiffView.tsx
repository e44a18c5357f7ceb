import type { FileDiff } from "../api/types/FileDiff";
import type { RenderedDiff } from "../api/types/RenderedDiff";
import { type FieldMarks, moreMarks, Verbatim } from "./Verbatim";

const SIGN = { context: " ", removed: "−", added: "+" } as const;

/** One file's change: unified hunks with old/new line numbers and word-level highlights. */
export function DiffView({ rendered, file, marks }: {
  rendered: RenderedDiff;
  file: FileDiff;
  marks: (field: "old_text" | "new_text" | "path" | "on_disk.reason" | "through_link.link" | "through_link.target") => FieldMarks;
}) {
  const unread = file.on_disk?.state === "unreadable" ? file.on_disk : null;
  const link = file.through_link;
  return (
    <section className="diff-file" data-testid="diff-file">
      <header className="diff-path">
        <span className="mono"><Verbatim text={rendered.path} {...marks("path")} /></span>
        {rendered.new_file && <span className="pill pill-new">new file</span>}
        {unread && (
          <span className="pill pill-warn" data-testid="unreadable">
            {file.old_text === null ? "replaces an existing file" : "the file"} (could not be read:{" "}
            <Verbatim text={unread.reason} {...marks("on_disk.reason")} />)
          </span>
        )}
        {link && (
          // The change lands where the link points, not where its written path says.
          <span className="pill pill-warn" data-testid="through-link">
            reached through the link <span className="mono"><Verbatim text={link.link} {...marks("through_link.link")} /></span>
            {link.target === null ? " (its target could not be read)" : (
              <>, which points to <span className="mono"><Verbatim text={link.target} {...marks("through_link.target")} /></span></>
            )}
          </span>
        )}
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
                    {l.more_marks > 0 && (
                      <span className="mark mark-more" data-testid="marks-more-inline">⟨{moreMarks(l.more_marks)}⟩</span>
                    )}
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
  marks: (field: "old_text" | "new_text") => FieldMarks;
}) {
  const why = reason === "too_large" ? "the diff is too large" : "the diff took too long to compute";
  return (
    <div className="fallback" data-testid="diff-fallback">
      <p className="notice">Shown as whole texts: {why}. Compare them before approving.</p>
      {file.old_text !== null && (
        <>
          <h4>Before</h4>
          <pre className="code-block mono"><Verbatim text={file.old_text} {...marks("old_text")} /></pre>
        </>
      )}
      <h4>{file.old_text === null ? "New file" : "After"}</h4>
      <pre className="code-block mono"><Verbatim text={file.new_text} {...marks("new_text")} /></pre>
    </div>
  );
}
