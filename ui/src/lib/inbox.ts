import type { Presented } from "../api/types/Presented";

/** A change to the list of pending approvals, as events report it. */
export type InboxOp =
  | { kind: "arrived"; p: Presented }
  | { kind: "left"; id: string };

/** Applies `op` to the pending list (newest first) without fetching the rest again. */
export function applyOp(list: Presented[], op: InboxOp): Presented[] {
  switch (op.kind) {
    case "arrived": {
      const a = op.p.approval;
      if (a.status !== "pending") return applyOp(list, { kind: "left", id: a.id });
      const rest = list.filter((p) => p.approval.id !== a.id);
      // Newest first, as the console lists them: created_at, then id, both descending.
      const at = rest.findIndex((p) => p.approval.created_at < a.created_at
        || (p.approval.created_at === a.created_at && p.approval.id < a.id));
      const next = rest.slice();
      next.splice(at < 0 ? next.length : at, 0, op.p);
      return next;
    }
    case "left": {
      const at = list.findIndex((p) => p.approval.id === op.id);
      if (at < 0) return list;
      return [...list.slice(0, at), ...list.slice(at + 1)];
    }
  }
}

/**
 * The pending list kept current by events. A full fetch happens at start and when events were
 * missed; changes that arrive while it is in flight are applied on top of what it returns, so
 * nothing that arrived or left in between is lost.
 */
export class InboxSync {
  private list: Presented[] = [];
  private inFlight: InboxOp[] | null = null;
  /** Bumped by each full read: answers begun before the latest one are dropped. */
  private gen = 0;
  private again = false;
  /** Approvals that left: an arrival fetched before it left never brings it back. */
  private departed = new Set<string>();
  constructor(private readonly publish: (list: Presented[]) => void) {}

  /** The current generation, to hand back with an arrival fetched now. */
  generation(): number {
    return this.gen;
  }

  /** Fetches the whole list with `fetch`; while one read is in flight, asking again runs one
   * more after it rather than several at once. */
  async reload(fetch: () => Promise<Presented[]>): Promise<void> {
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
      let list = await fetch();
      for (const op of ops) list = applyOp(list, op);
      this.list = list;
      this.publish(list);
    } finally {
      this.inFlight = null;
      if (this.again) {
        this.again = false;
        void this.reload(fetch);
      }
    }
  }

  /** Applies one change now (and again on top of a read in flight). An arrival fetched in an
   * older generation than the current read is dropped: the read has it, or it left. */
  apply(op: InboxOp, gen?: number): void {
    if (op.kind === "left") this.departed.add(op.id);
    else if (this.departed.has(op.p.approval.id) || (gen !== undefined && gen !== this.gen)) return;
    this.inFlight?.push(op);
    this.list = applyOp(this.list, op);
    this.publish(this.list);
  }
}
