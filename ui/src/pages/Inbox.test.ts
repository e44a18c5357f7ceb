import { describe, expect, it } from "vitest";

import { reduce, type View } from "./Inbox";

const none = new Set<string>();
const start = (shown: string[], selected: string | null): View => ({ shown, selected, layout: 0, withdrawn: false, group: null });
/** Calls named c… come from Codex, others from Gemini. */
const groupOf = (id: string) => (id.startsWith("c") ? "codex" : "gemini");

describe("the inbox keeps the card the person sees", () => {
  it("holds a new arrival instead of showing it above the selected card", () => {
    const v = reduce(start(["a"], "a"), { kind: "sync", ids: ["b", "a"], decided: none, groupOf });
    expect(v.shown).toEqual(["a"]);
    expect(v.selected).toBe("a");
  });

  it("keeps the selection when the card above it is withdrawn", () => {
    const v = reduce(start(["c3", "c2", "c1"], "c2"), { kind: "sync", ids: ["c2", "c1"], decided: none, groupOf });
    expect(v.shown).toEqual(["c2", "c1"]);
    expect(v.selected).toBe("c2");
    expect(v.layout).toBe(1);
  });

  it("selects the neighbour below when the selected card leaves", () => {
    const v = reduce(start(["c3", "c2", "c1"], "c2"), { kind: "sync", ids: ["c3", "c1"], decided: none, groupOf });
    expect(v.selected).toBe("c1");
    const last = reduce(start(["c2", "c1"], "c1"), { kind: "sync", ids: ["c2"], decided: none, groupOf });
    expect(last.selected).toBe("c2");
  });

  it("never puts a new card where a withdrawn one was", () => {
    const v = reduce(start(["x"], "x"), { kind: "sync", ids: ["y"], decided: none, groupOf });
    expect(v.shown).toEqual([]);
    expect(v.withdrawn).toBe(true);
    const still = reduce(v, { kind: "sync", ids: ["z", "y"], decided: none, groupOf });
    expect(still.shown).toEqual([]);
    const brought = reduce(still, { kind: "bring_in", ids: ["z", "y"], groupOf });
    expect(brought.shown).toEqual(["z", "y"]);
    expect(brought.selected).toBe("z");
    expect(brought.withdrawn).toBe(false);
  });

  it("shows the next request at once when the person decided the last one", () => {
    const v = reduce(start(["x"], "x"), { kind: "sync", ids: ["y"], decided: new Set(["x"]), groupOf });
    expect(v.shown).toEqual(["y"]);
    expect(v.selected).toBe("y");
  });

  it("shows what arrives in an empty inbox", () => {
    const v = reduce(start([], null), { kind: "sync", ids: ["a", "b"], decided: none, groupOf });
    expect(v.shown).toEqual(["a", "b"]);
    expect(v.selected).toBe("a");
  });

  it("moves within the shown cards only", () => {
    let v = start(["a", "b"], "a");
    v = reduce(v, { kind: "move", by: 1, groupOf });
    expect(v.selected).toBe("b");
    v = reduce(v, { kind: "move", by: 1, groupOf });
    expect(v.selected).toBe("b");
  });

  it("narrows to one agent and project: the selection stays if it is in it, else the first of it", () => {
    let v = start(["c3", "g2", "c1", "g0"], "g2");
    v = reduce(v, { kind: "filter", group: "codex", groupOf });
    expect(v.group).toBe("codex");
    expect(v.selected).toBe("c3");
    // The list beside the card changed: decisions wait again.
    expect(v.layout).toBe(1);
    v = reduce(v, { kind: "move", by: 1, groupOf });
    expect(v.selected).toBe("c1");
    v = reduce(v, { kind: "move", by: 1, groupOf });
    expect(v.selected).toBe("c1");
    const kept = reduce(v, { kind: "filter", group: null, groupOf });
    expect(kept.selected).toBe("c1");
    expect(reduce(v, { kind: "filter", group: "codex", groupOf })).toBe(v);
  });

  it("selects a neighbour in the same group when the selected call leaves", () => {
    let v = reduce(start(["c3", "g2", "c1", "g0"], "c3"), { kind: "filter", group: "codex", groupOf });
    v = reduce(v, { kind: "sync", ids: ["g2", "c1", "g0"], decided: new Set(["c3"]), groupOf });
    expect(v.selected).toBe("c1");
    // The group's last call decided: nothing of another group takes its place.
    v = reduce(v, { kind: "sync", ids: ["g2", "g0"], decided: new Set(["c1"]), groupOf });
    expect(v.selected).toBeNull();
    expect(v.shown).toEqual(["g2", "g0"]);
  });

  it("brings new requests in without selecting one outside the group", () => {
    let v = reduce(start(["c1", "g0"], "c1"), { kind: "filter", group: "codex", groupOf });
    v = reduce(v, { kind: "bring_in", ids: ["g5", "g4"], groupOf });
    expect(v.shown).toEqual(["g5", "g4", "c1", "g0"]);
    expect(v.selected).toBe("c1");
    v = reduce(v, { kind: "bring_in", ids: ["g7", "c6"], groupOf });
    expect(v.selected).toBe("c6");
  });
});
