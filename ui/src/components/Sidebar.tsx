import { useEffect, useState } from "react";

import type { Mark } from "../api/types/Mark";
import type { ShownSummary } from "../api/types/ShownSummary";
import { Verbatim } from "./Verbatim";

export type NavPage = "inbox" | "history" | "grants" | "settings";

/** Navigation, and the artifacts library: search, open, rename (F2 / double-click), delete. */
export function Sidebar({ current, team, goTeam, currentArtifact, pending, artifacts, query, setQuery, go, openArtifact, rename, remove }: {
  current: NavPage | null;
  /** The team console the window reads beside its own: its name is always in view. */
  team?: { name: string; waiting: number; current: boolean } | null;
  goTeam?: () => void;
  currentArtifact: string | null;
  pending: number;
  artifacts: ShownSummary[];
  query: string;
  setQuery: (q: string) => void;
  go: (p: NavPage) => void;
  openArtifact: (id: string) => void;
  rename: (id: string, title: string) => Promise<void>;
  remove: (id: string, title: string, marks?: Mark[]) => Promise<void>;
}) {
  const [editing, setEditing] = useState<{ id: string; title: string } | null>(null);
  // F2 renames the open artifact, wherever the focus is (except in a text field).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (e.key !== "F2" || !currentArtifact || (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA"))) return;
      const a = artifacts.find((x) => x.artifact.id === currentArtifact)?.artifact;
      if (a) { e.preventDefault(); setEditing({ id: a.id, title: a.title }); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [currentArtifact, artifacts]);
  const nav = (p: NavPage, label: string, badge?: number) => (
    <button className={`nav ${current === p ? "active" : ""}`} onClick={() => go(p)} data-testid={`nav-${p}`}>
      {label}
      {badge !== undefined && badge > 0 && <span className="badge-count" data-testid="pending-badge">{badge}</span>}
    </button>
  );
  const commit = async () => {
    if (!editing) return;
    const { id, title } = editing;
    setEditing(null);
    await rename(id, title);
  };
  return (
    <nav className="sidebar">
      <div className="brand">Countersign</div>
      {nav("inbox", team ? "This computer" : "Inbox", pending)}
      {team && (
        <button className={`nav team-nav ${team.current ? "active" : ""}`} onClick={goTeam} data-testid="nav-team"
          title="A team console's waiting calls: decided on the team's page, with your passkey">
          {team.name}
          {team.waiting > 0 && <span className="badge-count" data-testid="team-badge">{team.waiting}</span>}
        </button>
      )}
      {nav("history", "History")}
      {nav("grants", "Grants")}
      {nav("settings", "Settings")}
      <h2 className="section">Artifacts</h2>
      <input className="search" type="search" placeholder="Search artifacts" value={query}
        onChange={(e) => setQuery(e.target.value)} aria-label="Search artifacts" data-testid="artifact-search" />
      <ul className="artifacts" data-testid="artifact-list">
        {artifacts.length === 0 && <li className="muted small-pad">{query ? "No match." : "Agents' artifacts appear here."}</li>}
        {artifacts.map(({ artifact: a, marks }) => (
          <li key={a.id} className={currentArtifact === a.id ? "active" : undefined}>
            {editing?.id === a.id ? (
              <input autoFocus value={editing.title} aria-label="New title" data-testid="rename-input" maxLength={1000}
                onChange={(e) => setEditing({ id: a.id, title: e.target.value })}
                onKeyDown={(e) => {
                  if (e.key === "Enter") void commit();
                  if (e.key === "Escape") setEditing(null);
                }}
                onBlur={() => void commit()} />
            ) : (
              <div className="artifact-row">
                <button className="artifact-link" data-testid="artifact-item" data-id={a.id}
                  onClick={() => openArtifact(a.id)}
                  onDoubleClick={() => setEditing({ id: a.id, title: a.title })}>
                  <Verbatim text={a.title} marks={marks["title"]} />
                </button>
                <button className="icon" aria-label={`Delete ${a.title}`} title="Delete" data-testid="artifact-delete"
                  onClick={() => void remove(a.id, a.title, marks["title"])}>✕</button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
