import { describe, expect, it, vi } from "vitest";

import type { InboxPage } from "../api/types/InboxPage";
import type { Presented } from "../api/types/Presented";
import type { InboxGroup } from "../api/types/InboxGroup";
import { applyOp, atMostEvery, EMPTY, InboxSync, inParts, type Pending, waitingGroups } from "./inbox";

function p(id: string, created_at: number, status = "pending"): Presented {
  return { approval: { id, created_at, status } } as unknown as Presented;
}
const agent = (name: string, project: string | null = null): InboxGroup =>
  ({ agent: name, project, agent_marks: [], project_marks: [], agent_more: 0, project_more: 0 });
const someone = agent("e2e");
function page(...cards: Presented[]): InboxPage {
  return { ids: cards.map((c) => c.approval.id), created_at: cards.map((c) => c.approval.created_at), first: cards,
    groups: [someone], group: cards.map(() => 0), changes: 0 };
}
const ids = (s: Pending) => s.entries.map((e) => e.id);
const arrived = (id: string, created_at: number, group = someone) => ({ kind: "arrived", entry: { id, created_at, group } }) as const;
const noCards = () => Promise.resolve([] as Presented[]);

describe("the pending list kept by events", () => {
  it("puts an arrival in its place, newest first, once, and drops what left", () => {
    let s: Pending = { entries: [{ id: "c", created_at: 30, group: someone }, { id: "a", created_at: 10, group: someone }], cards: new Map(), loaded: true };
    s = applyOp(s, arrived("b", 20));
    expect(ids(s)).toEqual(["c", "b", "a"]);
    // Its card is read when the list shows it, not with the event.
    expect(s.cards.has("b")).toBe(false);
    s = { ...s, cards: new Map([["b", p("b", 20)]]) };
    s = applyOp(s, arrived("b", 20));
    expect(ids(s)).toEqual(["c", "b", "a"]);
    s = applyOp(s, arrived("d", 40));
    expect(ids(s)).toEqual(["d", "c", "b", "a"]);
    // Asked in the same second: the later id first, as the console orders them.
    s = applyOp(s, arrived("cc", 30));
    expect(ids(s)).toEqual(["d", "cc", "c", "b", "a"]);
    s = applyOp(s, { kind: "left", id: "b" });
    expect(ids(s)).toEqual(["d", "cc", "c", "a"]);
    expect(s.cards.has("b")).toBe(false);
    expect(applyOp(EMPTY, { kind: "left", id: "x" })).toBe(EMPTY);
  });

  it("keeps what arrived or left while a full read was in flight", async () => {
    let shown: Pending = EMPTY;
    const sync = new InboxSync((s) => { shown = s; }, noCards);
    let answer: (l: InboxPage) => void = () => {};
    const loading = sync.reload(() => new Promise((r) => { answer = r; }));
    // The read saw the database before these two changes were committed.
    sync.apply(arrived("new", 99));
    sync.apply({ kind: "left", id: "old" });
    answer(page(p("old", 5), p("kept", 1)));
    await loading;
    expect(ids(shown)).toEqual(["new", "kept"]);
    // An arrival fetched before its approval was decided comes in after the decision.
    sync.apply({ kind: "left", id: "late" });
    sync.apply(arrived("late", 100));
    expect(ids(shown)).toEqual(["new", "kept"]);
  });

  it("runs one read at a time, and one more after it when asked again", async () => {
    let shown: Pending = EMPTY;
    const sync = new InboxSync((s) => { shown = s; }, noCards);
    const answers: ((l: InboxPage) => void)[] = [];
    let reads = 0;
    const fetch = () => new Promise<InboxPage>((r) => { reads += 1; answers.push(r); });
    const first = sync.reload(fetch);
    void sync.reload(fetch);
    void sync.reload(fetch);
    expect(reads).toBe(1);
    answers[0]!(page(p("a", 1)));
    await first;
    await Promise.resolve();
    expect(reads).toBe(2);
    answers[1]!(page(p("b", 2)));
    await new Promise((r) => setTimeout(r, 0));
    expect(ids(shown)).toEqual(["b"]);
    expect(reads).toBe(2);
  });

  it("shows a burst of changes once, with all of them", () => {
    const published: Pending[] = [];
    const queued: (() => void)[] = [];
    const sync = new InboxSync((s) => published.push(s), noCards, (run) => queued.push(run));
    for (let i = 0; i < 1000; i++) sync.apply(arrived(`n${String(i).padStart(4, "0")}`, i));
    sync.apply({ kind: "left", id: "n0500" });
    expect(published).toHaveLength(0);
    expect(queued).toHaveLength(1);
    queued[0]!();
    expect(published).toHaveLength(1);
    expect(published[0]!.entries).toHaveLength(999);
    expect(published[0]!.entries[0]!.id).toBe("n0999");
    // The next change is shown at the next turn again.
    sync.apply(arrived("n1000", 1000));
    expect(queued).toHaveLength(2);
    queued[1]!();
    expect(published[1]!.entries[0]!.id).toBe("n1000");
  });

  it("reads a card when the list shows it, only if it is still pending", async () => {
    let shown: Pending = EMPTY;
    const asked: string[][] = [];
    const sync = new InboxSync((s) => { shown = s; }, (ids) => {
      asked.push(ids);
      return Promise.resolve(ids.map((id) => p(id, 1, id === "gone" ? "approved" : "pending")));
    });
    await sync.reload(() => Promise.resolve({
      ids: ["first", "later", "gone"],
      created_at: [3, 2, 1],
      first: [p("first", 3)],
      groups: [someone],
      group: [0, 0, 0],
      changes: 0,
    }));
    expect([...shown.cards.keys()]).toEqual(["first"]);
    sync.need(["first", "later", "gone"]);
    await new Promise((r) => setTimeout(r, 0));
    expect(asked).toEqual([["later", "gone"]]);
    expect([...shown.cards.keys()].sort()).toEqual(["first", "later"]);
    // Read as decided: it leaves the list, never a row that waits for a card forever.
    expect(ids(shown)).toEqual(["first", "later"]);
  });

  it("drops an arrival whose approval had already finished when its card was read", async () => {
    let shown: Pending = EMPTY;
    const sync = new InboxSync((s) => { shown = s; }, (asked) =>
      // One finished before its arrival was placed; one is not there at all.
      Promise.resolve(asked.filter((id) => id !== "vanished").map((id) => p(id, 5, id === "ghost" ? "cancelled" : "pending"))));
    await sync.reload(() => Promise.resolve(page(p("a", 1))));
    sync.apply(arrived("ghost", 9));
    sync.apply(arrived("vanished", 8));
    sync.apply(arrived("real", 7));
    expect(ids(shown)).toEqual(["ghost", "vanished", "real", "a"]);
    sync.need(["ghost", "vanished", "real"]);
    await new Promise((r) => setTimeout(r, 0));
    expect(ids(shown)).toEqual(["real", "a"]);
    expect([...shown.cards.keys()].sort()).toEqual(["a", "real"]);
  });

  it("never reads a card twice at once, retries a failed read, and keeps cards across a full read", async () => {
    let shown: Pending = EMPTY;
    let fail = true;
    const asked: string[][] = [];
    const sync = new InboxSync((s) => { shown = s; }, (ids) => {
      asked.push(ids);
      if (fail) { fail = false; return Promise.reject(new Error("busy")); }
      return Promise.resolve(ids.map((id) => p(id, 1)));
    });
    const all = page(p("x", 3), p("y", 2), p("z", 1));
    await sync.reload(() => Promise.resolve({ ...all, first: [] }));
    expect(shown.loaded).toBe(true);
    sync.need(["x", "y"]);
    sync.need(["y"]); // asked again while being read: not read twice
    await new Promise((r) => setTimeout(r, 0));
    expect(asked[0]).toEqual(["x", "y"]);
    expect(shown.cards.size).toBe(0);
    // The failed read is asked again after a moment.
    await new Promise((r) => setTimeout(r, 1100));
    expect(asked[1]).toEqual(["x", "y"]);
    expect([...shown.cards.keys()].sort()).toEqual(["x", "y"]);
    // A full read keeps what was read (still pending), and the list starts no card again.
    await sync.reload(() => Promise.resolve({ ...all, ids: all.ids.slice(1), created_at: all.created_at.slice(1), first: [] }));
    expect([...shown.cards.keys()]).toEqual(["y"]);
  });
});

