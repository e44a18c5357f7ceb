import { describe, expect, it } from "vitest";

import type { Presented } from "../api/types/Presented";
import { mergeFirst } from "./History";

const d = (id: string, decided_at: number) => ({ approval: { id, decided_at } }) as unknown as Presented;
const ids = (ps: Presented[]) => ps.map((p) => p.approval.id);

describe("History read again after a change", () => {
  const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => d(`a${from - i}`, from - i));

  it("keeps the older pages the person scrolled through, with the new first page on top", () => {
    const before = page(300, 250); // three reads: 300 down to 51
    const first = [d("new", 301), ...page(300, 99)];
    const merged = mergeFirst(before, first, "newest_first");
    expect(merged).toHaveLength(251);
    expect(ids(merged).slice(0, 2)).toEqual(["new", "a300"]);
    expect(ids(merged)[250]).toBe("a51");
    expect(new Set(ids(merged)).size).toBe(251);
  });

  it("drops what the first page now holds, in the earliest-first order too", () => {
    const before = Array.from({ length: 150 }, (_, i) => d(`e${i}`, i));
    const first = before.slice(0, 100);
    expect(ids(mergeFirst(before, first, "oldest_first"))).toEqual(ids(before));
  });

  it("takes a short first page as the whole history", () => {
    expect(ids(mergeFirst(page(300, 250), page(3, 3), "newest_first"))).toEqual(["a3", "a2", "a1"]);
    expect(ids(mergeFirst(null, page(3, 3), "newest_first"))).toEqual(["a3", "a2", "a1"]);
  });
});
