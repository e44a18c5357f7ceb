import { useState } from "react";

import { api } from "../api/ipc";
import type { Verdict } from "../api/types/Verdict";

const OUTCOME: Record<Verdict["outcome"], { word: string; badge: string }> = {
  approve: { word: "Approved", badge: "badge-approved" },
  decline: { word: "Declined", badge: "badge-declined" },
  ask: { word: "Asks you", badge: "" },
};

/** "Check a call": which of your rules decides a command or a file edit, and why — the same
 * function every call goes through, and `countersign rules check` prints. Nothing is asked or
 * stored. */
export function CheckCall() {
  const [kind, setKind] = useState<"command" | "files">("command");
  const [text, setText] = useState("");
  const [cwd, setCwd] = useState("");
  const [tool, setTool] = useState("");
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const check = async () => {
    if (!text.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const files = text.split("\n").map((f) => f.trim()).filter((f) => f !== "");
      setVerdict(await api.checkCall({
        tool: tool.trim() || undefined,
        cwd: cwd.trim() || undefined,
        ...(kind === "command" ? { command: text } : { files }),
      }));
    } catch (e) {
      setVerdict(null);
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="check-call" data-testid="check-call">
      <h2>Check a call</h2>
      <p className="muted">Which of your rules would decide a call, and why. Nothing is asked or saved; the same
        check runs in a terminal as <code className="mono">countersign rules check</code>.</p>
      <form onSubmit={(e) => { e.preventDefault(); void check(); }}>
        <div className="row">
          <label className="choice"><input type="radio" name="check-kind" checked={kind === "command"}
            onChange={() => setKind("command")} data-testid="check-kind-command" /> A command</label>
          <label className="choice"><input type="radio" name="check-kind" checked={kind === "files"}
            onChange={() => setKind("files")} data-testid="check-kind-files" /> Files an edit changes</label>
        </div>
        <label className="field">{kind === "command" ? "Command (run in bash)" : "Full paths, one a line"}
          {kind === "command"
            ? <input className="mono" value={text} onChange={(e) => setText(e.target.value)}
                placeholder="cargo test --workspace" data-testid="check-text" />
            : <textarea className="mono" rows={3} value={text} onChange={(e) => setText(e.target.value)}
                placeholder="/home/me/app/src/main.rs" data-testid="check-text" />}
        </label>
        <div className="row">
          <label className="field">Project (working directory)
            <input className="mono" value={cwd} onChange={(e) => setCwd(e.target.value)}
              placeholder="/home/me/app" data-testid="check-cwd" /></label>
          <label className="field">Tool address
            <input className="mono" value={tool} onChange={(e) => setTool(e.target.value)}
              placeholder={kind === "command" ? "claude-code.Bash" : "claude-code.Write"} data-testid="check-tool" /></label>
        </div>
        <button type="submit" className="primary" disabled={busy || !text.trim()} data-testid="check-run">
          {busy ? "Checking…" : "Check"}</button>
      </form>
      <div aria-live="polite">
        {error && <p className="error" data-testid="check-error">{error}</p>}
        {verdict && (
          <div className="verdict" data-testid="check-verdict" data-outcome={verdict.outcome}>
            <p><span className={`badge ${OUTCOME[verdict.outcome].badge}`}>{OUTCOME[verdict.outcome].word}</span>{" "}
              <span data-testid="check-why">{verdict.why}</span></p>
            {verdict.rules.length > 0 && (
              <ul className="rules-seen">
                {verdict.rules.map((r, i) => (
                  <li key={i} data-testid="check-rule" data-covers={r.covers}>
                    <span className={r.covers ? "covers" : "muted"}>{r.covers ? "covers" : "does not cover"}</span>{" "}
                    <span className="mono">{r.words}</span> — {r.why}</li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
