// The phone page's calls to its own listener (`/phone/v1/`, decisions 0023 and 0025). The
// credential is an HttpOnly cookie the browser sends by itself; this script never sees it. The
// secret the pairing gave is kept in this page's own storage (its origin: scheme, host and
// port) and sent with every request: a cookie also reaches other ports of the host, the secret
// does not, so the cookie alone decides nothing.

import type { Answer } from "../api/types/Answer";
import type { Decision } from "../api/types/Decision";
import type { ErrorBody } from "../api/types/ErrorBody";
import type { InboxPage } from "../api/types/InboxPage";
import type { Presented } from "../api/types/Presented";
import type { ShownSummary } from "../api/types/ShownSummary";
import { assertNever } from "../lib/assert";

/** Where the page keeps the secret its pairing gave. */
const SECRET_KEY = "countersign-phone-secret";
/** The header the secret travels in. */
const SECRET_HEADER = "x-countersign-secret";

function secret(): string {
  try { return localStorage.getItem(SECRET_KEY) ?? ""; } catch { return ""; }
}

/** The live stream's address: it carries the secret in its query, since a browser's
 * EventSource sends no header of the page's. */
export function eventsUrl(): string {
  return `/phone/v1/events?s=${encodeURIComponent(secret())}`;
}

/** The waiting calls, with the titles of the artifacts their cards name. */
export type PhoneInbox = InboxPage & { artifacts: ShownSummary[] };

/** A decision as the phone sends it: the card's digest, and approve, decline with its reason,
 * a question's answers or a plan approved in a mode. Rules and edits are made at the desk. */
export type DecisionBody = { digest: string } & (
  | { decision: "approve" }
  | { decision: "decline"; reason?: string }
  | { decision: "answer"; answers: Answer[] }
  | { decision: "approve_plan"; mode?: string }
);

/** A refusal from the listener, with its stable code. */
export class PhoneError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

async function send<T>(path: string, body?: unknown): Promise<T> {
  let r: Response;
  try {
    const headers: Record<string, string> = { [SECRET_HEADER]: secret() };
    r = await fetch(path, body === undefined
      ? { cache: "no-store", headers }
      : { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new PhoneError(0, "offline", "Countersign cannot be reached: is the computer awake and on this network?");
  }
  const text = await r.text();
  let json: unknown = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* said below */ }
  if (!r.ok) {
    const e = (json as { error?: ErrorBody } | null)?.error;
    throw new PhoneError(r.status, e?.code ?? "http", e?.message ?? `the console answered ${r.status}`);
  }
  return json as T;
}

export const phone = {
  about: () => send<{ fingerprint: string; push_key: string; passkeys: boolean; trusted: boolean }>("/phone/v1/about"),
  /** This phone: its name, whether the person kept it at the desk, whether it holds a passkey,
   * whether the page asks for one. */
  me: () => send<{ name: string; kept: boolean; check: string | null; passkey: boolean; passkeys: boolean }>("/phone/v1/me"),
  passkeyStart: () => send<{ publicKey: PublicKeyCredentialCreationOptionsJSON }>("/phone/v1/passkey/start", {}),
  passkeyFinish: (credential: unknown) => send<{ passkey: boolean }>("/phone/v1/passkey/finish", { credential }),
  challenge: (id: string, body: DecisionBody) =>
    send<{ publicKey: PublicKeyCredentialRequestOptionsJSON }>(`/phone/v1/approvals/${encodeURIComponent(id)}/challenge`, body),
  /** Sends pushes ("N calls waiting") to this browser's subscription. */
  pushOn: (subscription: PushSubscriptionJSON) => send<{ push: boolean }>("/phone/v1/push", subscription),
  pushOff: () => send<{ push: boolean }>("/phone/v1/push/off", {}),
  /** Pairs with the code; the secret it gives is kept for this page's origin. */
  pair: async (code: string, name: string) => {
    const paired = await send<{ id: string; name: string; secret: string; kept: boolean; check: string }>("/phone/v1/pair", { code, name });
    try { localStorage.setItem(SECRET_KEY, paired.secret); } catch {
      throw new PhoneError(0, "storage", "This browser does not let the page keep what pairing gave it (private browsing?): pair in a normal tab.");
    }
    return paired;
  },
  inbox: () => send<PhoneInbox>("/phone/v1/inbox"),
  decide: (id: string, body: DecisionBody, assertion?: unknown) =>
    send<Presented["approval"]>(`/phone/v1/approvals/${encodeURIComponent(id)}/decide`,
      assertion === undefined ? body : { ...body, assertion }),
};

/** A name for this device to suggest when pairing; the person can change it. */
export function deviceName(userAgent: string): string {
  if (/iPhone/.test(userAgent)) return "iPhone";
  if (/iPad/.test(userAgent)) return "iPad";
  if (/Android/.test(userAgent)) return /Mobile/.test(userAgent) ? "Android phone" : "Android tablet";
  return "Phone";
}

/** A base64url text (the console's push key) as bytes, for `applicationServerKey`. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** Makes this phone's passkey (right after pairing, where the page asks for passkeys). */
export async function registerPasskey(): Promise<void> {
  const { publicKey } = await phone.passkeyStart();
  const made = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(publicKey) });
  if (!(made instanceof PublicKeyCredential)) throw new Error("No passkey was made.");
  await phone.passkeyFinish(made.toJSON());
}

/** Decides one call: with the passkey's answer to this very decision where the page asks. */
export async function decideWith(passkeys: boolean, id: string, body: DecisionBody): Promise<Presented["approval"]> {
  if (!passkeys) return phone.decide(id, body);
  const { publicKey } = await phone.challenge(id, body);
  const answer = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(publicKey) });
  if (!(answer instanceof PublicKeyCredential)) throw new Error("The passkey was not given: nothing was decided.");
  return phone.decide(id, body, answer.toJSON());
}

/** The decision as the phone's listener takes it: what the desk also decides, never a rule. */
export function phoneBody(digest: string, d: Decision): DecisionBody {
  switch (d.decision) {
    case "approve": return { digest, decision: "approve" };
    case "decline": return d.reason === undefined ? { digest, decision: "decline" } : { digest, decision: "decline", reason: d.reason };
    case "answer": return { digest, decision: "answer", answers: d.answers };
    case "approve_plan": return d.mode === undefined ? { digest, decision: "approve_plan" } : { digest, decision: "approve_plan", mode: d.mode };
    case "approve_always":
    case "decline_always":
      throw new Error("“Don't ask again” is chosen at the desk, in Countersign's window.");
    case "approve_edited":
      throw new Error("A call is edited at the desk, in Countersign's window.");
    case "approve_with_note":
      throw new Error("A note is written at the desk, in Countersign's window.");
    default:
      return assertNever(d);
  }
}
