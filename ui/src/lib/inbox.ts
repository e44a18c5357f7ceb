import type { InboxGroup } from "../api/types/InboxGroup";
import type { InboxPage } from "../api/types/InboxPage";
import type { Presented } from "../api/types/Presented";

/** A pending approval's place: its id, when it was asked, and who asks from where (one
 * group object shared by all the calls of that agent and project). */
export interface Entry { id: string; created_at: number; group: InboxGroup }

const keys = new WeakMap<InboxGroup, string>();

/** The key a group is known by: its agent and project. The calls of one group share one
 * group object, so the key is made once per group, not once per call. */
export function groupKey(g: InboxGroup): string {
  let key = keys.get(g);
  if (key === undefined) {
    key = JSON.stringify([g.agent, g.project]);
    keys.set(g, key);
  }
  return key;
}

/** One chip above the inbox's list: a group's calls, how many, and the oldest one's time. */
export interface Waiting { key: string; group: InboxGroup; ids: string[]; oldest: number }

/** The groups waiting, the one waiting longest first (ties by key, so the order holds still). */
export function waitingGroups(entries: readonly Entry[]): Waiting[] {
  const by = new Map<string, Waiting>();
  for (const e of entries) {
    const key = groupKey(e.group);
    const w = by.get(key);
    if (w) {
      w.ids.push(e.id);
      w.oldest = Math.min(w.oldest, e.created_at);
    } else by.set(key, { key, group: e.group, ids: [e.id], oldest: e.created_at });
  }
  return [...by.values()].sort((a, b) => a.oldest - b.oldest || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Runs `each` on `ids` in parts of at most `size`, one after another, and adds up what they
 * answer; a part that fails stops the rest (what was done stays done). */
export async function inParts(ids: readonly string[], size: number, each: (part: string[]) => Promise<number>): Promise<number> {
  let n = 0;
  for (let at = 0; at < ids.length; at += size) n += await each(ids.slice(at, at + size));
  return n;
}

/** The pending approvals the window knows: every one's id in order (newest first), and the
 * cards read so far. A card is read when the list shows it, not before. */
export interface Pending {
  entries: Entry[];
  cards: ReadonlyMap<string, Presented>;
  /** Whether the list has been read at all (an inbox not read yet is not an empty one). */
  loaded: boolean;
}

export const EMPTY: Pending = { entries: [], cards: new Map(), loaded: false };

/** A change to the list of pending approvals, as events report it. */
export type InboxOp =
  /** A new pending approval: its place. Its card is read when the list shows it. */
  | { kind: "arrived"; entry: Entry }
  | { kind: "left"; id: string };

/** Applies `op` to the pending list without reading the rest again. */
export function applyOp(state: Pending, op: InboxOp): Pending {
  switch (op.kind) {
    case "arrived": {
      const a = op.entry;
      // Newest first, as the console lists them: created_at, then id, both descending. A new
      // arrival is usually the newest, so its place is found at the top.
      const found = state.entries.findIndex((e) => e.created_at < a.created_at || (e.created_at === a.created_at && e.id <= a.id));
      const at = found < 0 ? state.entries.length : found;
      if (state.entries[at]?.id === a.id) return state;
      const entries = state.entries.slice();
      entries.splice(at, 0, a);
      return { ...state, entries };
    }
    case "left": {
      const at = state.entries.findIndex((e) => e.id === op.id);
      if (at < 0) return state;
      const cards = new Map(state.cards);
      cards.delete(op.id);
      return { ...state, entries: [...state.entries.slice(0, at), ...state.entries.slice(at + 1)], cards };
    }
  }
}

/**
 * Runs `run` with `frame` (before the next frame), or, when it last ran less than `every` ms
 * ago, `every` ms after it last ran. A lone arrival is drawn on the next frame; a burst of a
 * thousand a second is drawn ten times a second, not sixty, so the person's keys find the
 * window free. (Measured: with 10,000 pending, drawing the list again took 6–21 ms a time on
 * 2 cores; sixty of those a second left key presses waiting up to 235 ms.)
 */
export function atMostEvery(every: number, frame: (run: () => void) => void) {
  let last = -Infinity;
  return (run: () => void) => {
    const go = () => frame(() => { last = performance.now(); run(); });
    const wait = last + every - performance.now();
    if (wait <= 0) go();
    else setTimeout(go, wait);
  };
}

/** How many cards are read at a time as the list shows them. */
const CARDS_AT_A_TIME = 50;

/**
 * The pending list kept current by events. The ids (and the first cards) are read at start and
 * when events were missed; changes that arrive while that read is in flight are applied on top
 * of what it returns, so nothing that arrived or left in between is lost. Other cards are read
 * when the list shows them (`need`).
 */
export class InboxSync {
  private state: Pending = EMPTY;
  private inFlight: InboxOp[] | null = null;
  /** Bumped by each full read: answers begun before the latest one are dropped. */
  private gen = 0;
  private again = false;
  /** Approvals that left: an arrival fetched before it left never brings it back. */
  private departed = new Set<string>();
  private reading = false;
  /** The cards the list shows and has not read yet; what it no longer shows is not read. */
  private wanted = new Set<string>();
  private inRead = new Set<string>();
  private publishing = false;
  /**
   * `later` runs what it is given soon, once for many changes: a burst of events then costs
   * the window one render, not one per event (the window gives it the next frame).
   */
  constructor(
    private readonly publish: (state: Pending) => void,
    private readonly readCards: (ids: string[]) => Promise<Presented[]>,
    private readonly later: (run: () => void) => void = (run) => run(),
  ) {}

  /** Reads the ids and first cards with `fetch`; while one read is in flight, asking again
   * runs one more after it rather than several at once. */
  async reload(fetch: () => Promise<InboxPage>): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    const ops: InboxOp[] = [];
    this.inFlight = ops;
    this.gen += 1;
    // What left before this read began is in the read; arrivals fetched before it are dropped.
    this.departed = new Set();
    try {
      const page = await fetch();
      // Cards already read stay (a card's content never changes while it is pending).
      const live = new Set(page.ids);
      const cards = new Map([...this.state.cards].filter(([id]) => live.has(id)));
      for (const p of page.first) if (p.approval.status === "pending") cards.set(p.approval.id, p);
      const unknown: InboxGroup = { agent: "", project: null, agent_marks: [], project_marks: [], agent_more: 0, project_more: 0 };
      const entries = page.ids.map((id, i) => ({
        id, created_at: page.created_at[i] ?? 0, group: page.groups[page.group[i] ?? -1] ?? unknown,
      }));
      let state: Pending = { entries, cards, loaded: true };
      for (const op of ops) state = applyOp(state, op);
      this.state = state;
      this.publish(state);
    } finally {
      this.inFlight = null;
      if (this.again) {
        this.again = false;
        void this.reload(fetch).catch(() => {});
      }
    }
  }

  /** Applies one change now (and again on top of a read in flight); the list is shown with it
   * once `later` runs. An approval that left never comes back. */
  apply(op: InboxOp): void {
    if (op.kind === "left") this.departed.add(op.id);
    else if (this.departed.has(op.entry.id)) return;
    this.inFlight?.push(op);
    this.state = applyOp(this.state, op);
    if (this.publishing) return;
    this.publishing = true;
    this.later(() => {
      this.publishing = false;
      this.publish(this.state);
    });
  }

  /** Reads the cards of `ids` (what the list shows now) that are not read yet, a few at a
   * time; ids it showed before and no longer does are not read. */
  need(ids: string[]): void {
    this.wanted = new Set(ids.filter((id) => !this.state.cards.has(id) && !this.inRead.has(id)));
    void this.readWanted();
  }

  private async readWanted(): Promise<void> {
    if (this.reading || this.wanted.size === 0) return;
    this.reading = true;
    const gen = this.gen;
    const ids = [...this.wanted].slice(0, CARDS_AT_A_TIME);
    ids.forEach((id) => { this.wanted.delete(id); this.inRead.add(id); });
    let retry = false;
    try {
      const read = await this.readCards(ids);
      if (gen !== this.gen) {
        // Read before the list was read again: asked again, against the new list.
        retry = true;
      } else {
        const pending = new Set(this.state.entries.map((e) => e.id));
        const cards = new Map(this.state.cards);
        const stillPending = new Set<string>();
        for (const p of read) {
          if (p.approval.status === "pending" && pending.has(p.approval.id) && !this.departed.has(p.approval.id)) {
            cards.set(p.approval.id, p);
            stillPending.add(p.approval.id);
          }
        }
        this.state = { ...this.state, cards };
        // Read and not pending (decided, expired, withdrawn), or gone: it leaves the list, even
        // if the event that said so came before its arrival or was missed.
        for (const id of ids) if (!stillPending.has(id) && pending.has(id)) this.apply({ kind: "left", id });
        this.publish(this.state);
      }
    } catch {
      retry = true;
    } finally {
      ids.forEach((id) => this.inRead.delete(id));
      if (retry) {
        // Still pending and still not read: asked again (after a moment, if the read failed).
        const live = new Set(this.state.entries.map((e) => e.id));
        for (const id of ids) if (live.has(id) && !this.state.cards.has(id)) this.wanted.add(id);
      }
      this.reading = false;
      if (retry && gen === this.gen) setTimeout(() => void this.readWanted(), 1000);
      else void this.readWanted();
    }
  }
}
