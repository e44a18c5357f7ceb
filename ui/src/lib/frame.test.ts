import { describe, expect, it } from "vitest";

import { MAX_HEIGHT, MIN_HEIGHT, readFrameMessage } from "./frame";

describe("readFrameMessage", () => {
  it("reads the frame's own three messages", () => {
    expect(readFrameMessage({ type: "ready" })).toEqual({ type: "ready" });
    expect(readFrameMessage({ type: "resize", height: 321.2 })).toEqual({ type: "resize", height: 322 });
    expect(readFrameMessage({ type: "error", message: "boom", stack: "at X" }))
      .toEqual({ type: "error", message: "boom", stack: "at X" });
  });

  it("keeps the height within bounds", () => {
    expect(readFrameMessage({ type: "resize", height: 1e9 })).toEqual({ type: "resize", height: MAX_HEIGHT });
    expect(readFrameMessage({ type: "resize", height: -5 })).toEqual({ type: "resize", height: MIN_HEIGHT });
  });

  it("ignores anything shaped otherwise", () => {
    const hostile: unknown[] = [
      null, "ready", 42, [], ["ready"],
      { type: "decide", id: "x", decision: { kind: "approve" } },
      { type: "ready", cmd: "decide" },
      { type: "resize", height: "100" },
      { type: "resize", height: Number.NaN },
      { type: "resize", height: Infinity },
      { type: "resize", height: 10, then: "x" },
      { type: "error", message: 1, stack: "" },
      { type: "error", message: "x" },
      { type: "error", message: "x", stack: "", __proto__: { evil: true } },
      { __TAURI_INVOKE_KEY__: "k", cmd: "decide" },
      new Date(),
    ];
    for (const h of hostile) expect(readFrameMessage(h), JSON.stringify(h)).toBeNull();
  });

  it("bounds what an error may carry", () => {
    const m = readFrameMessage({ type: "error", message: "x".repeat(100_000), stack: "y".repeat(100_000) });
    expect(m?.type === "error" && m.message.length <= 2000 && m.stack.length <= 8000).toBe(true);
  });
});
