// What the window accepts from an artifact's preview frame. The frame runs the agent's code,
// so every message is untrusted: only the three shapes below, from the frame's own window,
// are read, and their fields are bounded before use.

export type FrameMessage =
  | { type: "ready" }
  | { type: "resize"; height: number }
  | { type: "error"; message: string; stack: string };

/** The frame's height, in CSS pixels, is kept within these. */
export const MIN_HEIGHT = 120;
export const MAX_HEIGHT = 1400;
const MAX_MESSAGE = 2000;
const MAX_STACK = 8000;

function plain(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

function only(v: Record<string, unknown>, keys: readonly string[]): boolean {
  return Object.keys(v).every((k) => keys.includes(k));
}

/** Reads one message the frame posted; anything else is `null` and ignored. */
export function readFrameMessage(data: unknown): FrameMessage | null {
  if (!plain(data)) return null;
  switch (data.type) {
    case "ready":
      return only(data, ["type"]) ? { type: "ready" } : null;
    case "resize": {
      const h = data.height;
      if (!only(data, ["type", "height"]) || typeof h !== "number" || !Number.isFinite(h)) return null;
      return { type: "resize", height: Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h))) };
    }
    case "error": {
      const { message, stack } = data;
      if (!only(data, ["type", "message", "stack"]) || typeof message !== "string" || typeof stack !== "string") return null;
      return { type: "error", message: message.slice(0, MAX_MESSAGE), stack: stack.slice(0, MAX_STACK) };
    }
    default:
      return null;
  }
}
