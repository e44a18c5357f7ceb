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

/** The reaches the team's page offers for a call: this exact call always; a command's first
 * words for a terminal call; every call to the tool for one that is neither a command nor an
 * edit. */
export function reaches(p: Presented): { label: string; reach: Reach }[] {
  const a = p.approval;
  const out: { label: string; reach: Reach }[] = [{ label: "this exact call", reach: { kind: "exact", digest: a.digest } }];
  if (a.call.card === "terminal" && !a.call.args) {
    const words = firstWords(a.call.command);
    if (words.length > 0) out.push({ label: `commands starting with “${words.join(" ")}”`, reach: { kind: "command", words } });
  }
  if (a.call.card === "generic") out.push({ label: `any call to ${a.tool}`, reach: { kind: "any" } });
  return out;
}

/** Whether this person can make a rule from this call: a machine's call (not the console's own
 * machine's), not a question or a plan, not of an artifact, not needing two approvals. */
export function rulesOffered(p: Presented, machine: Machine | undefined, me: Me | null): boolean {
  const a = p.approval;
  if (!me || me.reads_only || me.person.role !== "approver" || !machine || a.artifact_id) return false;
  if (a.call.card === "question" || a.call.card === "plan") return false;
  const two = me.policy.two_approvals.includes("*") || (machine.project !== null && me.policy.two_approvals.includes(machine.project));
  return !two;
}

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
            Your rule decides such calls of the team's machines in your name, only while the team
            would take your word on them (never your own agent's calls where self-review is
            prevented, never a call that needs two approvals). Any approver can revoke it.
          </p>
        </>
      )}
    </fieldset>
  );
}

function reachText(g: Grant): string {
  switch (g.reach.kind) {
    case "exact": return "one exact call";
    case "command": return `commands starting with “${g.reach.words.join(" ")}”`;
    case "path": return `files under ${g.reach.prefix}`;
    case "any": return "any call";
  }
}

/** The team's rules, made on this page: who made each, what it reaches, and revoke. */
export function TeamRules({ rules, me, onChanged, onMessage }: {
  rules: Grant[]; me: Me; onChanged: () => void; onMessage: (m: string) => void;
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
              {reachText(g)} to <code className="mono">{g.tool}</code>,{" "}
              {g.team_project ? <>project {g.team_project}</> : <>every project</>}
              <span className="muted"> · by {g.author?.name ?? "?"} · used {g.uses}×</span>
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
