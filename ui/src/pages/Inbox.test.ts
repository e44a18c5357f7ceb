import { describe, expect, it } from "vitest";

import { reduce } from "./Inbox";

const none = new Set<string>();
const start = (shown: string[], selected: string | null) => ({ shown, selected, layout: 0, withdrawn: false });

describe("the inbox keeps the card the person sees", () => {
  it("holds a new arrival instead of showing it above the selected card", () => {
    const v = reduce(start(["a"], "a"), { kind: "sync", ids: ["b", "a"], decided: none });
    expect(v.shown).toEqual(["a"]);
    expect(v.selected).toBe("a");
  });

  it("keeps the selection when the card above it is withdrawn", () => {
    const v = reduce(start(["c3", "c2", "c1"], "c2"), { kind: "sync", ids: ["c2", "c1"], decided: none });
    expect(v.shown).toEqual(["c2", "c1"]);
    expect(v.selected).toBe("c2");
    expect(v.layout).toBe(1);
  });

  it("selects the neighbour below when the selected card leaves", () => {
    const v = reduce(start(["c3", "c2", "c1"], "c2"), { kind: "sync", ids: ["c3", "c1"], decided: none });
    expect(v.selected).toBe("c1");
    const last = reduce(start(["c2", "c1"], "c1"), { kind: "sync", ids: ["c2"], decided: none });
    expect(last.selected).toBe("c2");
  });

  it("never puts a new card where a withdrawn one was", () => {
    const v = reduce(start(["x"], "x"), { kind: "sync", ids: ["y"], decided: none });
    expect(v.shown).toEqual([]);
    expect(v.withdrawn).toBe(true);
    const still = reduce(v, { kind: "sync", ids: ["z", "y"], decided: none });
    expect(still.shown).toEqual([]);
    const brought = reduce(still, { kind: "bring_in", ids: ["z", "y"] });
    expect(brought.shown).toEqual(["z", "y"]);
    expect(brought.selected).toBe("z");
    expect(brought.withdrawn).toBe(false);
  });

  it("shows the next request at once when the person decided the last one", () => {
    const v = reduce(start(["x"], "x"), { kind: "sync", ids: ["y"], decided: new Set(["x"]) });
    expect(v.shown).toEqual(["y"]);
    expect(v.selected).toBe("y");
  });

  it("shows what arrives in an empty inbox", () => {
    const v = reduce(start([], null), { kind: "sync", ids: ["a", "b"], decided: none });
    expect(v.shown).toEqual(["a", "b"]);
    expect(v.selected).toBe("a");
  });

  it("moves within the shown cards only", () => {
    let v = start(["a", "b"], "a");
    v = reduce(v, { kind: "move", by: 1 });
    expect(v.selected).toBe("b");
    v = reduce(v, { kind: "move", by: 1 });
    expect(v.selected).toBe("b");
  });
});
