import { describe, expect, it } from "vitest";

import { ageWords, leftWords } from "./time";

describe("clock words", () => {
  it("say an age to the minute, so a card at rest repaints once a minute", () => {
    expect(ageWords(5_000)).toBe("just now");
    expect(ageWords(59_999)).toBe("just now");
    expect(ageWords(60_000)).toBe("1 min ago");
    expect(ageWords(61_000)).toBe(ageWords(119_000));
    expect(ageWords(3 * 3_600_000 + 20 * 60_000 + 5_000)).toBe("3 h 20 min ago");
  });

  it("never say more time is left than there is, and count the last minute in seconds", () => {
    expect(leftWords(9 * 60_000 + 59_000)).toBe("9 min");
    expect(leftWords(60_000)).toBe("1 min");
    expect(leftWords(59_000)).toBe("59 s");
    expect(leftWords(-5_000)).toBe("0 s");
  });
});
