import { useCallback, useEffect, useMemo, useRef, useState } from "react";

import { api, CommandError, consoleStarted, onChange, onNavigate } from "./api/ipc";
import type { ChangeEvent } from "./api/types/ChangeEvent";
import type { InboxPage } from "./api/types/InboxPage";
import type { Mark } from "./api/types/Mark";
import type { ShownSummary } from "./api/types/ShownSummary";
import type { Decision } from "./api/types/Decision";
import type { HistoryQuery } from "./api/types/HistoryQuery";
import type { LinkTarget } from "./api/types/LinkTarget";
import type { ArtifactTitle, CardActions } from "./components/ApprovalCard";
import { ConfirmProvider, useConfirm } from "./components/Confirm";
import { LazyPlan, PlanDrawing, preloadPlanDrawing } from "./components/PlanText";
import { type NavPage, Sidebar } from "./components/Sidebar";
import { Verbatim } from "./components/Verbatim";
import { assertNever } from "./lib/assert";
import { atMostEvery, EMPTY, InboxSync, inParts, type Pending } from "./lib/inbox";
import { ApprovalPage } from "./pages/ApprovalPage";
import { ArtifactPage } from "./pages/ArtifactPage";
import { Grants } from "./pages/Grants";
import { History } from "./pages/History";
import { Inbox } from "./pages/Inbox";
import { Settings } from "./pages/Settings";
import { TeamConsole } from "./pages/TeamConsole";
import type { TeamConnection } from "./api/types/TeamConnection";

/** The kinds of things pages show, each read again when its kind changes. */
type Resource = "approvals" | "artifacts" | "grants";

type Page =
  | { kind: NavPage }
  | { kind: "team" }
  | { kind: "artifact"; id: string }
  | { kind: "approval"; id: string };

/** The most calls the console declines in one transaction (`MAX_DECLINED_AT_ONCE`). */
const DECLINED_AT_ONCE = 5_000;

/** Cards read with the list at start; the rest are read as the list shows them. */
const FIRST_CARDS = 20;

/** Runs `run` before the next frame, or within 100 ms if the window is hidden (no frames). */
function nextFrame(run: () => void): void {
  let done = false;
  const once = () => { if (!done) { done = true; run(); } };
  requestAnimationFrame(once);
  window.setTimeout(once, 100);
}

/** How often, at most, the inbox draws arrivals again while they keep coming. */
const ARRIVALS_EVERY_MS = 100;


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

/** Reads the inbox's first page; marked for the benchmark. */
function readInbox(): Promise<InboxPage> {
  performance.mark("inbox-asked");
  return api.inboxPage(FIRST_CARDS).then((page) => { performance.mark("inbox-read"); return page; });
}

/** Begins the inbox's first read at once, while the window's first render runs. */
export function readInboxEarly(): Promise<InboxPage> {
  const page = readInbox();
  // Handled where it is used; a failed read is not an unhandled rejection meanwhile.
  page.catch(() => {});
  return page;
}

/** The window. `early`: the inbox's first read, already under way. */
export function App({ early }: { early?: Promise<InboxPage> }) {
  const [notStarted, setNotStarted] = useState<string | null>(null);
  useEffect(() => {
    let timer = 0;
    // Asked again after a failed round trip: only the console's own answer ends the asking.
    const ask = () => consoleStarted().catch((e: unknown) => {
      if (e instanceof CommandError && e.code === "console_not_started") setNotStarted(e.message);
      else timer = window.setTimeout(ask, 1000);
    });
    void ask();
    return () => window.clearTimeout(timer);
  }, []);
  useEffect(preloadPlanDrawing, []);
  if (notStarted !== null) return <NotStarted why={notStarted} />;
  return (
    <ConfirmProvider>
      <PlanDrawing.Provider value={LazyPlan}>
        <Console early={early} />
      </PlanDrawing.Provider>
    </ConfirmProvider>
  );
}

