import { useEffect, useRef, useState } from "react";

/** How long decision keys and buttons stay inert after the card under them changes. */
export const ARM_MS = 600;

/**
 * Whether decisions may be taken for the card(s) identified by `key`: not until {@link ARM_MS}
 * after `key` last changed (a new card selected, a card appearing, the list moving) or the
 * window last came into view or took the keyboard, so a keypress or click aimed at something
 * else never lands on a card. `isArmed` answers for a key a handler captured, at the moment
 * the event arrives.
 */
export function useArming(key: string): { armed: boolean; isArmed: (k: string) => boolean } {
  const armedFor = useRef<string | null>(null);
  const epoch = useRef(0);
  const [, rerender] = useState(0);
  const [shown, setShown] = useState(0);
  useEffect(() => {
    const again = () => {
      epoch.current += 1;
      armedFor.current = null;
      setShown((n) => n + 1);
    };
    const onVisibility = () => { if (document.visibilityState === "visible") again(); };
    window.addEventListener("focus", again);
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      window.removeEventListener("focus", again);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, []);
  useEffect(() => {
    const full = `${key}#${epoch.current}`;
    const t = window.setTimeout(() => {
      armedFor.current = full;
      rerender((n) => n + 1);
    }, ARM_MS);
    return () => window.clearTimeout(t);
  }, [key, shown]);
  const isArmed = (k: string) => armedFor.current === `${k}#${epoch.current}`;
  return { armed: isArmed(key), isArmed };
}
