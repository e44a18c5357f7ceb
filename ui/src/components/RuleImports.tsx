import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Format } from "../api/types/Format";
import type { ProposedRule } from "../api/types/ProposedRule";
import type { RuleImport } from "../api/types/RuleImport";
import type { Taking } from "../api/types/Taking";
import { stamp } from "../lib/time";
import { Verbatim } from "./Verbatim";

/** Where each agent keeps the rules a person wrote for it, offered first. */
const FILES: Record<Format, { agent: string; path: string }> = {
  claude: { agent: "Claude Code", path: "~/.claude/settings.json" },
  codex: { agent: "Codex", path: "~/.codex/rules/default.rules" },
  gemini: { agent: "Gemini CLI", path: "~/.gemini/policies/auto-saved.toml" },
  amp: { agent: "Amp", path: "~/.config/amp/settings.json" },
  cursor: { agent: "Cursor CLI", path: "~/.cursor/cli-config.json" },
  opencode: { agent: "OpenCode", path: "~/.config/opencode/opencode.json" },
  copilot: { agent: "Copilot CLI", path: "~/.copilot/permissions-config.json" },
  countersign: { agent: "A repository's .countersign/rules.toml", path: "~/app/.countersign/rules.toml" },
};

/** "Import rules…": read an agent's rules file into a proposal the person looks at before
 * anything is made (the same proposal `countersign rules import` prints). */
export function ImportRules({ onProposed }: { onProposed: () => void }) {
  const [open, setOpen] = useState(false);
  const [format, setFormat] = useState<Format>("claude");
  const [path, setPath] = useState(FILES.claude.path);
  const [project, setProject] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open) {
    return (
      <p className="import-open">
        <button onClick={() => setOpen(true)} data-testid="import-open">Import rules…</button>{" "}
        <span className="muted">the rules you already keep for an agent (Claude Code, Codex, Gemini CLI, Amp, Cursor CLI, OpenCode, Copilot CLI)</span>
      </p>
    );
  }
  const read = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.proposeImport(path.trim(), format, project.trim() || null);
      setOpen(false);
      onProposed();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="import-form" data-testid="import-form" onSubmit={(e) => { e.preventDefault(); void read(); }}>
      <h2>Import rules from an agent</h2>
      <p className="muted">Countersign reads the file and shows each rule beside the rule it would become here, and what
        it would have decided among your last calls. Nothing is made until you take it.</p>
      <label className="field">Format
        <select value={format} data-testid="import-format" onChange={(e) => {
          const f = e.target.value as Format;
          setFormat(f);
          setPath(FILES[f].path);
        }}>
          {(Object.keys(FILES) as Format[]).map((f) => <option key={f} value={f}>{FILES[f].agent}</option>)}
        </select>
      </label>
      <label className="field">File (its full path, or from ~/)
        <input className="mono" value={path} onChange={(e) => setPath(e.target.value)} data-testid="import-path"
          autoFocus placeholder={FILES[format].path} />
      </label>
      <label className="field">Project its rules serve <span className="muted">(empty: the project whose
        <code>.claude</code>, <code>.codex/rules</code>, <code>.amp</code>, <code>.cursor</code> or <code>.countersign</code> holds the file, whose root holds <code>opencode.json</code>, or every project)</span>
        <input className="mono" value={project} onChange={(e) => setProject(e.target.value)} data-testid="import-project"
          placeholder="/home/me/app" />
      </label>
      {error && <p className="error" role="alert" data-testid="import-error">{error}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || path.trim() === ""} data-testid="import-read">
          {busy ? "Reading…" : "Read the file"}</button>
        <button type="button" onClick={() => { setOpen(false); setError(null); }}>Cancel</button>
      </div>
    </form>
  );
}

const SAID = { allow: "allow", ask: "ask", deny: "deny", other: "" } as const;
/** A repository's file says `decide = "approve"` or `"decline"`. */
const DECIDE = { allow: "approve", ask: "ask", deny: "decline", other: "" } as const;

/** A proposal to bring in an agent's rules: each foreign rule beside what it becomes, then
 * Take, Take watching, or Decline. */
