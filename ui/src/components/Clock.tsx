import { useLayoutEffect, useRef } from "react";

import { subscribe } from "../lib/clock";
import { ageWords, leftWords, stamp } from "../lib/time";

/**
 * Keeps `ref`'s text at `text(now)`, once a second, only while the element is on screen and
 * the window is shown. The text is written straight into the element, and only when it
 * changes: a clock costs no render of anything around it, and an off-screen one costs nothing.
 */
function useClockText(ref: React.RefObject<HTMLElement | null>, text: (now: number) => string, soon?: (now: number) => boolean) {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const paint = () => {
      const now = Date.now();
      const next = text(now);
      if (el.textContent !== next) el.textContent = next;
      if (soon) el.classList.toggle("soon", soon(now));
    };
    paint();
    let stop: (() => void) | null = null;
    const on = () => { if (!stop) { paint(); stop = subscribe(paint); } };
    const off = () => { stop?.(); stop = null; };
    if (typeof IntersectionObserver === "undefined") {
      on();
      return off;
    }
    const io = new IntersectionObserver((entries) => (entries.some((e) => e.isIntersecting) ? on() : off()));
    io.observe(el);
    return () => { io.disconnect(); off(); };
  });
}

/** "5 min ago": how long ago `at` was, to the minute. */
export function Since({ at }: { at: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  useClockText(ref, (now) => ageWords(now - at));
  return <span ref={ref} title={stamp(at)} />;
}

/** "5 min ago" for a list's row: the row is in the page only while the list shows it, so it
 * ticks with the shared clock from the moment it is drawn, with no observer of its own. */
export function Age({ at }: { at: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const paint = () => {
      const next = ageWords(Date.now() - at);
      if (el.textContent !== next) el.textContent = next;
    };
    paint();
    return subscribe(paint);
  }, [at]);
  return <span ref={ref} />;
}

/** "expires in 9 min": the time left until `at`, to the minute, then to the second in the last
 * minute, which is marked. */
export function Until({ at, prefix }: { at: number; prefix: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  useClockText(ref, (now) => `${prefix}${leftWords(at - now)}`, (now) => at - now < 60_000);
  return <span ref={ref} title={stamp(at)} data-testid="countdown" />;
}

/** A grant's "for 5 min more" / "expired" / "until revoked", kept current while shown. */
export function GrantUntil({ at, words }: { at: number | null; words: (at: number | null, now: number) => string }) {
  const ref = useRef<HTMLSpanElement>(null);
  useClockText(ref, (now) => words(at, now));
  return <span ref={ref} />;
}