/** The window when its console could not start: why, and nothing that would need it. */
function NotStarted({ why }: { why: string }) {
  return (
    <main className="not-started" role="alert" data-testid="console-not-started">
      <h1>Countersign could not start</h1>
      <p className="error">{why}</p>
      <p className="muted">No agent can reach this window, and nothing was decided. Close the window to quit, then start Countersign again once the cause is fixed.</p>
    </main>
  );
}

function Console({ early }: { early?: Promise<InboxPage> }) {
  const confirm = useConfirm();
  const [page, setPage] = useState<Page>({ kind: "inbox" });
  // The team console the window reads beside its own, when one is linked.
  const [team, setTeam] = useState<TeamConnection | null>(null);
  const [teamWaiting, setTeamWaiting] = useState(0);
  const readTeam = useCallback(() => {
    void api.teamConnection().then(setTeam).catch(() => setTeam(null));
  }, []);
  useEffect(readTeam, [readTeam]);
  // The number beside the team's name: read every 15 s while a team console is linked and the
  // window is shown (its page reads itself more often while shown).
  const teamLinked = team !== null;
  const onTeamPage = page.kind === "team";
  useEffect(() => {
    if (!teamLinked || onTeamPage) return undefined;
    const read = () => {
      if (document.visibilityState !== "visible") return;
      void api.teamInbox().then((t) => setTeamWaiting(t.inbox.ids.length)).catch(() => setTeamWaiting(0));
    };
    read();
    const t = window.setInterval(read, 15_000);
    return () => window.clearInterval(t);
  }, [teamLinked, onTeamPage]);
  const [inbox, setInbox] = useState<Pending>(EMPTY);
  const [artifacts, setArtifacts] = useState<ShownSummary[]>([]);
  // Artifact titles by id, fetched for the ids cards and grants name (`null`: no such
  // artifact), however many the library holds; dropped when an artifact changes.
  const [titles, setTitles] = useState<Map<string, ArtifactTitle | null>>(new Map());
  const wanted = useRef(new Set<string>());
  const asking = useRef(false);
  const titlesGen = useRef(0);
  const fetchTitles = useCallback(() => {
    if (asking.current) return;
    const ids = [...wanted.current].slice(0, 500);
    if (ids.length === 0) return;
    asking.current = true;
    const gen = titlesGen.current;
    const done = () => {
      asking.current = false;
      if (wanted.current.size > 0) queueMicrotask(fetchTitles);
    };
    void api.artifactTitles(ids).then((found) => {
      // Asked before an artifact changed: the answer may be stale. The ids asked for since
      // (still wanted) are read again; the answer is dropped.
      if (gen === titlesGen.current) {
        ids.forEach((id) => wanted.current.delete(id));
        setTitles((prev) => {
          const next = new Map(prev);
          ids.forEach((id) => next.set(id, null));
          for (const s of found) next.set(s.artifact.id, { title: s.artifact.title, marks: s.marks["title"] });
          return next;
        });
      }
      done();
    }).catch(() => {
      // Still wanted: asked again after a moment, so no title is left unread.
      asking.current = false;
      window.setTimeout(fetchTitles, 2000);
    });
  }, []);
  const forgetTitles = useCallback(() => {
    titlesGen.current += 1;
    wanted.current.clear();
    setTitles(new Map());
  }, []);
  /** An artifact's title: `undefined` while it is being looked up, `null` if there is none. */
  const titleOf = useCallback((id: string): ArtifactTitle | null | undefined => {
    const t = titles.get(id);
    if (t === undefined && !wanted.current.has(id)) {
      wanted.current.add(id);
      queueMicrotask(fetchTitles);
    }
    return t;
  }, [titles, fetchTitles]);
  // The machines agent tokens were made for, by token id: a call asked with one is marked with
  // its machine's name. Read at start, when Settings changes them, and when a card names a
  // token not known yet (at most every few seconds).
  const [machines, setMachines] = useState<Map<string, string>>(new Map());
  const machinesRead = useRef(0);
  const readMachines = useCallback(() => {
    machinesRead.current = Date.now();
    void api.agentTokens()
      .then((all) => setMachines(new Map(all.map((t) => [t.id, t.name]))))
      .catch(() => { /* Read again when a card asks. */ });
  }, []);
  useEffect(readMachines, [readMachines]);
  /** The machine an agent token was made for: `undefined` while it is looked up. */
  const machineOf = useCallback((id: string): string | undefined => {
    const name = machines.get(id);
    if (name === undefined && Date.now() - machinesRead.current > 3000) queueMicrotask(readMachines);
    return name;
  }, [machines, readMachines]);
  const [query, setQuery] = useState("");
  // History's search, kept while the person is on other pages.
  const [historyQuery, setHistoryQuery] = useState<HistoryQuery>({});
  // What each page shows is read again when its own kind of thing changed, not on every event.
  const [versions, setVersions] = useState<Record<Resource, number>>({ approvals: 0, artifacts: 0, grants: 0 });
  const [notice, setNotice] = useState<string | null>(recovered);

  const changed = useCallback((...kinds: Resource[]) => setVersions((v) => {
    const next = { ...v };
    for (const k of kinds) next[k] += 1;
    return next;
  }), []);
  /** Everything is read again (after an action of the person's, or events that were missed). */
  const refresh = useCallback(() => changed("approvals", "artifacts", "grants"), [changed]);

  // The pending list is fetched whole at start (and when events were missed), then kept
  // current by the events themselves: an arrival adds one card, a decision removes one.
  const sync = useMemo(() => new InboxSync(setInbox, api.approvals, atMostEvery(ARRIVALS_EVERY_MS, nextFrame)), []);
  const reloadRef = useRef<() => void>(() => {});
  // The read begun with the script is used once, by the first reload; every later one reads.
  const earlyRead = useRef(early);
  const reload = useCallback(() => {
    void sync.reload(() => {
      const page = earlyRead.current ?? readInbox();
      earlyRead.current = undefined;
      return page;
    }).catch((e: Error) => {
      // Said, and tried again: an inbox that could not be read is never shown as empty.
      setNotice(`The inbox could not be read (${e.message}); trying again.`);
      window.setTimeout(reloadRef.current, 2000);
    });
  }, [sync]);
  reloadRef.current = reload;
  const onEvent = useCallback((e: ChangeEvent) => {
    switch (e.kind) {
      case "approval_created":
        if (e.approval.status === "pending") {
          // Its place only: its card is read when the list shows it.
          sync.apply({ kind: "arrived", entry: { id: e.approval.id, created_at: e.approval.created_at, group: e.approval.group } });
          // A run's page and History list its calls as they come.
          if (e.approval.parent) changed("approvals");
        } else changed("approvals");
        return;
      case "approval_finished": sync.apply({ kind: "left", id: e.id }); changed("approvals"); return;
      case "resync": forgetTitles(); reload(); refresh(); return;
      case "artifact_saved":
      case "artifact_deleted":
        forgetTitles();
        changed("artifacts");
        return;
      case "approval_result": changed("approvals"); return;
      // Calls decided by rules and results, summed up while History or a call's page shows.
      case "past_changed": changed("approvals"); return;
      case "grants_changed": changed("grants"); return;
      // Settings → Phone reads its list itself while it is open.
      case "phones_changed": return;
      default: assertNever(e);
    }
  }, [sync, reload, refresh, changed]);

  useEffect(() => {
    void api.artifacts(query.trim() ? query : null).then(setArtifacts).catch(() => {});
  }, [query, versions.artifacts]);


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
    // A read begun before the window listened is shown at once; once it listens, it reads
    // again only if a change was published after that read began (it may have been missed).
    const begun = earlyRead.current;
    if (begun) reload();
    const caughtUp = () => {
      if (!begun) return reload();
      void Promise.all([begun, api.changes()])
        .then(([page, now]) => { if (now !== page.changes) reload(); })
        .catch(() => reload());
    };
    const take = () => void api.takeLink().then((t) => { if (t) follow(t); });
    // What changed, or a link that arrived, before a listener was in place is fetched as soon
    // as it is: an agent may submit while the window is still starting.
    const subs = [
      onChange(onEvent).then((un) => { caughtUp(); refresh(); return un; }),
      onNavigate(take).then((un) => { take(); return un; }),
    ];
    return () => { subs.forEach((s) => void s.then((un) => un())); };
  }, [follow, refresh, onEvent, reload]);

  useEffect(() => {
    void api.setView(page.kind).catch(() => {});
  }, [page.kind]);

  const rename = useCallback(async (id: string, title: string) => {
    try { await api.renameArtifact(id, title); }
    catch (e) { setNotice(e instanceof Error ? e.message : String(e)); }
    refresh();
  }, [refresh]);

  const remove = useCallback(async (id: string, title: string, marks?: Mark[]) => {
    const ok = await confirm(<>Delete “<Verbatim text={title} marks={marks} />”?</>,
      "The artifact is removed from the library, its grants are revoked and its pending requests are cancelled.",
      "Delete");
    if (!ok) return;
    try {
      await api.deleteArtifact(id);
      setPage((p) => (p.kind === "artifact" && p.id === id ? { kind: "inbox" } : p));
    } catch (e) { setNotice(e instanceof Error ? e.message : String(e)); }
    refresh();
  }, [refresh, confirm]);

  const actions: CardActions = useMemo(() => ({
    decide: async (id: string, digest: string, d: Decision) => {
      await api.decide(id, digest, d);
      // The change events that follow refresh what the decision changed.
      sync.apply({ kind: "left", id });
    },
    openArtifact: (id: string) => setPage({ kind: "artifact", id }),
    openApproval: (id: string) => setPage({ kind: "approval", id }),
    artifactTitle: titleOf,
    machineName: machineOf,
    report: (message: string) => { setNotice(message); refresh(); },
  }), [refresh, titleOf, machineOf, sync]);

  const body = (() => {
    switch (page.kind) {
      // Mounted afresh once the first read is in: the list starts whole, in one render.
      case "inbox": return <Inbox key={inbox.loaded ? "read" : "reading"} pending={inbox} need={(ids) => sync.need(ids)} actions={actions}
        declineGroup={async (ids, reason) => {
          // The console declines at most DECLINED_AT_ONCE in one transaction: a larger group
          // goes in parts, each its own transaction, so agents' submissions are never held up.
          return inParts(ids, DECLINED_AT_ONCE, async (part) => {
            const n = await api.declineGroup(part, reason);
            part.forEach((id) => sync.apply({ kind: "left", id }));
            return n;
          });
        }} />;
      case "history": return <History version={versions.approvals} actions={actions}
        query={historyQuery} setQuery={setHistoryQuery} />;
      case "grants": return <Grants version={versions.grants} artifactTitle={titleOf}
        openArtifact={actions.openArtifact} openApproval={(id) => setPage({ kind: "approval", id })}
        openHistory={(q) => { setHistoryQuery(q); setPage({ kind: "history" }); }} />;
      case "settings": return <Settings onMachinesChange={readMachines} onTeamChange={readTeam} />;
      case "team": return team
        ? <TeamConsole connection={team} onCount={setTeamWaiting} />
        : <p className="muted page-pad">No team console is linked: Settings → Team console.</p>;
      case "artifact": return <ArtifactPage key={page.id} id={page.id} version={versions.artifacts + versions.grants} rename={rename} remove={remove} openArtifact={actions.openArtifact} />;
      case "approval": return <ApprovalPage id={page.id} version={versions.approvals + versions.grants} actions={actions} />;
      default: return assertNever(page);
    }
  })();

  return (
    <div className="app">
      <Sidebar current={page.kind === "artifact" || page.kind === "approval" || page.kind === "team" ? null : page.kind}
        team={team ? { name: team.team ?? "Team console", waiting: teamWaiting, current: page.kind === "team" } : null}
        goTeam={() => { setNotice(null); setPage({ kind: "team" }); }}
        currentArtifact={page.kind === "artifact" ? page.id : null}
        pending={inbox.entries.length} artifacts={artifacts} query={query} setQuery={setQuery}
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
