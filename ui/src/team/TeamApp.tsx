import { useCallback, useEffect, useRef, useState } from "react";

import type { ArtifactTitle, CardActions } from "../components/ApprovalCard";
import type { Decision } from "../api/types/Decision";
import type { Grant } from "../api/types/Grant";
import type { PersonInfo } from "../api/types/PersonInfo";
import type { Presented } from "../api/types/Presented";
import type { Signoff } from "../api/types/Signoff";
import type { TeamRule } from "../api/types/TeamRule";
import { ApprovalCard } from "../components/ApprovalCard";
import { Since } from "../components/Clock";
import { groupOf, WhatItDoes, warning, Who } from "../components/InboxRow";
import { useArming } from "../lib/arming";
import { phoneBody } from "../phone/api";
import { decide, join, linkWindow, type Machine, type Me, signIn, team, TeamError, unlinkWindows } from "./api";
import { noRule, RuleChooser, TeamRules } from "./Rules";

/** How often the waiting calls are read again while the page is shown. */
const REFRESH_MS = 3000;

/**
 * The team's page (decision 0034): a person invited to a team console joins with a passkey,
 * signs in with it, reads the calls the team's agents wait on, and approves or declines each
 * with the passkey, as the team's policy allows. The team's name is always on screen, so a
 * person knows which console they approve on.
 */
