// The team's page's calls to its own listener (`/people/v1/`, decision 0034). The session is an
// HttpOnly cookie the browser sends by itself; this script never sees it. Every decision is
// confirmed with the person's passkey, for that decision only.

import type { ErrorBody } from "../api/types/ErrorBody";
import type { Grant } from "../api/types/Grant";
import type { PersonInfo } from "../api/types/PersonInfo";
import type { Policy } from "../api/types/Policy";
import type { Presented } from "../api/types/Presented";
import type { TeamRule } from "../api/types/TeamRule";
import type { DecisionBody, PhoneInbox } from "../phone/api";

/** A refusal from the listener, with its stable code. */
export class TeamError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

async function send<T>(path: string, body?: unknown): Promise<T> {
  let r: Response;
  try {
    r = await fetch(path, body === undefined
      ? { cache: "no-store" }
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new TeamError(0, "offline", "The team console cannot be reached: check your connection.");
  }
  const text = await r.text();
  let json: unknown = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* said below */ }
  if (!r.ok) {
    const e = (json as { error?: ErrorBody } | null)?.error;
    throw new TeamError(r.status, e?.code ?? "http", e?.message ?? `the console answered ${r.status}`);
  }
  return json as T;
}

export type Me = { team: string; person: PersonInfo; policy: Policy; reads_only: boolean };

/** A machine agents ask from, by its token's id: never the token. */
export type Machine = { id: string; name: string; owner: { id: string; name: string | null } | null; project: string | null; revoked: boolean };

export const team = {
  about: () => send<{ team: string; fingerprint: string }>("/people/v1/about"),
  me: () => send<Me>("/people/v1/me"),
  inbox: () => send<PhoneInbox>("/people/v1/inbox"),
  machines: () => send<{ machines: Machine[] }>("/people/v1/machines"),
  approval: (id: string) => send<Presented>(`/people/v1/approvals/${encodeURIComponent(id)}`),
  signOut: () => send<{ signed_out: boolean }>("/people/v1/sign-out", {}),
  rules: () => send<{ rules: Grant[] }>("/people/v1/rules"),
  revokeRule: (id: string) => send<Grant>(`/people/v1/rules/${encodeURIComponent(id)}/revoke`, {}),
};

/** A decision on the team's page: the phone's words, and "don't ask again" as a rule. */
export type TeamBody = DecisionBody & { rule?: TeamRule };

/** Takes the invitation: makes the person's passkey, which signs them in. */
export async function join(invitation: string): Promise<PersonInfo> {
  const started = await send<{ team: string; person: PersonInfo; options: { publicKey: PublicKeyCredentialCreationOptionsJSON } }>(
    "/people/v1/join/start", { invitation });
  const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(started.options.publicKey) });
  if (!(made instanceof PublicKeyCredential)) throw new Error("No passkey was made: the invitation was not used.");
  const joined = await send<{ person: PersonInfo }>("/people/v1/join/finish", { invitation, credential: made.toJSON() });
  return joined.person;
}

/** Signs in with the passkey of the person of that name. */
export async function signIn(name: string): Promise<PersonInfo> {
  const { publicKey } = await send<{ publicKey: PublicKeyCredentialRequestOptionsJSON }>("/people/v1/sign-in/start", { name });
  const answer = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey) });
  if (!(answer instanceof PublicKeyCredential)) throw new Error("The passkey was not given: you are not signed in.");
  const done = await send<{ person: PersonInfo }>("/people/v1/sign-in/finish", { name, credential: answer.toJSON() });
  return done.person;
}

/** Decides one call, with the passkey's answer to this very decision. */
export async function decide(id: string, body: TeamBody): Promise<Presented["approval"]> {
  const path = `/people/v1/approvals/${encodeURIComponent(id)}`;
  const { publicKey } = await send<{ publicKey: PublicKeyCredentialRequestOptionsJSON }>(`${path}/challenge`, body);
  const answer = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey) });
  if (!(answer instanceof PublicKeyCredential)) throw new Error("The passkey was not given: nothing was decided.");
  return send<Presented["approval"]>(`${path}/decide`, { ...body, assertion: answer.toJSON() });
}

/** A link for Countersign's desktop window, confirmed with the passkey: it reads the team's
 * calls for 30 days and decides none. Shown once. */
export async function linkWindow(): Promise<{ link: string; page: string }> {
  const { publicKey } = await send<{ publicKey: PublicKeyCredentialRequestOptionsJSON }>("/people/v1/window/challenge", {});
  const answer = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey) });
  if (!(answer instanceof PublicKeyCredential)) throw new Error("The passkey was not given: no link was made.");
  return send<{ link: string; page: string }>("/people/v1/window/link", { assertion: answer.toJSON() });
}

/** Signs out every desktop window this person linked; how many. */
export const unlinkWindows = () => send<{ signed_out: number }>("/people/v1/window/unlink", {});
