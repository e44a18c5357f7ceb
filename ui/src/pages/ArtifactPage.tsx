import { useEffect, useRef, useState, type KeyboardEvent } from "react";

import { api, CommandError } from "../api/ipc";
import type { ArtifactVersion } from "../api/types/ArtifactVersion";
import type { Grant } from "../api/types/Grant";
import type { Mark } from "../api/types/Mark";
import type { ShownArtifact } from "../api/types/ShownArtifact";
import type { ShownDiff } from "../api/types/ShownDiff";
import { ArtifactPreview } from "../components/ArtifactPreview";
import { DiffView } from "../components/DiffView";
import { Verbatim } from "../components/Verbatim";
import { stamp } from "../lib/time";
import { GrantTable } from "./Grants";

const TABS = ["preview", "source", "versions", "grants"] as const;
type Tab = (typeof TABS)[number];

/** One artifact: rendered live, its source verbatim, its versions and its grants. */
export function ArtifactPage({ id, version, rename, remove, openArtifact }: {
  id: string;
  version: number;
  rename: (id: string, title: string) => Promise<void>;
  remove: (id: string, title: string, marks?: Mark[]) => Promise<void>;
  openArtifact: (id: string) => void;
}) {
  const [shown, setShown] = useState<ShownArtifact | null>(null);
  const [grants, setGrants] = useState<Grant[]>([]);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>("preview");
  // The pair of versions Versions compares, when a review of paused grants chose it.
  const [review, setReview] = useState<[number, number] | null>(null);
  const tabs = useRef<Record<Tab, HTMLButtonElement | null>>({ preview: null, source: null, versions: null, grants: null });

  useEffect(() => { setTab("preview"); setEditing(null); setReview(null); }, [id]);
  useEffect(() => {
    setMissing(false);
    api.artifact(id).then((a) => { setShown(a); setError(null); }).catch((e: unknown) => {
      if (e instanceof CommandError && e.code === "artifact_not_found") setMissing(true);
      else setError(e instanceof Error ? e.message : String(e));
    });
    api.artifactGrants(id).then(setGrants).catch(() => setGrants([]));
  }, [id, version]);

  if (missing) {
    return (
      <div className="page" data-testid="not-found">
        <h1>Artifact not found</h1>
        <p>No artifact <code className="mono">{id}</code> is in the library. It may have been deleted.</p>
      </div>
    );
  }
  // The page is drawn in the same shape before the artifact arrives, so its preview frame
  // starts loading its runtime at once and is not made twice.
  const loaded = shown && shown.artifact.id === id ? shown : null;
  const artifact = loaded?.artifact ?? null;
  const live = grants.filter((g) => g.revoked_at === null);
  const paused = live.filter((g) => g.paused);
  // Paused grants by the version they were made for, oldest first.
  const pausedFrom = [...new Set(paused.map((g) => g.artifact_version))].sort((a, b) => (a ?? 0) - (b ?? 0));
  const reviewChange = (from: number | null) => {
    if (!artifact) return;
    // A rule made for no known version is reviewed against the whole history.
    setReview([from ?? 1, artifact.version]);
    setTab("versions");
    tabs.current.versions?.focus();
  };
  const reloadGrants = () => api.artifactGrants(id).then(setGrants).catch((e: Error) => setError(e.message));
  const save = async () => {
    if (editing === null) return;
    try { await rename(id, editing); setEditing(null); } catch (e) { setError(e instanceof Error ? e.message : String(e)); }
  };
  const label: Record<Tab, string> = {
    preview: "Preview",
    source: "Source",
    versions: artifact ? `Versions (${artifact.version})` : "Versions",
    grants: `Grants (${live.length})`,
  };
  // Arrow keys, Home and End move between tabs, as in any tab list.
  const onTabKey = (e: KeyboardEvent) => {
    const i = TABS.indexOf(tab);
    const next = e.key === "ArrowRight" ? TABS[(i + 1) % TABS.length]
      : e.key === "ArrowLeft" ? TABS[(i + TABS.length - 1) % TABS.length]
      : e.key === "Home" ? TABS[0] : e.key === "End" ? TABS[TABS.length - 1] : null;
    if (!next) return;
    e.preventDefault();
    setTab(next);
    tabs.current[next]?.focus();
  };
  const waiting = <p className="muted">{error ?? "Loading…"}</p>;
  return (
    <div className="page artifact" data-testid={loaded ? "artifact-page" : "artifact-loading"} data-id={id} data-version={artifact?.version}>
      {loaded && artifact ? (
        <header>
          {editing === null ? (
            <h1 data-testid="artifact-title" onDoubleClick={() => setEditing(artifact.title)}><Verbatim text={artifact.title} marks={loaded.marks["title"]} /></h1>
          ) : (
            <form onSubmit={(e) => { e.preventDefault(); void save(); }} className="rename">
              <input autoFocus value={editing} onChange={(e) => setEditing(e.target.value)} maxLength={1000}
                onKeyDown={(e) => { if (e.key === "Escape") setEditing(null); }} aria-label="Title" />
              <button type="submit" className="primary">Save</button>
              <button type="button" onClick={() => setEditing(null)}>Cancel</button>
            </form>
          )}
          {error && <p className="error">{error}</p>}
          {loaded.hidden_marks > 0 && (
            <div className="warning" role="alert" data-testid="hidden-warning">
              ⚠ This artifact carries {loaded.hidden_marks.toLocaleString("en-US")} hidden character{loaded.hidden_marks === 1 ? "" : "s"}, shown as ⟨labelled marks⟩ in its title, description and source.
            </div>
          )}
          {paused.length > 0 && (
            <div className="warning" role="status" data-testid="paused-grants">
              {paused.length} rule{paused.length === 1 ? "" : "s"} for this artifact {paused.length === 1 ? "is" : "are"} paused:
              the agent saved new code since {paused.length === 1 ? "it was" : "they were"} made, so its calls ask again.
              {pausedFrom.map((v) => (
                <button key={v ?? "unknown"} className="link" data-testid="review-change" onClick={() => reviewChange(v)}>
                  {v === null ? "Review the current code" : `Review the change from version ${v} to ${artifact.version}`}
                </button>
              ))}
            </div>
          )}
          <p className="description" data-testid="artifact-description">{artifact.description ? <Verbatim text={artifact.description} marks={loaded.marks["description"]} more={loaded.more_marks["description"]} /> : <span className="muted">No description.</span>}</p>
          <div className="row spread">
            <p className="muted meta">Version {artifact.version} · created {stamp(artifact.created_at)} · updated {stamp(artifact.updated_at)} · <code className="mono">{artifact.id}</code></p>
            <div className="row">
              <button onClick={() => setEditing(artifact.title)}>Rename</button>
              <button className="danger" onClick={() => void remove(artifact.id, artifact.title, loaded.marks["title"])}>Delete…</button>
            </div>
          </div>
        </header>
      ) : (
        <header><h1 className="muted">{error ? "Artifact" : "Opening…"}</h1>{waiting}</header>
      )}
      <div className="tabs" role="tablist" aria-label="Artifact" onKeyDown={onTabKey}>
        {TABS.map((t) => (
          <button key={t} role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls={`panel-${t}`}
            tabIndex={tab === t ? 0 : -1} className={tab === t ? "tab active" : "tab"} data-testid={`tab-${t}`}
            ref={(el) => { tabs.current[t] = el; }} onClick={() => setTab(t)}>
            {label[t]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === "preview" && <ArtifactPreview code={artifact?.code ?? null} compiled={loaded?.compiled ?? null} version={artifact?.version ?? 0} />}
        {tab === "source" && (loaded && artifact ? <Source code={artifact.code} marks={loaded.code_marks} more={loaded.code_more_marks} /> : waiting)}
        {tab === "versions" && (artifact ? <Versions id={id} current={artifact.version} version={version} onError={setError}
          chosen={review} paused={paused} onCarried={() => void reloadGrants()} /> : waiting)}
        {tab === "grants" && (
          <>
            {live.length > 0 && (
              <button className="danger small" data-testid="revoke-all" onClick={() => void api.revokeArtifactGrants(id).then(() => api.artifactGrants(id)).then(setGrants).catch((e: Error) => setError(e.message))}>
                Revoke all {live.length}
              </button>
            )}
            {live.length === 0 ? (
              <p className="muted" data-testid="no-artifact-grants">
                {grants.length === 0 ? "No grants for this artifact." : "No live grants; the revoked ones are on the Grants page."}
              </p>
            ) : (
              <GrantTable grants={live} now={Date.now()} artifactTitle={() => ({ title: artifact?.title ?? id, marks: loaded?.marks["title"] })} openArtifact={openArtifact}
                revoke={async (g) => { await api.revokeGrant(g.id); setGrants(await api.artifactGrants(id)); }}
                review={(g) => reviewChange(g.artifact_version)} />
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** The source exactly as saved, with line numbers and hidden-character marks. */
function Source({ code, marks, more }: { code: string; marks: ShownArtifact["code_marks"]; more: ShownArtifact["code_more_marks"] }) {
  const lines = code.split("\n");
  return (
    <table className="source mono" data-testid="artifact-source">
      <tbody>
        {lines.map((l, i) => (
          <tr key={i}><td className="ln">{i + 1}</td><td className="code"><Verbatim text={l} marks={marks[i]} more={more[i]} /></td></tr>
        ))}
      </tbody>
    </table>
  );
}

const WHO = { agent: "the agent", person: "you" } as const;

/** Every saved version, who saved it and when; the change between any two; restore. Paused
 * grants are carried over here, once the change from their version to the current one is on
 * screen. */
function Versions({ id, current, version, onError, chosen, paused, onCarried }: {
  id: string;
  current: number;
  version: number;
  onError: (message: string) => void;
  /** The pair to compare first (a review of paused grants). */
  chosen: [number, number] | null;
  paused: Grant[];
  onCarried: () => void;
}) {
  const [versions, setVersions] = useState<ArtifactVersion[] | null>(null);
  const [pair, setPair] = useState<[number, number]>(chosen ?? [Math.max(1, current - 1), current]);
  const [diff, setDiff] = useState<ShownDiff | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api.artifactVersions(id).then(setVersions).catch((e: Error) => onError(e.message));
  }, [id, version]);
  useEffect(() => { setPair(chosen ?? [Math.max(1, current - 1), current]); }, [current, chosen]);
  const [from, to] = pair;
  useEffect(() => {
    setDiff(null);
    api.versionDiff(id, from, to).then(setDiff).catch((e: Error) => onError(e.message));
  }, [id, from, to, version]);

  if (!versions) return <p className="muted">Loading versions…</p>;
  const restore = async (v: number) => {
    setBusy(true);
    try { await api.restoreVersion(id, v); } catch (e) { onError(e instanceof Error ? e.message : String(e)); } finally { setBusy(false); }
  };
  // The paused grants this comparison shows the change for: made for `from` (or for no known
  // version, once the current code is on screen), compared with the current version.
  const carrying = diff !== null && to === current
    ? paused.filter((g) => g.artifact_version === from || g.artifact_version === null) : [];
  const carry = async () => {
    setBusy(true);
    try {
      const from_ = carrying.some((g) => g.artifact_version === from) ? from : null;
      await api.carryArtifactGrants(id, from_, current);
      onCarried();
    } catch (e) { onError(e instanceof Error ? e.message : String(e)); } finally { setBusy(false); }
  };
  const pick = (which: 0 | 1) => (
    <select aria-label={which === 0 ? "Compare from version" : "Compare to version"} data-testid={which === 0 ? "diff-from" : "diff-to"}
      value={pair[which]} onChange={(e) => { const n = Number(e.target.value); setPair(which === 0 ? [n, to] : [from, n]); }}>
      {versions.map((v) => <option key={v.version} value={v.version}>version {v.version}</option>)}
    </select>
  );
  return (
    <div className="versions" data-testid="versions">
      <table className="grid" data-testid="version-list">
        <thead><tr><th>Version</th><th>Saved by</th><th>When</th><th>Lines</th><th /></tr></thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.version} data-testid="version-row" data-version={v.version}>
              <td>
                {v.version}{v.version === current && <span className="pill pill-new">current</span>}
              </td>
              <td>{WHO[v.saved_by]}{v.restored_from !== null && <span className="muted"> (restored version {v.restored_from})</span>}</td>
              <td>{stamp(v.saved_at)}</td>
              <td>{v.lines}</td>
              <td className="end">
                {v.version !== current && (
                  <button className="small" disabled={busy} data-testid="restore" onClick={() => void restore(v.version)}
                    title={`Make version ${v.version} current again, as version ${current + 1}; nothing is lost`}>
                    Restore
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 ? (
        <>
          <div className="row compare">Compare {pick(0)} with {pick(1)}</div>
          {diff === null ? <p className="muted">Comparing…</p> : (
            <DiffView rendered={diff.rendered} file={diff.file} marks={(f) => ({ marks: diff.marks[f], more: diff.more_marks[f] })} />
          )}
          {carrying.length > 0 && (
            <div className="row carry" data-testid="carry">
              <span>{carrying.length} paused rule{carrying.length === 1 ? "" : "s"} made for version {from}:</span>
              <button className="primary small" disabled={busy} data-testid="carry-grants" onClick={() => void carry()}>
                Carry {carrying.length === 1 ? "it" : "them"} over to version {current}
              </button>
            </div>
          )}
        </>
      ) : <p className="muted">One version so far: an agent's update keeps this one and adds the next.</p>}
    </div>
  );
}
