import { useState } from "react";

import { api } from "../api/ipc";
import type { ExportTarget } from "../api/types/ExportTarget";
import type { RuleExport } from "../api/types/RuleExport";
import { Verbatim } from "./Verbatim";

/** Each agent's format, and the file it is saved to by default. */
const TARGETS: Record<ExportTarget, { agent: string; path: string }> = {
  claude: { agent: "Claude Code (settings.json)", path: "~/countersign-claude.json" },
  codex: { agent: "Codex (.rules)", path: "~/.codex/rules/countersign.rules" },
  gemini: { agent: "Gemini CLI (policy TOML)", path: "~/.gemini/policies/countersign.toml" },
  opencode: { agent: "OpenCode (opencode.json)", path: "~/countersign-opencode.json" },
  "opencode-v2": { agent: "OpenCode (opencode.jsonc, second format)", path: "~/countersign-opencode.jsonc" },
  amp: { agent: "Amp (amp.permissions)", path: "~/countersign-amp.json" },
  cursor: { agent: "Cursor CLI (cli-config.json)", path: "~/countersign-cursor.json" },
  copilot: { agent: "Copilot CLI (a script of flags)", path: "~/bin/copilot-countersign" },
};

/** "Export rules…": the person's declines in an agent's own format, what was left out and why,
 * and the file saved where they say (the same export as `countersign rules export`). */
export function ExportRules() {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState<ExportTarget>("claude");
  const [project, setProject] = useState("");
  const [out, setOut] = useState<RuleExport | null>(null);
  const [path, setPath] = useState(TARGETS.claude.path);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open) {
    return (
      <p className="import-open">
        <button onClick={() => setOpen(true)} data-testid="export-open">Export rules…</button>{" "}
        <span className="muted">your declines in an agent's own format, so it applies them itself</span>
      </p>
    );
  }
  const run = async <T,>(work: () => Promise<T>): Promise<T | null> => {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return null;
    } finally {
      setBusy(false);
    }
  };
  const write = async () => {
    setSaved(null);
    const e = await run(() => api.exportRules(target, project.trim() || null));
    if (e) setOut(e);
  };
  const save = async () => {
    if (!out) return;
    const at = await run(() => api.saveRulesExport(target, project.trim() || null, path.trim(), out.text));
    if (at) setSaved(at);
  };
  return (
    <form className="import-form" data-testid="export-form" onSubmit={(e) => { e.preventDefault(); void write(); }}>
      <h2>Export rules to an agent</h2>
      <p className="muted">Your declines, as the agent's nearest deny — which catches fewer calls than yours here (a
        command behind <code>sudo</code> or inside <code>sh -c</code>). Approve rules are listed, not written: no agent's
        rule approves as little as yours.</p>
      <label className="field">Format
        <select value={target} data-testid="export-target" onChange={(e) => {
          const t = e.target.value as ExportTarget;
          setTarget(t);
          setPath(TARGETS[t].path);
          setOut(null);
          setSaved(null);
        }}>
          {(Object.keys(TARGETS) as ExportTarget[]).map((t) => <option key={t} value={t}>{TARGETS[t].agent}</option>)}
        </select>
      </label>
      <label className="field">Project <span className="muted">(empty: the rules that hold everywhere; a project's full
        path adds its own rules, for its own file)</span>
        <input className="mono" value={project} onChange={(e) => { setProject(e.target.value); setOut(null); setSaved(null); }}
          data-testid="export-project" placeholder="/home/me/app" />
      </label>
      {error && <p className="error" role="alert" data-testid="export-error">{error}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={busy} data-testid="export-show">
          {busy && out === null ? "Reading…" : "Show"}</button>
        <button type="button" onClick={() => { setOpen(false); setOut(null); setError(null); setSaved(null); }}>Close</button>
      </div>
      {out && <ExportShown out={out} />}
      {out && out.written.length > 0 && (
        <div className="row row-end">
          <label className="field grow">Save as a new file (never over one)
            <input className="mono" value={path} onChange={(e) => { setPath(e.target.value); setSaved(null); }}
              data-testid="export-path" />
          </label>
          <button type="button" disabled={busy || path.trim() === ""} onClick={() => void save()} data-testid="export-save">
            Save</button>
        </div>
      )}
      {saved && <p className="notice" role="status" data-testid="export-saved">Saved to <code className="mono">
        <Verbatim text={saved} /></code>: {out?.place}.</p>}
    </form>
  );
}

function ExportShown({ out }: { out: RuleExport }) {
  return (
    <div className="export-shown" data-testid="export-shown">
      {out.written.length > 0
        ? <p><strong data-testid="export-count">{out.written.length === 1 ? "1 rule" : `${out.written.length} rules`}</strong> written
          for {out.agent}: {out.place}.</p>
        : <p><strong data-testid="export-count">Nothing written</strong> for {out.agent}: none of your rules is a decline it
          can apply as it stands.</p>}
      {out.written.length > 0 && <pre className="mono export-text" data-testid="export-text" tabIndex={0}>{out.text}</pre>}
      {out.written.some((w) => w.note) && (
        <ul className="muted" data-testid="export-notes">
          {out.written.filter((w) => w.note).map((w) => <li key={w.grant}><Verbatim text={w.words} />: <Verbatim
            text={w.note ?? ""} /></li>)}
        </ul>
      )}
      {out.left.length > 0 && <>
        <p data-testid="export-left-count">{out.left.length === 1 ? "1 rule" : `${out.left.length} rules`} left out:</p>
        <ul data-testid="export-left">
          {out.left.map((l) => <li key={l.grant}><Verbatim text={l.words} /> <span className="muted">— <Verbatim
            text={l.why} /></span></li>)}
        </ul>
      </>}
      {out.elsewhere > 0 && <p className="muted">{out.elsewhere === 1 ? "1 rule" : `${out.elsewhere} rules`} about tools
        {" "}{out.agent} does not have, not written.</p>}
    </div>
  );
}