describe("who is waiting", () => {
  it("makes one chip per agent and project, the longest waiting first, with its count", () => {
    const codexApi = agent("Codex", "/src/api");
    const entries = [
      { id: "n", created_at: 50, group: agent("Codex", "/src/web") },
      { id: "m", created_at: 40, group: codexApi },
      { id: "l", created_at: 30, group: agent("Claude Code", "/src/api") },
      // The same agent and project, as another object: still one group.
      { id: "k", created_at: 20, group: agent("Codex", "/src/api") },
      { id: "j", created_at: 10, group: agent("Gemini") },
    ];
    const chips = waitingGroups(entries);
    expect(chips.map((c) => [c.group.agent, c.group.project, c.ids, c.oldest])).toEqual([
      ["Gemini", null, ["j"], 10],
      ["Codex", "/src/api", ["m", "k"], 20],
      ["Claude Code", "/src/api", ["l"], 30],
      ["Codex", "/src/web", ["n"], 50],
    ]);
    // A name that looks like a pair of names is its own group, never merged with another.
    const tricky = waitingGroups([
      { id: "a", created_at: 1, group: agent("Codex\",\"/src", "api") },
      { id: "b", created_at: 2, group: agent("Codex", "/src\",\"api") },
    ]);
    expect(tricky).toHaveLength(2);
    expect(waitingGroups([])).toEqual([]);
  });
});

