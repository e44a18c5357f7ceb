import { useEffect, useState } from "react";

import { api, CommandError } from "../api/ipc";
import type { ShownArtifact } from "../api/types/ShownArtifact";
import { Verbatim } from "../components/Verbatim";
import type { Grant } from "../api/types/Grant";
import { stamp } from "../lib/time";
import { GrantTable } from "./Grants";

/** One artifact: its details, its JSX source verbatim, its grants; rename and delete. */
export function ArtifactPage({ id, version, rename, remove, openArtifact }: {
  id: string;
  version: number;
  rename: (id: string, title: string) => Promise<void>;
  remove: (id: string, title: string) => Promise<void>;
  openArtifact: (id: string) => void;
}) {
  const [shown, setShown] = useState<ShownArtifact | null>(null);
  const [grants, setGrants] = useState<Grant[]>([]);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);

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
  if (!shown) return <div className="page"><p className="muted">{error ?? "Loading…"}</p></div>;
  const { artifact, marks, code_marks: codeMarks, hidden_marks: hidden } = shown;
  const live = grants.filter((g) => g.revoked_at === null);
  const lines = artifact.code.split("\n");
  const save = async () => {
    if (editing === null) return;
    try { await rename(id, editing); setEditing(null); } catch (e) { setError(e instanceof Error ? e.message : String(e)); }
  };
  return (
    <div className="page artifact" data-testid="artifact-page" data-id={artifact.id}>
      {editing === null ? (
        <h1 data-testid="artifact-title" onDoubleClick={() => setEditing(artifact.title)}><Verbatim text={artifact.title} marks={marks["title"]} /></h1>
      ) : (
        <form onSubmit={(e) => { e.preventDefault(); void save(); }} className="rename">
          <input autoFocus value={editing} onChange={(e) => setEditing(e.target.value)} maxLength={1000}
            onKeyDown={(e) => { if (e.key === "Escape") setEditing(null); }} aria-label="Title" />
          <button type="submit" className="primary">Save</button>
          <button type="button" onClick={() => setEditing(null)}>Cancel</button>
        </form>
      )}
      {error && <p className="error">{error}</p>}
      {hidden > 0 && (
        <div className="warning" role="alert" data-testid="hidden-warning">
          ⚠ This artifact carries {hidden} hidden character{hidden === 1 ? "" : "s"}, shown as ⟨labelled marks⟩.
        </div>
      )}
      <p className="description">{artifact.description ? <Verbatim text={artifact.description} marks={marks["description"]} /> : <span className="muted">No description.</span>}</p>
      <p className="muted">Created {stamp(artifact.created_at)} · updated {stamp(artifact.updated_at)} · <code className="mono">{artifact.id}</code></p>
      <div className="row">
        <button onClick={() => setEditing(artifact.title)}>Rename</button>
        <button className="danger" onClick={() => void remove(artifact.id, artifact.title)}>Delete…</button>
      </div>
      <h2>Grants</h2>
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
        <GrantTable grants={live} now={Date.now()} artifactTitle={() => ({ title: artifact.title, marks: marks["title"] })} openArtifact={openArtifact}
          revoke={async (g) => { await api.revokeGrant(g.id); setGrants(await api.artifactGrants(id)); }} />
      )}
      <h2>Source</h2>
      <p className="muted">The JSX source, exactly as saved. Rendering it here is not available yet.</p>
      <table className="source mono" data-testid="artifact-source">
        <tbody>
          {lines.map((l, i) => (
            <tr key={i}><td className="ln">{i + 1}</td><td className="code"><Verbatim text={l} marks={codeMarks[i]} /></td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
