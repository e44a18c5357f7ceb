// The one place that talks to the Rust side. Every other module imports from here.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type { AgentStatus } from "./types/AgentStatus";
import type { AgentTokenInfo } from "./types/AgentTokenInfo";
import type { MachineSettings } from "./types/MachineSettings";
import type { TeamConnection } from "./types/TeamConnection";
import type { PhoneInbox } from "../phone/api";
import type { Machine } from "../team/api";
import type { MadeToken } from "./types/MadeToken";
import type { Artifact } from "./types/Artifact";
import type { ArtifactVersion } from "./types/ArtifactVersion";
import type { ChangeEvent } from "./types/ChangeEvent";
import type { Decision } from "./types/Decision";
import type { Status } from "./types/Status";
import type { PresentedReport } from "./types/PresentedReport";
import type { CallToCheck } from "./types/CallToCheck";
import type { Effect } from "./types/Effect";
import type { ErrorBody } from "./types/ErrorBody";
import type { Format } from "./types/Format";
import type { Grant } from "./types/Grant";
import type { ExportTarget } from "./types/ExportTarget";
import type { RuleExport } from "./types/RuleExport";
import type { RuleImport } from "./types/RuleImport";
import type { Taking } from "./types/Taking";
import type { GrantPreview } from "./types/GrantPreview";
import type { GrantLists } from "./types/GrantLists";
import type { HistoryCursor } from "./types/HistoryCursor";
import type { HistoryFacets } from "./types/HistoryFacets";
import type { HistoryOrder } from "./types/HistoryOrder";
import type { HistoryCount } from "./types/HistoryCount";
import type { HistoryPage } from "./types/HistoryPage";
import type { HistoryQuery } from "./types/HistoryQuery";
import type { Exported } from "./types/Exported";
import type { ExportFormat } from "./types/ExportFormat";
import type { ExportProgress } from "./types/ExportProgress";
import type { InboxPage } from "./types/InboxPage";
import type { LinkTarget } from "./types/LinkTarget";
import type { Presented } from "./types/Presented";
import type { Scope } from "./types/Scope";
import type { Verdict } from "./types/Verdict";
import type { PairingCode } from "./types/PairingCode";
import type { PhoneSettings } from "./types/PhoneSettings";
import type { Settings } from "./types/Settings";
import type { ShownArtifact } from "./types/ShownArtifact";
import type { ShownDiff } from "./types/ShownDiff";
import type { ShownSummary } from "./types/ShownSummary";
import { CHANGE_EVENT, NAVIGATE_EVENT } from "./types/names";

/** Every failure from the Rust side, with its stable code. */
export class CommandError extends Error {
  readonly code: ErrorBody["code"] | "ipc";
  constructor(body: ErrorBody | { code: "ipc"; message: string }) {
    super(body.message);
    this.code = body.code;
  }
}