export function RuleImportCard({ p, onDecided }: { p: RuleImport; onDecided: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Inert for a moment after it appears: a proposal that lands where the person was about to
  // click is not taken by that click.
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    setArmed(false);
    const t = window.setTimeout(() => setArmed(true), 1000);
    return () => window.clearTimeout(t);
  }, [p.id]);
  const made = p.rules.reduce((n, r) => n + (r.outcome.kind === "kept" ? r.outcome.rules.length : 0), 0);
  const repository = p.format === "countersign";
  const decide = async (taking: Taking | null) => {
    setBusy(true);
    setError(null);
    try {
      await api.decideImport(p.id, taking);
      onDecided();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const fromApi = p.requested_by.startsWith("countersign rules import");
  const approvals = p.rules.some((r) => r.outcome.kind === "kept" && r.outcome.rules.some((d) => d.effect === "approve"));
  return (
    <section className="rule-import" data-testid="rule-import" data-id={p.id} data-format={p.format}>
      <h2>{p.agent} proposes {made === 1 ? "1 rule" : `${made} rules`}</h2>
      <p>From <code className="mono" data-testid="import-file"><Verbatim text={p.file} /></code>, for calls
        {p.project ? <> from <code className="mono"><Verbatim text={p.project} /></code></> : " from every project"}. Asked
        by <Verbatim text={p.requested_by} />, {stamp(p.created_at)}.</p>
      {p.format === "claude" && <p className="muted">Only this file is read: ask and deny rules Claude Code merges in
        from its other settings files are not weighed against these allows.</p>}
      {fromApi && <p className="notice">Agents hold the API token too: take it only if you asked for it yourself.</p>}
      {repository && <p className="notice" data-testid="repository-notice">An agent working in this repository can write
        this file. Its rules apply to the repository's calls only while the file stays exactly as it is now: any change
        pauses them until you take it again. Its approve rules watch unless you let them decide.</p>}
      <table className="grid">
        <thead><tr><th>Line</th><th>{p.agent}'s rule</th><th>Here it becomes</th><th>Among your last calls</th></tr></thead>
        <tbody>
          {p.rules.map((r, i) => <ProposedRow key={i} r={r} agent={p.agent} said={repository ? DECIDE : SAID} />)}
        </tbody>
      </table>
      {error && <p className="error" role="alert">{error}</p>}
      <div className="row">
        {repository ? <>
          <button className="primary" disabled={busy || !armed || made === 0} data-testid="import-take"
            onClick={() => void decide({ watch: false, repository_approvals: false })}>
            {approvals ? "Take it, its approvals watching" : `Take ${made === 1 ? "the rule" : `the ${made} rules`}`}</button>
          {approvals && <button disabled={busy || !armed} data-testid="import-take-approvals"
            onClick={() => void decide({ watch: false, repository_approvals: true })}>Take it, its approvals deciding too</button>}
        </> : (
          <button className="primary" disabled={busy || !armed || made === 0} onClick={() => void decide({ watch: false, repository_approvals: false })}
            data-testid="import-take">Take {made === 1 ? "the rule" : `the ${made} rules`}</button>
        )}
        <button disabled={busy || !armed || made === 0} onClick={() => void decide({ watch: true, repository_approvals: false })} data-testid="import-watch"
          title="The rules decide nothing yet: History shows what each would have done, and you start them when you trust them">
          Take them watching</button>
        <button className="danger" disabled={busy || !armed} onClick={() => void decide(null)} data-testid="import-decline">
          Decline</button>
      </div>
    </section>
  );
}

function ProposedRow({ r, agent, said }: { r: ProposedRule; agent: string; said: typeof SAID | typeof DECIDE }) {
  return (
    <tr data-testid="proposed-rule" data-kind={r.outcome.kind}>
      <td className="when">{r.source.line}</td>
      <td><span className="muted">{said[r.said]}</span> <code className="mono"><Verbatim text={r.source.text} /></code></td>
      <td>
        {r.outcome.kind === "kept" && r.words.map((w, i) => <div key={i} data-testid="proposed-words"><Verbatim text={w} /></div>)}
        {r.outcome.kind === "kept" && r.outcome.rules[0]?.reason && <div className="muted">It tells the agent:{" "}
          <Verbatim text={r.outcome.rules[0].reason} /></div>}
        {r.outcome.kind === "refused" && <div><span className="pill pill-warn">refused</span> {r.outcome.why}</div>}
        {r.outcome.kind === "left" && <div className="muted"><span className="pill">left to {agent}</span> {r.outcome.why}</div>}
      </td>
      <td className="when">{r.outcome.kind === "kept" && r.scanned > 0
        ? `would have decided ${r.covered} of ${r.scanned} (${r.approved} you approved)`
        : r.outcome.kind === "kept" ? "no calls to it yet" : ""}</td>
    </tr>
  );
}
