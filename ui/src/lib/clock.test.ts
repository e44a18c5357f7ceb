import { afterEach, describe, expect, it, vi } from "vitest";

import { subscribe, ticking } from "./clock";

describe("the shared clock", () => {
  afterEach(() => vi.useRealTimers());

  it("ticks once a second only while a clock is subscribed, and stops when the last one leaves", () => {
    vi.useFakeTimers();
    expect(ticking()).toBe(0);
    let a = 0, b = 0;
    const stopA = subscribe(() => a++);
    const stopB = subscribe(() => b++);
    vi.advanceTimersByTime(3000);
    expect([a, b]).toEqual([3, 3]);
    stopA();
    vi.advanceTimersByTime(2000);
    expect([a, b]).toEqual([3, 5]);
    stopB();
    expect(ticking()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect([a, b]).toEqual([3, 5]);
  });
});
