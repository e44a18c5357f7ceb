// What React's server renderer needs from a browser, the same in every engine (QuickJS may
// have some of it natively; the check must not depend on which). Timers with a delay never
// fire, like a tool that never answers; everything else runs when `drain` says.
type Task = () => void;
const g = globalThis as unknown as Record<string, unknown>;

/** Work the renderer scheduled, run by `drain`. */
export const tasks: Task[] = [];

/** Runs scheduled work until none is left (or `max` tasks ran). */
export function drain(max = 100_000): void {
  for (let i = 0; i < max && tasks.length > 0; i++) tasks.shift()!();
}

class Port {
  onmessage: ((e: unknown) => void) | null = null;
}
class Channel {
  port1 = new Port();
  port2 = { postMessage: () => { tasks.push(() => this.port1.onmessage?.({ data: null })); } };
}

class Encoder {
  encode(s: string): Uint8Array {
    const out: number[] = [];
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
}

g.MessageChannel = Channel;
g.TextEncoder ??= Encoder;
g.setTimeout = (fn: Task, ms?: number) => { if (!ms) tasks.push(fn); return 0; };
g.clearTimeout = () => {};
g.setInterval = () => 0;
g.clearInterval = () => {};
// Run by `drain` too: the renderer starts its first render in a microtask.
g.queueMicrotask = (fn: Task) => { tasks.push(fn); };
// The renderer makes a stream for its output; the check never reads it.
g.ReadableStream = class { constructor(_source: unknown, _strategy?: unknown) {} };
g.performance ??= { now: () => Date.now() };
