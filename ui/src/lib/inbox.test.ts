import { describe, expect, it } from "vitest";

import type { Presented } from "../api/types/Presented";
import { applyOp, InboxSync } from "./inbox";

function p(id: string, created_at: number, status = "pending"): Presented {
  return { approval: { id, created_at, status } } as unknown as Presented;
}
const ids = (l: Presented[]) => l.map((x) => x.approval.id);

describe("the pending list kept by events", () => {
  it("puts an arrival in its place, newest first, once, and drops what left", () => {
    let l = [p("c", 30), p("a", 10)];
    l = applyOp(l, { kind: "arrived", p: p("b", 20) });
    expect(ids(l)).toEqual(["c", "b", "a"]);
    l = applyOp(l, { kind: "arrived", p: p("b", 20) });
    expect(ids(l)).toEqual(["c", "b", "a"]);
    l = applyOp(l, { kind: "arrived", p: p("d", 40) });
    expect(ids(l)).toEqual(["d", "c", "b", "a"]);
    l = applyOp(l, { kind: "left", id: "c" });
    expect(ids(l)).toEqual(["d", "b", "a"]);
    // Approved by a grant at once: never shown as pending.
    l = applyOp(l, { kind: "arrived", p: p("e", 50, "approved") });
    expect(ids(l)).toEqual(["d", "b", "a"]);
  });

  it("keeps what arrived or left while a full fetch was in flight", async () => {
    let shown: Presented[] = [];
    const sync = new InboxSync((l) => { shown = l; });
    let answer: (l: Presented[]) => void = () => {};
    const loading = sync.reload(() => new Promise((r) => { answer = r; }));
    // The fetch read the database before these two changes were committed.
    sync.apply({ kind: "arrived", p: p("new", 99) });
    sync.apply({ kind: "left", id: "old" });
    answer([p("old", 5), p("kept", 1)]);
    await loading;
    expect(ids(shown)).toEqual(["new", "kept"]);
    // An arrival fetched before its approval was decided comes in after the decision.
    sync.apply({ kind: "left", id: "late" });
    sync.apply({ kind: "arrived", p: p("late", 100) });
    expect(ids(shown)).toEqual(["new", "kept"]);
  });

  it("runs one read at a time, one more after it when asked again, and drops older arrivals", async () => {
    let shown: Presented[] = [];
    const sync = new InboxSync((l) => { shown = l; });
    const answers: ((l: Presented[]) => void)[] = [];
    let reads = 0;
    const fetch = () => new Promise<Presented[]>((r) => { reads += 1; answers.push(r); });
    const first = sync.reload(fetch);
    void sync.reload(fetch);
    void sync.reload(fetch);
    expect(reads).toBe(1);
    // An arrival fetched now belongs to this read's generation…
    const gen = sync.generation();
    answers[0]!([p("a", 1)]);
    await first;
    await Promise.resolve();
    expect(reads).toBe(2);
    // …and comes back after the next read began: the read has it if it is still pending.
    sync.apply({ kind: "arrived", p: p("stale", 5) }, gen);
    answers[1]!([p("b", 2)]);
    await new Promise((r) => setTimeout(r, 0));
    expect(ids(shown)).toEqual(["b"]);
    expect(reads).toBe(2);
  });
});
