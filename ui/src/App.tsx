import { useCallback, useEffect, useMemo, useState } from "react";

import { api, onChange, onNavigate } from "./api/ipc";
import type { ShownSummary } from "./api/types/ShownSummary";
import type { Decision } from "./api/types/Decision";
import type { LinkTarget } from "./api/types/LinkTarget";
import type { Presented } from "./api/types/Presented";
import type { ArtifactTitle, CardActions } from "./components/ApprovalCard";
import { ConfirmProvider, useConfirm } from "./components/Confirm";
import { type NavPage, Sidebar } from "./components/Sidebar";
import { Verbatim } from "./components/Verbatim";
import { assertNever } from "./lib/assert";
import { ApprovalPage } from "./pages/ApprovalPage";
import { ArtifactPage } from "./pages/ArtifactPage";
import { Grants } from "./pages/Grants";
import { History } from "./pages/History";
import { Inbox } from "./pages/Inbox";
import { Settings } from "./pages/Settings";

type Page =
  | { kind: NavPage }
  | { kind: "artifact"; id: string }
  | { kind: "approval"; id: string };

/** Said once when the shell loaded the window again after its page stopped. */
const RECOVERED: Record<string, string> = {
  unresponsive: "The window stopped responding while an artifact's preview was open (its code did not yield), so it was reloaded. Nothing was decided; the artifact is in the library.",
  memory: "The window ran out of memory and was reloaded. Nothing was decided.",
  crashed: "The window's page stopped unexpectedly and was reloaded. Nothing was decided.",
};
const recovered = (() => {
  const url = new URL(window.location.href);
  const why = url.searchParams.get("recovered");
  if (why === null) return null;
  window.history.replaceState(null, "", url.pathname);
  return RECOVERED[why] ?? null;
})();

export function App() {
  return (
    <ConfirmProvider>
      <Console />
    </ConfirmProvider>
  );
}

function Console() {
  const confirm = useConfirm();
  const [page, setPage] = useState<Page>({ kind: "inbox" });
  const [inbox, setInbox] = useState<Presented[]>([]);
  const [artifacts, setArtifacts] = useState<ShownSummary[]>([]);
  const [titles, setTitles] = useState<Map<string, ArtifactTitle>>(new Map());
  const [query, setQuery] = useState("");
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(recovered);

  const refresh = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    void api.inbox().then(setInbox).catch((e: Error) => setNotice(e.message));
  }, [version]);

  useEffect(() => {
    void api.artifacts(query.trim() ? query : null).then(setArtifacts).catch(() => {});
  }, [query, version]);

  useEffect(() => {
    void api.artifacts(null)
      .then((all) => setTitles(new Map(all.map((a) => [a.artifact.id, { title: a.artifact.title, marks: a.marks["title"] }]))))
      .catch(() => {});
  }, [version]);

  const follow = useCallback((t: LinkTarget) => {
    switch (t.kind) {
      case "artifact": setNotice(null); setPage({ kind: "artifact", id: t.id }); break;
      case "approval": setNotice(null); setPage({ kind: "approval", id: t.id }); break;
      case "inbox": setNotice(null); setPage({ kind: "inbox" }); break;
      case "unsupported": setNotice(`Unsupported link: nothing was opened. ${t.reason}.`); break;
      default: assertNever(t);
    }
  }, []);

  useEffect(() => {
    const take = () => void api.takeLink().then((t) => { if (t) follow(t); });
    // What changed, or a link that arrived, before a listener was in place is fetched as soon
    // as it is: an agent may submit while the window is still starting.
    const subs = [
      onChange(() => refresh()).then((un) => { refresh(); return un; }),
      onNavigate(take).then((un) => { take(); return un; }),
    ];
    return () => { subs.forEach((s) => void s.then((un) => un())); };
  }, [follow, refresh]);

  useEffect(() => {
    void api.setView(page.kind).catch(() => {});
  }, [page.kind]);

  const rename = useCallback(async (id: string, title: string) => {
    try { await api.renameArtifact(id, title); }
    catch (e) { setNotice(e instanceof Error ? e.message : String(e)); }
    refresh();
  }, [refresh]);

  const remove = useCallback(async (id: string, title: string) => {
    const named = titles.get(id);
    const ok = await confirm(<>Delete “<Verbatim text={title} marks={named?.title === title ? named.marks : undefined} />”?</>,
      "The artifact is removed from the library, its grants are revoked and its pending requests are cancelled.",
      "Delete");
    if (!ok) return;
    try {
      await api.deleteArtifact(id);
      setPage((p) => (p.kind === "artifact" && p.id === id ? { kind: "inbox" } : p));
    } catch (e) { setNotice(e instanceof Error ? e.message : String(e)); }
    refresh();
  }, [refresh, confirm, titles]);

  const actions: CardActions = useMemo(() => ({
    decide: async (id: string, digest: string, d: Decision) => { await api.decide(id, digest, d); refresh(); },
    openArtifact: (id: string) => setPage({ kind: "artifact", id }),
    openApproval: (id: string) => setPage({ kind: "approval", id }),
    artifactTitle: (id: string) => titles.get(id),
    report: (message: string) => { setNotice(message); refresh(); },
  }), [refresh, titles]);

  const body = (() => {
    switch (page.kind) {
      case "inbox": return <Inbox items={inbox} actions={actions} />;
      case "history": return <History version={version} actions={actions} />;
      case "grants": return <Grants version={version} artifactTitle={(id) => titles.get(id)}
        openArtifact={actions.openArtifact} openApproval={(id) => setPage({ kind: "approval", id })} />;
      case "settings": return <Settings />;
      case "artifact": return <ArtifactPage key={page.id} id={page.id} version={version} rename={rename} remove={remove} openArtifact={actions.openArtifact} />;
      case "approval": return <ApprovalPage id={page.id} version={version} actions={actions} />;
      default: return assertNever(page);
    }
  })();

  return (
    <div className="app">
      <Sidebar current={page.kind === "artifact" || page.kind === "approval" ? null : page.kind}
        currentArtifact={page.kind === "artifact" ? page.id : null}
        pending={inbox.length} artifacts={artifacts} query={query} setQuery={setQuery}
        go={(p) => { setNotice(null); setPage({ kind: p }); }} openArtifact={actions.openArtifact} rename={rename} remove={remove} />
      <main className="main">
        {notice && (
          <div className="notice-bar" role="alert" data-testid="notice">
            <span>{notice}</span>
            <button className="icon" aria-label="Dismiss" onClick={() => setNotice(null)}>✕</button>
          </div>
        )}
        {body}
      </main>
    </div>
  );
}
