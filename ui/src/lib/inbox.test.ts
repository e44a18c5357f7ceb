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
});
