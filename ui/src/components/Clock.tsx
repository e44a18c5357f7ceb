import { useEffect, useRef, useState } from "react";

import { lastTick, subscribe } from "../lib/clock";
import { span, stamp } from "../lib/time";

/** The current time, updated each second only while `ref`'s element is on screen (and the
 * window is shown): an off-screen or hidden clock costs nothing. */
function useVisibleNow(ref: React.RefObject<HTMLElement | null>): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    let stop: (() => void) | null = null;
    const on = () => {
      if (stop) return;
      setNow(Date.now());
      stop = subscribe(() => setNow(lastTick()));
    };
    const off = () => {
      stop?.();
      stop = null;
    };
    if (typeof IntersectionObserver === "undefined") {
      on();
      return off;
    }
    const io = new IntersectionObserver((entries) => (entries.some((e) => e.isIntersecting) ? on() : off()));
    io.observe(el);
    return () => {
      io.disconnect();
      off();
    };
  }, [ref]);
  return now;
}

/** "12 s ago": how long ago `at` was. */
export function Since({ at }: { at: number }) {
  const ref = useRef<HTMLSpanElement>(null);
  const now = useVisibleNow(ref);
  return <span ref={ref} title={stamp(at)}>{span(now - at)} ago</span>;
}

/** "expires in 9 min": the time left until `at`, marked when under a minute. */
export function Until({ at, prefix }: { at: number; prefix: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const now = useVisibleNow(ref);
  const left = at - now;
  return (
    <span ref={ref} className={left < 60_000 ? "soon" : undefined} title={stamp(at)} data-testid="countdown">
      {prefix}{span(left)}
    </span>
  );
}

/** A grant's "for 5 min more" / "expired" / "until revoked", kept current while shown. */
export function GrantUntil({ at, words }: { at: number | null; words: (at: number | null, now: number) => string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const now = useVisibleNow(ref);
  return <span ref={ref}>{words(at, now)}</span>;
}
