import { useState } from "react";

import type { Grant } from "../api/types/Grant";
import type { Presented } from "../api/types/Presented";
import type { Reach } from "../api/types/Reach";
import type { TeamRule } from "../api/types/TeamRule";
import type { Machine, Me } from "./api";
import { team } from "./api";

/** A command's first words a prefix rule could name: up to two plain words, no option, no
 * shell sign. The console checks the prefix again and says why when it refuses it. */
export function firstWords(command: string): string[] {
  const words: string[] = [];
  for (const w of command.trim().split(/\s+/)) {
    if (words.length === 2 || !/^[A-Za-z0-9_.:@/+-]+$/.test(w) || w.startsWith("-")) break;
    words.push(w);
  }
  return words;
}

/** The reaches the team's page offers for a call: this exact call always, and a command's first
 * words for a terminal call. What a tool does on another machine cannot be seen from the
 * console, so "any call to a tool" is never offered here. */
export function reaches(p: Presented): { label: string; reach: Reach }[] {
  const a = p.approval;
  const out: { label: string; reach: Reach }[] = [{ label: "this exact call", reach: { kind: "exact", digest: a.digest } }];
  if (a.call.card === "terminal" && !a.call.args) {
    const words = firstWords(a.call.command);
    if (words.length > 0) out.push({ label: `commands starting with “${words.join(" ")}”`, reach: { kind: "command", words } });
  }
  return out;
}

/** Why this person can make no rule from this call here, or `null` when they can: a machine's
 * call (not the console's own machine's), not a question or a plan, not of an artifact, nothing
 * hidden, not needing two approvals. */
export function noRule(p: Presented, machine: Machine | undefined, me: Me | null): string | null {
  const a = p.approval;
  if (!me || me.reads_only || me.person.role !== "approver") return "Rules are made by the team's approvers.";
  if (!a.asked_with) return "No rule here: this call comes from the console's own machine, whose rules are made at its desk.";
  if (!machine) return "No rule here: the machine that asked is not known to this page (yet).";
  if (a.artifact_id) return "No rule here: an artifact's calls are approved one at a time on the team's page.";
  if (a.call.card === "question" || a.call.card === "plan") return "No rule here: a question or a plan is answered each time.";
  if (p.no_grant !== null) return `No rule here: ${p.no_grant}`;
  const two = me.policy.two_approvals.includes("*") || (machine.project !== null && me.policy.two_approvals.includes(machine.project));
  if (two) return `No rule here: calls ${machine.project !== null && !me.policy.two_approvals.includes("*") ? `of project ${machine.project}` : "on this team"} need two people's approvals, and a rule is one person's word.`;
  return null;
}

export const rulesOffered = (p: Presented, machine: Machine | undefined, me: Me | null) => noRule(p, machine, me) === null;

/**
 * "Don't ask again" on the team's page: the decision the person makes next also becomes a rule
 * in their name, for the calls chosen, on this project's machines or every project's.
 */
export function RuleChooser({ p, machine, rule, setRule }: {
  p: Presented; machine: Machine; rule: TeamRule | null; setRule: (r: TeamRule | null) => void;
}) {
  const options = reaches(p);
  const [which, setWhich] = useState(0);
  const [project, setProject] = useState<string | null>(machine.project);
  const make = (i: number, proj: string | null): TeamRule => ({ reach: options[i].reach, project: proj, expires_at: null });
  return (
    <fieldset className="team-rule" data-testid="team-rule">
      <label>
        <input type="checkbox" checked={rule !== null} data-testid="team-rule-on"
          onChange={(e) => setRule(e.target.checked ? make(which, project) : null)} />
        {" "}Don't ask again: make my decision a rule
      </label>
      {rule !== null && (
        <>
          <label>For{" "}
            <select value={which} data-testid="team-rule-reach"
              onChange={(e) => { const i = Number(e.target.value); setWhich(i); setRule(make(i, project)); }}>
              {options.map((o, i) => <option key={o.label} value={i}>{o.label}</option>)}
            </select>
          </label>
          <label>From{" "}
            <select value={project ?? ""} data-testid="team-rule-project"
              onChange={(e) => { const v = e.target.value === "" ? null : e.target.value; setProject(v); setRule(make(which, v)); }}>
              {machine.project !== null && <option value={machine.project}>machines of project {machine.project}</option>}
              <option value="">every project's machines</option>
            </select>
          </label>
          <p className="muted">
            Until revoked, your rule decides such calls of the team's machines in your name, only
            while the team would take your word on them (never your own agent's calls where
            self-review is prevented, never a call that needs two approvals). As a decline, a
            command rule declines every command that mentions those words. Any approver can
            revoke it on this page.
          </p>
        </>
      )}
    </fieldset>
  );
}

function reachText(g: Grant): string {
  switch (g.reach.kind) {
    case "exact": return "one exact call";
    case "command": return g.effect === "deny" ? `commands mentioning “${g.reach.words.join(" ")}”` : `commands starting with “${g.reach.words.join(" ")}”`;
    case "path": return `files under ${g.reach.prefix}`;
    case "any": return "any call";
  }
}

/** The team's rules, made on this page: who made each, what it reaches, and revoke. */
export function TeamRules({ rules, me, onChanged, onMessage, onOpenCall }: {
  rules: Grant[]; me: Me; onChanged: () => void; onMessage: (m: string) => void;
  /** Opens the call a rule was made from. */
  onOpenCall: (id: string) => void;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const mayRevoke = !me.reads_only && me.person.role === "approver";
  const revoke = async (g: Grant) => {
    setBusy(g.id);
    try {
      await team.revokeRule(g.id);
      onMessage("Rule revoked: the calls it covered ask again.");
      onChanged();
    } catch (e) { onMessage(`Not revoked: ${e instanceof Error ? e.message : String(e)}`); } finally { setBusy(null); }
  };
  return (
    <section className="phone-pad team-rules" data-testid="team-rules">
      <h2>The team's rules</h2>
      {rules.length === 0 ? (
        <p className="muted">No rules yet. “Don't ask again” on a card makes one, in your name.</p>
      ) : (
        <ul>
          {rules.map((g) => (
            <li key={g.id} data-testid="team-rule-row">
              <span className={g.effect === "approve" ? "team-rule-approves" : "team-rule-declines"}>{g.effect === "approve" ? "Approves" : "Declines"}</span>{" "}
              {g.reach.kind === "exact" && g.approval_id !== null
                ? <button className="link" onClick={() => onOpenCall(g.approval_id as string)} data-testid="team-rule-call">{reachText(g)}</button>
                : reachText(g)} to <code className="mono">{g.tool}</code>,{" "}
              {g.team_project ? <>project {g.team_project}</> : <>every project</>}
              <span className="muted"> · by {g.author?.name ?? "?"} · used {g.uses}×
                {" · "}{g.expires_at === null ? "until revoked" : `until ${new Date(g.expires_at).toLocaleString()}`}</span>
              {mayRevoke && (
                <>{" "}<button className="small" disabled={busy === g.id} onClick={() => void revoke(g)} data-testid="team-rule-revoke">Revoke</button></>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
