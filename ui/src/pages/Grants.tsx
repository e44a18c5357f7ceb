import { useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Grant } from "../api/types/Grant";
import type { GrantLists } from "../api/types/GrantLists";
import type { ArtifactTitle } from "../components/ApprovalCard";
import { Verbatim } from "../components/Verbatim";
import { stamp } from "../lib/time";

/** Live grants with Revoke, then the revoke list. */
export function Grants({ version, artifactTitle, openArtifact }: {
  version: number;
  artifactTitle: (id: string) => ArtifactTitle | undefined;
  openArtifact: (id: string) => void;
}) {
  const [lists, setLists] = useState<GrantLists | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.grants().then(setLists).catch((e: Error) => setError(e.message));
  }, [version]);
  const revoke = async (g: Grant) => {
    try {
      await api.revokeGrant(g.id);
      setLists(await api.grants());
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  if (lists === null) return <div className="page"><p className="muted">{error ?? "Loading…"}</p></div>;
  return (
    <div className="page grants">
      <h1>Grants</h1>
      <p className="muted">Each grant approves every call to its tool address for its artifact without asking.</p>
      {error && <p className="error">{error}</p>}
      {lists.live.length === 0 ? <p className="muted" data-testid="no-grants">No live grants.</p> : (
        <GrantTable grants={lists.live} artifactTitle={artifactTitle} openArtifact={openArtifact} revoke={revoke} />
      )}
      <h2>Revoked</h2>
      {lists.revoked.length === 0 ? <p className="muted">Nothing revoked yet.</p> : (
        <GrantTable grants={lists.revoked} artifactTitle={artifactTitle} openArtifact={openArtifact} />
      )}
    </div>
  );
}

export function GrantTable({ grants, artifactTitle, openArtifact, revoke }: {
  grants: Grant[];
  artifactTitle: (id: string) => ArtifactTitle | undefined;
  openArtifact: (id: string) => void;
  revoke?: (g: Grant) => Promise<void>;
}) {
  return (
    <table className="grid" data-testid={revoke ? "live-grants" : "revoked-grants"}>
      <thead>
        <tr><th>Tool address</th><th>Artifact</th><th>Created</th><th>Uses</th><th>Last used</th>{revoke ? <th /> : <th>Revoked</th>}</tr>
      </thead>
      <tbody>
        {grants.map((g) => (
          <tr key={g.id} data-testid="grant-row">
            <td><code className="mono">{g.tool}</code></td>
            <td>{g.artifact_id ? (
              <ArtifactCell id={g.artifact_id} title={artifactTitle(g.artifact_id)} openArtifact={openArtifact} />
            ) : <span className="muted">any (no artifact)</span>}</td>
            <td className="when">{stamp(g.created_at)}</td>
            <td>{g.uses}</td>
            <td className="when">{g.last_used_at !== null ? stamp(g.last_used_at) : <span className="muted">never</span>}</td>
            {revoke ? (
              <td><button className="danger small" onClick={() => void revoke(g)} data-testid="revoke">Revoke</button></td>
            ) : <td className="when">{g.revoked_at !== null ? stamp(g.revoked_at) : ""}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ArtifactCell({ id, title, openArtifact }: { id: string; title?: ArtifactTitle; openArtifact: (id: string) => void }) {
  if (!title) return <span className="muted" title={id}>deleted artifact</span>;
  return <button className="link" onClick={() => openArtifact(id)}><Verbatim text={title.title} marks={title.marks} /></button>;
}
