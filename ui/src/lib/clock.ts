/** One shared one-second tick for every clock on screen. It runs only while some clock is
 * visible and the window is shown: a window at rest with nothing counting down does no work. */

type Listener = () => void;

const listeners = new Set<Listener>();
let timer: number | null = null;
let current = Date.now();

function shown(): boolean {
  return typeof document === "undefined" || document.visibilityState === "visible";
}

function tick() {
  current = Date.now();
  listeners.forEach((l) => l());
}

function schedule() {
  const want = listeners.size > 0 && shown();
  if (want && timer === null) {
    current = Date.now();
    timer = setInterval(tick, 1000);
  } else if (!want && timer !== null) {
    clearInterval(timer);
    timer = null;
  }
}

if (typeof document !== "undefined") {
  document.addEventListener("visibilitychange", () => {
    schedule();
    if (shown() && listeners.size > 0) tick();
  });
}

/** Calls `l` every second while it is subscribed and the window is shown. */
export function subscribe(l: Listener): () => void {
  listeners.add(l);
  schedule();
  return () => {
    listeners.delete(l);
    schedule();
  };
}

/** The time of the last tick (the current time while anything is subscribed). */
export function lastTick(): number {
  return current;
}

/** How many clocks are ticking now, for tests. */
export function ticking(): number {
  return timer === null ? 0 : listeners.size;
}
