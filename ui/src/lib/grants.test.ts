import { describe, expect, it } from "vitest";

import { endOfDay, reachWords, shellWord, untilWords } from "./grants";

describe("grants in plain words", () => {
  it("keeps word boundaries visible", () => {
    expect(shellWord("log")).toBe("log");
    expect(shellWord("a b")).toBe("'a b'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(reachWords({ kind: "command", words: ["a", "b"] })).not.toBe(
      reachWords({ kind: "command", words: ["a b"] }),
    );
  });

  it("says what an approve folder rule leaves out, and a decline rule does not", () => {
    const folder = { kind: "path", prefix: "/p" } as const;
    expect(reachWords(folder, "approve")).toContain("except hidden files and folders");
    expect(reachWords(folder, "deny")).toBe("files under /p");
  });

  it("says how long is left", () => {
    expect(untilWords(null, 0)).toBe("until revoked");
    expect(untilWords(1000, 2000)).toBe("expired");
    expect(untilWords(61_000, 1000)).toBe("for 1 min more");
  });

  it("ends the day at local midnight", () => {
    const noon = new Date(2026, 10, 30, 12, 0, 0).getTime();
    const end = new Date(endOfDay(noon));
    expect([end.getHours(), end.getMinutes(), end.getDate()]).toEqual([23, 59, 30]);
  });
});
