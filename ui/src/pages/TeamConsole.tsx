import { useCallback, useEffect, useState } from "react";

import { api } from "../api/ipc";
import type { Presented } from "../api/types/Presented";
import type { TeamConnection } from "../api/types/TeamConnection";
import { ApprovalCard, type CardActions } from "../components/ApprovalCard";
import { Since } from "../components/Clock";
import { groupOf, WhatItDoes, warning, Who } from "../components/InboxRow";
import type { Machine } from "../team/api";

/** How often the team's waiting calls are read again while the page is shown. */
const REFRESH_MS = 4000;

const said = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * A team console's waiting calls, beside this computer's own (decision 0034), always under the
 * team's name. The window reads them through the link a person gave it; each is decided on the
 * team's page in the person's browser, with their passkey.
 */
export function TeamConsole({ connection, onCount }: { connection: TeamConnection; onCount: (n: number) => void }) {
  const [list, setList] = useState<Presented[] | null>(null);
  const [machines, setMachines] = useState<Map<string, Machine>>(new Map());
  const [open, setOpen] = useState<Presented | null>(null);
  const [error, setError] = useState<string | null>(connection.error);
  const [opened, setOpened] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      const got = await api.teamInbox();
      setList(got.inbox.first);
      setMachines(new Map(got.machines.map((m) => [m.id, m])));
      onCount(got.inbox.ids.length);
      setError(null);
    } catch (e) {
      setError(said(e));
      onCount(0);
    }
  }, [onCount]);
  useEffect(() => {
    void refresh();
    const t = window.setInterval(() => { if (document.visibilityState === "visible") void refresh(); }, REFRESH_MS);
    return () => window.clearInterval(t);
  }, [refresh]);

  const actions: CardActions = {
    decide: async () => { throw new Error("Decide on the team's page, with your passkey."); },
    openArtifact: () => undefined,
    artifactTitle: () => null,
    machineName: (id: string) => machines.get(id)?.name,
    report: setError,
  };
  const decideThere = async (id: string) => {
    try { setOpened(await api.teamOpen(id)); } catch (e) { setError(said(e)); }
  };
  const team = connection.team ?? "Team console";
  const still = open && list?.some((p) => p.approval.id === open.approval.id);

  return (
    <section className="team-console" data-testid="team-console">
      <header className="team-console-bar">
        <h1 data-testid="team-console-name">{team}</h1>
        <span className="muted">team console{connection.person ? ` · signed in as ${connection.person}` : ""}</span>
      </header>
      <p className="notice">These calls wait on the team console, not on this computer. The window reads them; each is decided on the team's page, in your browser, with your passkey.</p>
      {error && <p className="error" role="alert" data-testid="team-console-error">{error}</p>}
      {open ? (
        <div className="team-console-card">
          <p><button onClick={() => { setOpen(null); setOpened(null); }} data-testid="team-console-back">‹ The team's calls</button></p>
          {!still && <p className="warning" role="alert">This call is no longer waiting on the team console.</p>}
          <div inert>
            <ApprovalCard p={open} selected actions={actions} armed={false} declining={false} onPhone />
          </div>
          <p className="row">
            <button className="primary" onClick={() => void decideThere(open.approval.id)} data-testid="team-console-decide">Decide on the team's page…</button>
            {opened && <span className="muted">Asked your browser to open <code className="mono" data-testid="team-console-opened">{opened}</code></span>}
          </p>
        </div>
      ) : list === null ? (
        <p className="muted">Reading the team's calls…</p>
      ) : list.length === 0 ? (
        <p className="muted" data-testid="team-console-empty">Nothing waits on the team console.</p>
      ) : (
        <ul className="team-console-rows">
          {list.map((p) => {
            const a = p.approval;
            const warn = warning(p);
            const first = a.people?.find((s) => s.vote === "approved");
            return (
              <li key={a.id}>
                <button className="team-console-row" onClick={() => { setOpened(null); setOpen(p); }} data-testid="team-console-row" data-id={a.id}>
                  <span className="title">{warn && <span className="bad" title={warn}>⚠ </span>}<WhatItDoes p={p} /></span>
                  <span className="muted">
                    <Who group={groupOf(p)} machine={a.asked_with ? machines.get(a.asked_with)?.name : undefined} /> · <code className="mono">{a.tool}</code> · <Since at={a.created_at} />
                    {first && <> · approved by {first.name}, waits for a second person</>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
