import { useEffect, useRef, useState } from "react";

import { api, CommandError, onExportProgress } from "../api/ipc";
import type { Exported } from "../api/types/Exported";
import type { ExportFormat } from "../api/types/ExportFormat";
import type { ExportProgress } from "../api/types/ExportProgress";
import type { HistoryQuery } from "../api/types/HistoryQuery";
import { queryKey } from "../lib/history";

type Stage =
  | { kind: "choosing" }
  | { kind: "running"; progress: ExportProgress | null }
  | { kind: "done"; exported: Exported }
  | { kind: "failed"; message: string };

const calls = (n: number) => `${n.toLocaleString("en-US")} call${n === 1 ? "" : "s"}`;

/**
 * History's Export button and its dialog: the calls History's search and filters match, one
 * record each, as JSON Lines or CSV, saved where the person picks in the OS's dialog, with a
 * progress bar and a cancel for long exports.
 */
export function ExportHistory({ query }: { query: HistoryQuery }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button onClick={() => setOpen(true)} data-testid="export-history"
        title="Save the calls History lists (its search and filters) for an audit">Export…</button>
      {open && <ExportDialog query={query} close={() => setOpen(false)} />}
    </>
  );
}

function ExportDialog({ query, close }: { query: HistoryQuery; close: () => void }) {
  const [format, setFormat] = useState<ExportFormat>("jsonl");
  const [stage, setStage] = useState<Stage>({ kind: "choosing" });
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => { first.current?.focus(); }, []);
  const running = stage.kind === "running";
  const go = async () => {
    setStage({ kind: "running", progress: null });
    const unlisten = await onExportProgress((progress) => setStage((s) => (s.kind === "running" ? { kind: "running", progress } : s)));
    try {
      const exported = await api.exportHistory(query, format);
      setStage(exported ? { kind: "done", exported } : { kind: "choosing" });
    } catch (e) {
      const cancelled = e instanceof CommandError && e.code === "export_cancelled";
      setStage(cancelled ? { kind: "choosing" } : { kind: "failed", message: e instanceof Error ? e.message : String(e) });
    } finally {
      unlisten();
    }
  };
  const filtered = queryKey(query) !== "{}";
  const progress = stage.kind === "running" ? stage.progress : null;
  return (
    <div className="overlay" onKeyDown={(e) => { if (e.key === "Escape" && !running) close(); }}>
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="export-title" data-testid="export-dialog">
        <h2 id="export-title">Export History</h2>
        <p>{filtered ? "The calls History's search and filters match" : "Every call in History"}, nested calls
          included, earliest first: one record each with its card, raw input, digest, decision, who decided,
          reason, times and result.</p>
        <fieldset className="formats" disabled={running}>
          <legend>Format</legend>
          <label><input ref={first} type="radio" name="format" checked={format === "jsonl"} data-testid="export-jsonl"
            onChange={() => setFormat("jsonl")} /> JSON Lines (every value exact)</label>
          <label><input type="radio" name="format" checked={format === "csv"} data-testid="export-csv"
            onChange={() => setFormat("csv")} /> CSV (for a spreadsheet)</label>
        </fieldset>
        {stage.kind === "running" && (
          <div className="export-progress" data-testid="export-progress" aria-live="polite">
            <progress value={progress?.written ?? 0} max={Math.max(progress?.total ?? 1, 1)} />
            <span className="muted">{progress ? `${progress.written.toLocaleString("en-US")} of ${calls(progress.total)}` : "Choose where to save…"}</span>
          </div>
        )}
        {stage.kind === "done" && (
          <p className="ok" role="status" data-testid="export-done">Saved {calls(stage.exported.written)} to <code className="mono">{stage.exported.path}</code>.</p>
        )}
        {stage.kind === "failed" && <p className="error" role="alert" data-testid="export-error">{stage.message}</p>}
        <div className="row end">
          {running ? (
            <button onClick={() => void api.cancelExport()} data-testid="export-cancel">Cancel export</button>
          ) : (
            <button onClick={close} data-testid="export-close">{stage.kind === "done" ? "Close" : "Cancel"}</button>
          )}
          {stage.kind !== "done" && (
            <button className="primary" disabled={running} onClick={() => void go()} data-testid="export-save">
              Choose where to save…</button>
          )}
        </div>
      </div>
    </div>
  );
}
