import { useState } from "react";

import { api } from "../api/ipc";
import type { Door } from "../api/types/Door";
import type { Mark } from "../api/types/Mark";
import type { PresentedReport } from "../api/types/PresentedReport";
import type { Reporter } from "../api/types/Reporter";
import { stamp } from "../lib/time";
import { ResultBody } from "./ResultBody";
import { Verbatim } from "./Verbatim";

const DOOR: Record<Door, string> = { hook: "its hook", api: "the API", mcp: "MCP", acp: "ACP" };

/** Who says they reported a result, and through which door: a claim, like the requester. */
export function ReportedBy({ by, marks, testid = "result-by" }: {
  by: Reporter | null;
  marks: (field: string) => Mark[] | undefined;
  testid?: string;
}) {
  if (!by) return <p className="muted reported-by" data-testid={testid}>Reported before reporters were recorded.</p>;
  return (
    <p className="muted reported-by" data-testid={testid}>
      Reported by {by.name !== null ? <strong><Verbatim text={by.name} marks={marks("result_by.name")} /></strong> : "a client that did not say who it is"}
      {by.session !== null && <> · session <Verbatim text={by.session} marks={marks("result_by.session")} /></>}
      {" "}through {DOOR[by.door]}
    </p>
  );
}

/** The later reports of a call's result, kept beside the first: read when the person asks. */
export function ConflictingReports({ id, count }: { id: string; count: number }) {
  const [reports, setReports] = useState<PresentedReport[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => api.resultReports(id).then(setReports).catch((e: Error) => setError(e.message));
  return (
    <div className="warning conflicting" role="status" data-testid="conflicting-reports">
      ⚠ {count} other report{count === 1 ? "" : "s"} of this call's result {count === 1 ? "was" : "were"} kept beside this one.
      Any agent holding the API token can report a result, and say it is anyone: compare them.{" "}
      {reports === null
        ? <button className="link" data-testid="show-reports" onClick={() => void load()}>Show {count === 1 ? "it" : "them"}</button>
        : (
          <ol className="reports">
            {reports.map((r, i) => (
              <li key={i} data-testid="conflicting-report">
                <ReportedBy by={r.report.reporter} marks={(f) => r.marks[f]} testid="report-by" />
                <p className="muted">{stamp(r.report.reported_at)}</p>
                <ResultBody result={r.report.result} diffs={r.result_diffs} valueJson={r.result_value_json} marks={(f) => ({ marks: r.marks[f], more: r.more_marks[f] })} />
              </li>
            ))}
          </ol>
        )}
      {error && <p className="error">{error}</p>}
    </div>
  );
}
