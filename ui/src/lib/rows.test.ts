import { describe, expect, it } from "vitest";

import { rowWindow, scrollFor } from "./rows";

describe("rowWindow", () => {
  it("shows the rows the viewport covers, and a few beyond", () => {
    // Rows of 34 px, a viewport of 340 px at the top: rows 0–9, and 4 more below.
    expect(rowWindow(10_000, 34, 0, 340, 0, 4)).toEqual({ first: 0, last: 13 });
    // Scrolled to row 5,000's top.
    expect(rowWindow(10_000, 34, 5_000 * 34, 340, 0, 4)).toEqual({ first: 4_996, last: 5_013 });
  });

  it("counts what is above the rows (a bar, a notice) before the first row", () => {
    // A 40 px bar above the rows: at the top only what is below it shows rows.
    expect(rowWindow(100, 34, 0, 340, 40, 0)).toEqual({ first: 0, last: 8 });
    expect(rowWindow(100, 34, 40 + 34 * 10, 340, 40, 0)).toEqual({ first: 10, last: 19 });
  });

  it("never goes past either end", () => {
    expect(rowWindow(3, 34, 0, 800, 0, 4)).toEqual({ first: 0, last: 2 });
    expect(rowWindow(100, 34, 99 * 34, 340, 0, 4)).toEqual({ first: 95, last: 99 });
    expect(rowWindow(0, 34, 0, 340, 0, 4)).toEqual({ first: 0, last: -1 });
  });
});

describe("scrollFor", () => {
  it("moves only when the row is not whole on screen, and as little as it takes", () => {
    // Row 3 (102–136) in a viewport 0–340: nothing to do.
    expect(scrollFor(3, 34, 0, 340, 0)).toBeNull();
    // Row 12 (408–442) below: its bottom brought to the viewport's bottom.
    expect(scrollFor(12, 34, 0, 340, 0)).toBe(442 - 340);
    // Row 2 (68–102) above a list scrolled to 200: its top brought to the top.
    expect(scrollFor(2, 34, 200, 340, 0)).toBe(68);
    // Half hidden at the top counts as not whole.
    expect(scrollFor(5, 34, 180, 340, 0)).toBe(170);
  });

  it("counts what is above the rows", () => {
    expect(scrollFor(0, 34, 0, 340, 40)).toBeNull();
    expect(scrollFor(9, 34, 0, 340, 40)).toBe(40 + 340 - 340);
  });
});

describe("scrollFor below a bar stuck at the top", () => {
  it("brings a row above the bar's bottom down below it", () => {
    // A 35 px bar covers the top: row 10 (340–374) with the list at 345 is under it.
    expect(scrollFor(10, 34, 345, 340, 0, 35)).toBe(340 - 35);
    // Row 12 (408–442) is below the bar: nothing to do.
    expect(scrollFor(12, 34, 345, 340, 0, 35)).toBeNull();
    // Never above the list's top.
    expect(scrollFor(0, 34, 10, 340, 0, 35)).toBe(0);
  });
});
