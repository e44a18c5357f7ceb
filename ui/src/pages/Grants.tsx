import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Grant } from "../api/types/Grant";
import type { GrantLists } from "../api/types/GrantLists";
import type { HistoryQuery } from "../api/types/HistoryQuery";
import type { RuleImport } from "../api/types/RuleImport";
import type { ArtifactTitle } from "../components/ApprovalCard";
import { CheckCall } from "../components/CheckCall";
import { ExportRules } from "../components/RuleExports";
import { ImportRules, RuleImportCard } from "../components/RuleImports";
import { GrantUntil } from "../components/Clock";
import { Verbatim } from "../components/Verbatim";
import { neverUsed, reachWords, untilWords, whereWords } from "../lib/grants";
import { stamp } from "../lib/time";

/** Live grants and deny rules with Revoke, then the revoke list (revoked or expired). */
export function Grants({ version, artifactTitle, openArtifact, openApproval, openHistory }: {
  version: number;
  artifactTitle: (id: string) => ArtifactTitle | null | undefined;
  openArtifact: (id: string) => void;
  openApproval: (id: string) => void;
  /** History, filtered by `q` (the calls a rule decided). */
  openHistory: (q: HistoryQuery) => void;
}) {
  const [lists, setLists] = useState<GrantLists | null>(null);
  const [imports, setImports] = useState<RuleImport[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const reload = () => {
    api.grants().then((l) => { setLists(l); setNow(Date.now()); }).catch((e: Error) => setError(e.message));
    api.ruleImports().then(setImports).catch((e: Error) => setError(e.message));
  };
  useEffect(reload, [version]);
  // Woken once, when the next live grant expires, rather than every second.
  useEffect(() => {
    const next = Math.min(...(lists?.live ?? []).map((g) => g.expires_at ?? Infinity).filter((t) => t > now));
    if (!Number.isFinite(next)) return undefined;
    const t = window.setTimeout(() => setNow(Date.now()), Math.min(next - now + 50, 2 ** 31 - 1));
    return () => window.clearTimeout(t);
  }, [lists, now]);
  const revoke = async (g: Grant) => {
    try {
      await api.revokeGrant(g.id);
      setLists(await api.grants());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const setWatch = async (g: Grant, watch: boolean) => {
    try {
      await api.setGrantWatch(g.id, watch);
      setLists(await api.grants());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  // Proposals nobody asked for (an agent can send them) go in one press; none is taken.
  const declineAll = async () => {
    for (const p of imports) {
      try {
        await api.decideImport(p.id, null);
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
        break;
      }
    }
    reload();
  };
  if (lists === null) return <div className="page"><p className="muted">{error ?? "Loading…"}</p></div>;
  // A grant that expires while the page is open moves to the revoke list at once.
  const expired = (g: Grant) => g.expires_at !== null && g.expires_at <= now;
  const live = lists.live.filter((g) => !expired(g));
  const ended = [...lists.live.filter(expired), ...lists.revoked];
  const table = (grants: Grant[], onRevoke?: (g: Grant) => Promise<void>) => (
    <GrantTable grants={grants} now={now} artifactTitle={artifactTitle} openArtifact={openArtifact}
      openApproval={openApproval} revoke={onRevoke} openHistory={openHistory} setWatch={onRevoke ? setWatch : undefined} />
  );
  return (
    <div className="page grants">
      <h1>Grants</h1>
      <p className="muted">Rules that decide without asking: each covers calls to one tool address (for one
        artifact, or for calls that name none) or, for commands and folders, every agent's, narrowed to what you
        chose. A deny rule beats any approval.</p>
      {error && <p className="error">{error}</p>}
      <ImportRules onProposed={reload} />
      <ExportRules />
      {imports.length > 0 && <p className="notice" data-testid="imports-waiting">
        {imports.length === 1 ? "A proposal to bring in rules waits" : `${imports.length} proposals to bring in rules wait`} below
        the rules you have.{imports.length > 1 && <>{" "}<button className="small danger" data-testid="imports-decline-all"
          onClick={() => void declineAll()}>Decline all {imports.length}</button></>}</p>}
      {live.length === 0 ? <p className="muted" data-testid="no-grants">No live grants.</p> : table(live, revoke)}
      {/* Below the table: a proposal an agent sends never moves the rules under the cursor. */}
      {imports.map((p) => <RuleImportCard key={p.id} p={p} onDecided={reload} />)}
      <CheckCall />
      <h2>Revoked and expired</h2>
      {ended.length === 0 ? <p className="muted">Nothing revoked or expired yet.</p> : table(ended)}
    </div>
  );
}

/** Grants in a table: what each covers in plain words, its uses, and how long it lasts. */
export function GrantTable({ grants, now, artifactTitle, openArtifact, openApproval, revoke, review, openHistory, setWatch }: {
  grants: Grant[];
  /** Starts a watching rule acting (or sets an acting one watching). */
  setWatch?: (g: Grant, watch: boolean) => Promise<void>;
  now: number;
  /** Opens History on the calls a rule decided. */
  openHistory?: (q: HistoryQuery) => void;
  artifactTitle: (id: string) => ArtifactTitle | null | undefined;
  openArtifact: (id: string) => void;
  openApproval?: (id: string) => void;
  revoke?: (g: Grant) => Promise<void>;
  /** Shows the change that paused an artifact's grant (else its artifact's page opens). */
  review?: (g: Grant) => void;
}) {
  return (
    <table className="grid" data-testid={revoke ? "live-grants" : "revoked-grants"}>
      <thead>
        <tr><th>Rule</th><th>Covers</th><th>Where</th><th>How long</th><th>Uses</th><th>Last used</th>{revoke ? <th /> : <th>Ended</th>}</tr>
      </thead>
      <tbody>
        {grants.map((g) => (
          <tr key={g.id} data-testid="grant-row" data-effect={g.effect} data-watch={g.watch ? "yes" : "no"}>
            <td><span className={`badge ${g.effect === "deny" ? "badge-declined" : "badge-approved"}`}>
              {g.effect === "deny" ? "Decline" : "Approve"}</span>
              {g.watch && <div><span className="pill pill-warn" data-testid="grant-watching"
                title="It decides nothing: History shows what it would have done">watching</span></div>}</td>
            <td data-testid="grant-covers">
              {g.reach.kind === "exact" && openApproval && g.approval_id !== null
                ? <button className="link" onClick={() => openApproval(g.approval_id as string)}>this exact call</button>
                : reachWords(g.reach, g.effect)}
              {g.serves !== null
                ? <> from <strong data-testid="grant-serves">any agent</strong> <span className="muted">({g.serves})</span></>
                : <>{" "}to <code className="mono">{g.tool}</code></>}
              {g.reason && <div className="muted">Reason: {g.reason}</div>}
              {g.paused && g.revoked_at === null && g.source?.digest && (
                <div className="paused" data-testid="grant-paused">
                  <span className="pill pill-warn">paused</span> the repository's rules file changed since you took it:
                  this rule decides nothing until you take the file as it is now (proposed below when it reads).
                </div>
              )}
              {g.author && <div className="muted" data-testid="grant-author">made by <strong>{g.author.name}</strong> on the team's page,
                for the team's machines{g.team_project ? <> of project <strong>{g.team_project}</strong></> : " of every project"}</div>}
              {g.source && <div className="muted" data-testid="grant-source">from {g.source.file}, line {g.source.line}:{" "}
                <code className="mono"><Verbatim text={g.source.text} /></code></div>}
              {g.paused && g.revoked_at === null && g.artifact_id && (
                <div className="paused" data-testid="grant-paused">
                  <span className="pill pill-warn">paused</span> the artifact's code changed since
                  {g.artifact_version === null ? " this rule was made" : ` version ${g.artifact_version}`}: its calls ask again.{" "}
                  <button className="link" data-testid="grant-review" onClick={() => (review ? review(g) : openArtifact(g.artifact_id as string))}>
                    Review the change</button>
                </div>
              )}
            </td>
            <td>{g.artifact_id ? (
              <ArtifactCell id={g.artifact_id} title={artifactTitle(g.artifact_id)} openArtifact={openArtifact} />
            ) : whereWords(g)}</td>
            <td className="when" data-testid="grant-until" title={g.expires_at !== null ? stamp(g.expires_at) : undefined}>
              <GrantUntil at={g.expires_at} words={untilWords} /></td>
            <td>{g.uses}{neverUsed(g, now) && <span className="pill pill-warn" data-testid="never-used"> never used</span>}
              {g.uses > 0 && openHistory && <div><button className="link small" data-testid="grant-calls"
                onClick={() => openHistory({ decider: { kind: "rule", id: g.id } })}>calls it decided</button></div>}
              {g.watch && openHistory && <div><button className="link small" data-testid="grant-would-have"
                onClick={() => openHistory({ watched_by: g.id })}>calls it would have decided</button></div>}</td>
            <td className="when">{g.last_used_at !== null ? stamp(g.last_used_at) : <span className="muted">never</span>}</td>
            {revoke ? (
              <td>{g.watch && setWatch && <button className="small" onClick={() => void setWatch(g, false)}
                data-testid="grant-act">Start acting</button>}{" "}
                <button className="danger small" onClick={() => void revoke(g)} data-testid="revoke">Revoke</button></td>
            ) : <td className="when" data-testid="ended">{g.revoked_at !== null
              ? `revoked ${stamp(g.revoked_at)}`
              : g.expires_at !== null ? `expired ${stamp(g.expires_at)}` : ""}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ArtifactCell({ id, title, openArtifact }: { id: string; title: ArtifactTitle | null | undefined; openArtifact: (id: string) => void }) {
  if (title === null) return <span className="muted" title={id}>deleted artifact</span>;
  if (title === undefined) return <code className="mono muted">{id}</code>;
  return <button className="link" onClick={() => openArtifact(id)}><Verbatim text={title.title} marks={title.marks} /></button>;
}