export function TeamApp({ invitation, call }: { invitation: string | null; call: string | null }) {
  const [teamName, setTeamName] = useState<string | null>(null);
  const [fingerprint, setFingerprint] = useState<string | null>(null);
  /** A call the page was opened for: shown once the person is signed in. */
  const wanted = useRef(call);
  const [me, setMe] = useState<Me | null>(null);
  const [state, setState] = useState<"loading" | "signed-out" | "ready" | "failed">("loading");
  const [invite, setInvite] = useState(invitation);
  const [list, setList] = useState<Presented[]>([]);
  const [titles, setTitles] = useState<Map<string, ArtifactTitle>>(new Map());
  const [machines, setMachines] = useState<Map<string, Machine>>(new Map());
  const [open, setOpen] = useState<Presented | null>(null);
  const [rules, setRules] = useState<Grant[]>([]);
  /** "Don't ask again" as chosen on the open card: sent with its approval or decline. */
  const rule = useRef<TeamRule | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const openId = useRef<string | null>(null);
  openId.current = open?.approval.id ?? null;
  /** A window's link just made: kept while the page lives, shown once. */
  const [windowLink, setWindowLink] = useState<{ link: string; page: string } | null>(null);

  useEffect(() => { void team.about().then((a) => { setTeamName(a.team); setFingerprint(a.fingerprint); }).catch(() => undefined); }, []);

  const refresh = useCallback(async () => {
    try {
      const [who, page, known, made] = await Promise.all([team.me(), team.inbox(), team.machines(), team.rules()]);
      setMe(who);
      setRules(made.rules);
      setMachines(new Map(known.machines.map((m) => [m.id, m])));
      setTeamName(who.team);
      setList(page.first);
      setTitles(new Map(page.artifacts.map((s) => [s.artifact.id, { title: s.artifact.title, marks: s.marks["title"] }])));
      // The card open is read again: a first approval by someone else shows on it. A call the
      // page was opened for is opened once.
      const id = openId.current ?? wanted.current;
      wanted.current = null;
      if (id !== null) {
        try {
          setOpen(await team.approval(id));
        } catch (e) {
          if (!(e instanceof TeamError) || e.status === 401) throw e;
          setOpen(null);
          setMessage(`That call is not on this console (or no longer waiting): ${e.message}`);
        }
      }
      setState("ready");
    } catch (e) {
      if (e instanceof TeamError && e.status === 401) { setMe(null); setState("signed-out"); }
      else {
        setMessage(e instanceof Error ? e.message : String(e));
        setState((was) => (was === "loading" ? "failed" : was));
      }
    }
  }, []);

  useEffect(() => { if (invite === null) void refresh(); }, [invite, refresh]);
  // The window opens the page for a call while it is open here too: a new fragment, no reload.
  useEffect(() => {
    const onHash = () => {
      const next = new URLSearchParams(location.hash.slice(1));
      if (location.hash) history.replaceState(null, "", location.pathname + location.search);
      const id = next.get("call");
      if (id) { wanted.current = id; openId.current = null; setMessage("Opened from Countersign's window."); void refresh(); }
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [refresh]);
  useEffect(() => {
    if (state !== "ready") return undefined;
    const t = window.setInterval(() => { if (document.visibilityState === "visible") void refresh(); }, REFRESH_MS);
    return () => window.clearInterval(t);
  }, [state, refresh]);

  const keepRule = useCallback((r: TeamRule | null) => { rule.current = r; }, []);

  const actions: CardActions = {
    decide: async (id: string, digest: string, d: Decision) => {
      let done;
      const body = phoneBody(digest, d);
      const ruling = body.decision === "approve" || body.decision === "decline" ? rule.current : null;
      try {
        done = await decide(id, ruling !== null ? { ...body, rule: ruling } : body);
      } catch (e) {
        // The session ended meanwhile: back to signing in, saying why.
        if (e instanceof TeamError && e.status === 401) {
          setMe(null);
          setOpen(null);
          setState("signed-out");
          setMessage(e.message);
          return;
        }
        throw e;
      }
      const ruled = ruling !== null && done.status !== "pending";
      setOpen(null);
      setMessage((done.status === "pending"
        ? "Your approval is kept. The call waits for another person's."
        : done.status === "approved" ? "Approved. The agent goes on." : "Declined. The agent was told.")
        + (ruled ? " Your rule is kept: it decides such calls while the team would take your word on them." : ""));
      await refresh();
    },
    openArtifact: () => setMessage("Artifacts open in Countersign's window."),
    artifactTitle: (id: string) => titles.get(id) ?? null,
    machineName: (id: string) => {
      const m = machines.get(id);
      if (!m) return undefined;
      const owner = m.owner === null ? null : m.owner.id === me?.person.id ? "yours" : m.owner.name ? `${m.owner.name}'s` : null;
      return owner ? `${m.name} (${owner})` : m.name;
    },
    report: setMessage,
  };

  const signedIn = (person: PersonInfo) => {
    setInvite(null);
    setMessage(`Signed in as ${person.name}.`);
    setState("loading");
    void refresh();
  };

  return (
    <div className="phone-app">
      <header className="phone-bar team-bar">
        <span className="team-name" data-testid="team-name">{teamName ?? "Team console"}</span>
        {me && (
          <span className="team-who" data-testid="team-who">
            {me.person.name} · {me.person.role}
            <button onClick={() => void team.signOut()
              .then(() => { setMe(null); setOpen(null); setState("signed-out"); setMessage("Signed out."); })
              .catch((e: unknown) => setMessage(`Not signed out: ${e instanceof Error ? e.message : String(e)}`))}
              data-testid="team-sign-out">Sign out</button>
          </span>
        )}
      </header>
      {message && (
        <div className="notice phone-message" role="status">
          <span data-testid="team-message">{message}</span>
          <button className="phone-dismiss" aria-label="Dismiss" onClick={() => setMessage(null)}>×</button>
        </div>
      )}
      {invite !== null ? (
        <Joining invitation={invite} team={teamName} onJoined={signedIn} onError={setMessage} />
      ) : state === "loading" ? (
        <p className="muted phone-pad">Loading…</p>
      ) : state === "failed" ? (
        <p className="phone-pad"><button onClick={() => { setState("loading"); void refresh(); }}>Try again</button></p>
      ) : state === "signed-out" ? (
        <SigningIn team={teamName} onSignedIn={signedIn} onError={setMessage} />
      ) : open ? (
        <CardView key={open.approval.id} p={open} me={me} machine={open.approval.asked_with ? machines.get(open.approval.asked_with) : undefined}
          actions={actions} onBack={() => setOpen(null)} onRule={keepRule} />
      ) : (
        <>
          {me && <PolicyLine me={me} />}
          <Waiting list={list} onOpen={(p) => { setMessage(null); rule.current = null; setOpen(p); }} />
          {me && <TeamRules rules={rules} me={me} onChanged={() => void refresh()} onMessage={setMessage}
            onOpenCall={(id) => void team.approval(id).then((p) => { rule.current = null; setOpen(p); })
              .catch((e: unknown) => setMessage(e instanceof Error ? e.message : String(e)))} />}
          {me && !me.reads_only && <WindowLink made={windowLink} setMade={setWindowLink} onError={setMessage} />}
        </>
      )}
      {fingerprint && (
        <footer className="muted phone-fingerprint" data-testid="team-fingerprint">
          Certificate SHA-256 <code className="mono">{fingerprint}</code>
        </footer>
      )}
    </div>
  );
}

/** Links Countersign's desktop window: it then shows this team's waiting calls beside the
 * computer's own, and opens this page for each decision. */
function WindowLink({ made, setMade, onError }: {
  made: { link: string; page: string } | null;
  setMade: (m: { link: string; page: string } | null) => void;
  onError: (m: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const make = async () => {
    setBusy(true);
    try { setMade(await linkWindow()); } catch (e) { onError(e instanceof Error ? e.message : String(e)); } finally { setBusy(false); }
  };
  const unlink = async () => {
    setBusy(true);
    try {
      const { signed_out } = await unlinkWindows();
      setMade(null);
      onError(signed_out === 0 ? "No window was linked." : `Signed out ${signed_out} linked window${signed_out === 1 ? "" : "s"}.`);
    } catch (e) { onError(e instanceof Error ? e.message : String(e)); } finally { setBusy(false); }
  };
  return (
    <section className="phone-pad team-window" data-testid="team-window">
      <h2>Countersign's window</h2>
      {made ? (
        <>
          <p>In Countersign's window, open <b>Settings → Team console</b> and paste this link, with this page's address and the certificate fingerprint below. It is shown once; it lets the window read this team's calls for 30 days, and decide none.</p>
          <p><code className="mono team-window-link" data-testid="team-window-link">{made.link}</code></p>
          <p className="muted">Page: <code className="mono">{made.page}</code></p>
        </>
      ) : (
        <p><button disabled={busy} onClick={() => void make()} data-testid="team-window-make">Link Countersign's window…</button>{" "}
          <span className="muted">to see this team's calls beside your computer's own (your passkey confirms it).</span></p>
      )}
      <p><button className="small" disabled={busy} onClick={() => void unlink()} data-testid="team-window-unlink">Sign out linked windows</button>{" "}
        <span className="muted">A link reads this team's calls for 30 days; signing out ends every one you made.</span></p>
    </section>
  );
}

function PolicyLine({ me }: { me: Me }) {
  const { policy, person } = me;
  const two = policy.two_approvals.includes("*") ? "every call" : policy.two_approvals.join(", ");
  return (
    <p className="muted team-policy" data-testid="team-policy">
      {person.role === "viewer" ? "You read the calls; deciding them is for approvers." : "You approve or decline with your passkey."}
      {policy.prevent_self_review && " Calls of your own agents are decided by someone else."}
      {two && ` Two approvals: ${two}.`}
    </p>
  );
}

function Joining({ invitation, team: teamName, onJoined, onError }: {
  invitation: string; team: string | null; onJoined: (p: PersonInfo) => void; onError: (m: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try { onJoined(await join(invitation)); } catch (e) { onError(e instanceof Error ? e.message : String(e)); setBusy(false); }
  };
  return (
    <section className="phone-pad team-form" data-testid="team-joining">
      <h1>Join {teamName ?? "the team"}</h1>
      <p>You were invited to approve or read the calls this team's agents wait on. Make a passkey for this console (your fingerprint, face, screen lock or security key): it signs you in and confirms each decision you make.</p>
      <button className="primary" disabled={busy} onClick={() => void go()} data-testid="team-join">Make my passkey and join</button>
      <p className="muted">An invitation is taken once. If this one was used or is older than 72 hours, ask the console's admin for a new one.</p>
    </section>
  );
}

function SigningIn({ team: teamName, onSignedIn, onError }: {
  team: string | null; onSignedIn: (p: PersonInfo) => void; onError: (m: string) => void;
}) {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    try { onSignedIn(await signIn(name.trim())); } catch (e) { onError(e instanceof Error ? e.message : String(e)); setBusy(false); }
  };
  return (
    <form className="phone-pad team-form" data-testid="team-signing-in" onSubmit={(e) => { e.preventDefault(); void go(); }}>
      <h1>Sign in to {teamName ?? "the team console"}</h1>
      <label htmlFor="team-person">Your name on this team</label>
      <input id="team-person" data-testid="team-person" value={name} maxLength={100} autoComplete="username webauthn" required onChange={(e) => setName(e.target.value)} />
      <button type="submit" className="primary" disabled={busy || name.trim() === ""} data-testid="team-sign-in">Sign in with my passkey</button>
    </form>
  );
}

function Waiting({ list, onOpen }: { list: Presented[]; onOpen: (p: Presented) => void }) {
  return (
    <section className="phone-list" data-testid="team-list">
      <h1 className="phone-pad">Waiting {list.length > 0 && <span className="badge-count" data-testid="team-count">{list.length}</span>}</h1>
      {list.length === 0 && <p className="muted phone-pad" data-testid="team-empty">Nothing is waiting. New requests appear here.</p>}
      <ul className="phone-rows">
        {list.map((p) => {
          const a = p.approval;
          const warn = warning(p);
          const first = a.people?.find((s) => s.vote === "approved");
          return (
            <li key={a.id}>
              <button className="phone-row" onClick={() => onOpen(p)} data-testid="team-row" data-id={a.id}>
                <span className="phone-row-title">
                  {warn && <span className="bad" aria-label={`Warning: ${warn}`} title={warn}>⚠ </span>}
                  <WhatItDoes p={p} />
                </span>
                <span className="muted phone-row-who">
                  <Who group={groupOf(p)} /> · <code className="mono">{a.tool}</code> · <Since at={a.created_at} />
                  {first && <> · approved by {first.name}, waits for a second person</>}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Signoffs({ people }: { people: Signoff[] }) {
  if (people.length === 0) return null;
  return (
    <p className="team-signoffs" data-testid="team-signoffs">
      {people.map((s, i) => (
        <span key={`${s.person}-${i}`}>{i > 0 && " · "}{s.vote === "approved" ? "Approved" : "Declined"} by <strong>{s.name}</strong></span>
      ))}
    </p>
  );
}

/** Why this person cannot decide the call, as the team's policy says: said before they try. */
function kept(me: Me | null, machine: Machine | undefined, p: Presented): string | null {
  if (!me) return null;
  if (me.person.role === "viewer") return "You are a viewer on this team: you read this call; an approver decides it.";
  if (me.policy.prevent_self_review && machine?.owner?.id === me.person.id) {
    return `This call was asked with your agent token (${machine.name}), and the team prevents self-review: another person decides it.`;
  }
  if (p.approval.people?.some((s) => s.person === me.person.id)) {
    return "You approved this call already: it waits for another person's approval.";
  }
  return null;
}

function CardView({ p, me, machine, actions, onBack, onRule }: {
  p: Presented; me: Me | null; machine: Machine | undefined; actions: CardActions; onBack: () => void;
  onRule: (r: TeamRule | null) => void;
}) {
  const [declining, setDeclining] = useState(false);
  const [rule, setRule] = useState<TeamRule | null>(null);
  const choose = (r: TeamRule | null) => { setRule(r); onRule(r); };
  const refusal = noRule(p, machine, me);
  const ruleChoice = refusal === null && machine
    ? <RuleChooser p={p} machine={machine} rule={rule} setRule={choose} />
    : <p className="muted scope" data-testid="team-no-rule">{refusal}</p>;
  // Leaving the card leaves its rule behind.
  useEffect(() => () => onRule(null), [onRule]);
  const { armed } = useArming(`${p.approval.id}:${p.approval.digest}`);
  const pending = p.approval.status === "pending";
  const why = pending ? kept(me, machine, p) : null;
  const two = me && (me.policy.two_approvals.includes("*") || (machine?.project != null && me.policy.two_approvals.includes(machine.project)));
  return (
    <div className="phone-card">
      <p className="phone-pad"><button className="phone-back" onClick={onBack} data-testid="team-back">‹ Waiting</button></p>
      <Signoffs people={p.approval.people ?? []} />
      {pending && two && <p className="muted team-signoffs" data-testid="team-two">This call needs two people's approvals{machine?.project ? ` (project ${machine.project})` : ""}.</p>}
      {why && <p className="notice team-viewer" data-testid="team-kept">{why}</p>}
      {!pending && <p className="notice team-viewer" data-testid="team-decided">This call is {p.approval.status}.</p>}
      {why ? (
        <div className="team-readonly" inert>
          <ApprovalCard p={p} selected actions={actions} armed={false} declining={false} onPhone
            rules={pending ? <p className="muted scope" data-testid="team-no-rule">{refusal ?? "No rule here: this call is not yours to decide."}</p> : undefined} />
        </div>
      ) : (
        <ApprovalCard p={p} selected actions={actions} armed={armed && pending} declining={declining} setDeclining={setDeclining} onPhone
          rules={pending ? ruleChoice : undefined} />
      )}
      <p className="muted phone-pad digest">Digest <code className="mono" data-testid="team-digest">{p.approval.digest}</code></p>
    </div>
  );
}
