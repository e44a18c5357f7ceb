import { describe, expect, it } from "vitest";

import { chips, cleaned, dateValue, lastDayValue, midnight, nextMidnight, queryKey, without } from "./history";

describe("History's query in the window", () => {
  it("keys a query by what is set, in any order", () => {
    expect(queryKey({})).toBe("{}");
    expect(queryKey({ text: "   ", failed: false })).toBe("{}");
    expect(queryKey({ outcome: "approved", agent: "Codex" })).toBe(queryKey({ agent: "Codex", outcome: "approved" }));
    expect(cleaned({ text: "", agent: "Codex" })).toEqual({ agent: "Codex" });
  });

  it("shows one removable chip per filter, and removing one keeps the rest", () => {
    const q = { text: " cargo ", agent: "Codex", decider: { kind: "any_rule" as const }, failed: true };
    expect(chips(q).map((c) => c.label)).toEqual(["“cargo”", "agent: Codex", "decided by a rule", "failed results"]);
    expect(without(q, "agent")).toEqual({ text: " cargo ", decider: { kind: "any_rule" }, failed: true });
  });

  it("reads a date input as local midnight and writes it back", () => {
    const ms = midnight("2026-12-01");
    expect(ms).toBe(new Date(2026, 11, 1).getTime());
    expect(dateValue(ms)).toBe("2026-12-01");
    expect(midnight("yesterday")).toBeUndefined();
    // "To" a day means through its end, and reads back as that day.
    const end = nextMidnight("2026-12-31");
    expect(end).toBe(new Date(2027, 0, 1).getTime());
    expect(lastDayValue(end)).toBe("2026-12-31");
  });
});