describe("a group declined in parts", () => {
  it("sends every id once, in order, in parts of at most the size, and adds up the answers", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `a${i}`);
    const parts: string[][] = [];
    const n = await inParts(ids, 5, async (part) => { parts.push(part); return part.length - 1; });
    expect(parts.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(parts.flat()).toEqual(ids);
    expect(n).toBe(9);
    expect(await inParts([], 5, async () => 1)).toBe(0);
    // A part that fails stops the rest.
    const sent: string[][] = [];
    await expect(inParts(ids, 5, async (part) => { sent.push(part); if (sent.length === 2) throw new Error("no"); return 5; }))
      .rejects.toThrow("no");
    expect(sent).toHaveLength(2);
  });
});

describe("atMostEvery", () => {
  it("runs a lone change on the next frame, and a burst at most once every so often", () => {
    vi.useFakeTimers();
    try {
      const frames: (() => void)[] = [];
      const later = atMostEvery(100, (run) => frames.push(run));
      const ran: number[] = [];
      // A lone change: handed to the next frame at once.
      later(() => ran.push(1));
      expect(frames.length).toBe(1);
      frames.shift()!();
      expect(ran).toEqual([1]);
      // Another 10 ms later waits until 100 ms after the first ran.
      vi.advanceTimersByTime(10);
      later(() => ran.push(2));
      expect(frames.length).toBe(0);
      vi.advanceTimersByTime(89);
      expect(frames.length).toBe(0);
      vi.advanceTimersByTime(1);
      expect(frames.length).toBe(1);
      frames.shift()!();
      expect(ran).toEqual([1, 2]);
      // After a quiet spell, at once again.
      vi.advanceTimersByTime(500);
      later(() => ran.push(3));
      expect(frames.length).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