function isErrorBody(e: unknown): e is ErrorBody {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

function asCommandError(e: unknown): CommandError {
  return new CommandError(isErrorBody(e) ? e : { code: "ipc", message: String(e) });
}

/** The window's console starts while the page loads: every command waits for it once. A
 * console that could not start fails every command with its `console_not_started` reason. */
let started: Promise<void> | null = null;
export function consoleStarted(): Promise<void> {
  started ??= invoke<void>("console_ready").catch((e: unknown) => {
    const error = asCommandError(e);
    // A failed IPC round trip is asked again; a console that could not start stays failed.
    if (error.code !== "console_not_started") started = null;
    throw error;
  });
  return started;
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  await consoleStarted();
  try {
    return await invoke<T>(command, args);
  } catch (e) {
    throw asCommandError(e);
  }
}

export const api = {
  /** The ids of every pending approval, newest first, and the first `first` cards. */
  inboxPage: (first: number) => call<InboxPage>("inbox_page", { first }),
  /** How many changes the console has published (compared with an `InboxPage`'s). */
  changes: () => call<number>("changes"),
  /** The cards of these approvals (at most 200), in the order asked; those that exist. */
  approvals: (ids: string[]) => call<Presented[]>("approvals", { ids }),
  approval: (id: string) => call<Presented>("approval", { id }),
  /** A decision on the card shown: the approval's id and the digest of what the card showed. */
  decide: (id: string, digest: string, decision: Decision) => call<Status>("decide", { id, digest, decision }),
  /** Exports the calls `query` matches to a file the person picks in the OS's save dialog;
   * `null` when they cancelled the dialog. Progress comes through `onExportProgress`. */
  exportHistory: (query: HistoryQuery, format: ExportFormat) => call<Exported | null>("export_history", { query, format }),
  /** Cancels the running export; the file it began is not kept. */
  cancelExport: () => call<void>("cancel_export"),
  /** Declines exactly these pending calls with one reason (a group, after the person
   * confirmed the count); answers how many were still pending. Never approves. */
  declineGroup: (ids: string[], reason: string | undefined) => call<number>("decline_group", { ids, reason: reason ?? null }),
  /** What a "don't ask again" with `scope` would have covered among earlier calls. */
  previewGrant: (id: string, effect: Effect, scope: Scope) => call<GrantPreview>("preview_grant", { id, effect, scope }),
  /** Which of the person's rules decides a call, and why; nothing is asked or stored. */
  checkCall: (c: CallToCheck) => call<Verdict>("check_call", { call: c }),
  /** A page of decisions in `order`, past `after` (the last of the page before): every one,
   * or those `query` finds; with how many match in all on the first page. */
  history: (order: HistoryOrder, after: HistoryCursor | null, query: HistoryQuery) =>
    call<HistoryPage>("history", { order, after, query }),
  /** The agents and projects History's filters offer. */
  historyFacets: () => call<HistoryFacets>("history_facets"),
  /** How many decisions `query` matches; asked for once its first page is shown. */
  historyCount: (query: HistoryQuery) => call<HistoryCount>("history_count", { query }),
  artifacts: (query: string | null) => call<ShownSummary[]>("artifacts", { query }),
  artifact: (id: string) => call<ShownArtifact>("artifact", { id }),
  /** The titles of these artifacts (at most 500), however many the library holds. */
  artifactTitles: (ids: string[]) => call<ShownSummary[]>("artifact_titles", { ids }),
  renameArtifact: (id: string, title: string) => call<Artifact>("rename_artifact", { id, title }),
  deleteArtifact: (id: string) => call<void>("delete_artifact", { id }),
  artifactVersions: (id: string) => call<ArtifactVersion[]>("artifact_versions", { id }),
  versionDiff: (id: string, from: number, to: number) => call<ShownDiff>("version_diff", { id, from, to }),
  /** Makes an old version current again, as a new version. */
  restoreVersion: (id: string, version: number) => call<Artifact>("restore_version", { id, version }),
  grants: () => call<GrantLists>("grants"),
  artifactGrants: (id: string) => call<Grant[]>("artifact_grants", { id }),
  revokeGrant: (id: string) => call<Grant>("revoke_grant", { id }),
  /** The proposals to bring in an agent's rules that wait for the person. */
  ruleImports: () => call<RuleImport[]>("rule_imports"),
  /** Reads an agent's rules file into a proposal; nothing is made yet. */
  proposeImport: (path: string, format: Format, project: string | null) =>
    call<RuleImport>("propose_import", { path, format, project }),
  /** The person's declines in an agent's format, with what was left out and why. */
  exportRules: (target: ExportTarget, project: string | null) =>
    call<RuleExport>("export_rules", { target, project }),
  /** Writes that export to a new file (never over one), if it is still the text `shown`; the
   * path written. */
  saveRulesExport: (target: ExportTarget, project: string | null, path: string, shown: string) =>
    call<string>("save_rules_export", { target, project, path, shown }),
  /** Takes a proposal (`taking`: how) or declines it (`null`). */
  decideImport: (id: string, taking: Taking | null) => call<RuleImport>("decide_import", { id, taking }),
  /** A watching rule starts acting, or an acting one goes back to watching. */
  setGrantWatch: (id: string, watch: boolean) => call<void>("set_grant_watch", { id, watch }),
  revokeArtifactGrants: (id: string) => call<number>("revoke_artifact_grants", { id }),
  /** The later reports of a call's result, kept beside the first. */
  resultReports: (id: string) => call<PresentedReport[]>("result_reports", { id }),
  /** Carries the grants made for version `from` over to `to`, the current version, after the
   * person has seen the change between them. */
  carryArtifactGrants: (id: string, from: number | null, to: number) =>
    call<number>("carry_artifact_grants", { id, from, to }),
  settings: () => call<Settings>("settings"),
  agents: () => call<AgentStatus[]>("agents"),
  installAgentHook: (agent: string) => call<AgentStatus[]>("install_agent_hook", { agent }),
  removeAgentHook: (agent: string) => call<AgentStatus[]>("remove_agent_hook", { agent }),
  /** Settings → Agents on other machines: the listener, the addresses it can use, every
   * agent token (never a token's text). */
  machineSettings: () => call<MachineSettings>("machine_settings"),
  /** The agent tokens alone, for naming the machine a call came from. */
  agentTokens: () => call<MachineSettings>("machine_settings").then((s): AgentTokenInfo[] => s.tokens),
  /** Listens for agents on other machines at `address` (one of those offered). */
  machinesStart: (address: string) => call<MachineSettings>("machines_start", { address }),
  /** The team console the window reads beside its own, asked now; null when none is linked. */
  teamConnection: () => call<TeamConnection | null>("team_connection"),
  teamConnect: (page: string, fingerprint: string, link: string) =>
    call<TeamConnection>("team_connect", { page, fingerprint, link }),
  /** Forgets the team console; says so when its link could not be signed out there. */
  teamDisconnect: () => call<string | null>("team_disconnect"),
  /** The team's waiting calls, with the machines they were asked from. */
  teamInbox: () => call<{ inbox: PhoneInbox; machines: Machine[] }>("team_inbox"),
  /** Opens the team's page at the call in the person's browser; the address opened. */
  teamOpen: (id: string) => call<string>("team_open", { id }),
  machinesStop: () => call<MachineSettings>("machines_stop"),
  /** A token for the machine `name`: its text is in this answer only. */
  createAgentToken: (name: string) => call<MadeToken>("create_agent_token", { name }),
  revokeAgentToken: (id: string) => call<MachineSettings>("revoke_agent_token", { id }),
  revealToken: () => call<string>("reveal_token"),
  rotateToken: () => call<string>("rotate_token"),
  setNotifications: (enabled: boolean) => call<Settings>("set_notifications", { enabled }),
  setView: (page: string) => call<void>("set_view", { page }),
  /** Settings → Phone: the listener, the addresses it can use, the paired phones. */
  phoneSettings: () => call<PhoneSettings>("phone_settings"),
  /** Turns the phone page on at `address` (one of those offered). */
  phoneStart: (address: string) => call<PhoneSettings>("phone_start", { address }),
  /** Turns it off: every phone's connection ends. */
  phoneStop: () => call<PhoneSettings>("phone_stop"),
  /** A new pairing code and its QR code, voiding the one before. */
  phoneCode: () => call<PairingCode>("phone_code"),
  phoneHideCode: () => call<void>("phone_hide_code"),
  renamePhone: (id: string, name: string) => call<PhoneSettings>("rename_phone", { id, name }),
  keepPhone: (id: string) => call<PhoneSettings>("keep_phone", { id }),
  revokePhone: (id: string) => call<PhoneSettings>("revoke_phone", { id }),
  takeLink: () => call<LinkTarget | null>("take_link"),
};

export function onChange(handler: (e: ChangeEvent) => void): Promise<UnlistenFn> {
  // Changes come in batches, in order: one message per burst rather than one per change. One
  // the page cannot handle does not cost it the rest: it is handled as changes missed.
  return listen<ChangeEvent[]>(CHANGE_EVENT, (e) => {
    for (const change of e.payload) {
      try { handler(change); } catch { handler({ kind: "resync" }); }
    }
  });
}

/** A link or a notification asks for a page: fetch it with `api.takeLink()`. */
/** The event a History export's progress comes as (`export::PROGRESS_EVENT` in the shell). */
const EXPORT_EVENT = "countersign://history-export";

/** Hears how far the running History export has come. */
export function onExportProgress(handler: (p: ExportProgress) => void): Promise<UnlistenFn> {
  return listen<ExportProgress>(EXPORT_EVENT, (e) => handler(e.payload));
}

export function onNavigate(handler: () => void): Promise<UnlistenFn> {
  return listen(NAVIGATE_EVENT, () => handler());
}
