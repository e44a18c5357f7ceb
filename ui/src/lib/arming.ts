import { useEffect, useRef, useState } from "react";

/** How long decision keys and buttons stay inert after the card under them changes. */
export const ARM_MS = 600;

/**
 * Whether decisions may be taken for the card(s) identified by `key`: not until {@link ARM_MS}
 * after `key` last changed (a new card selected, a card appearing, the list moving), the window
 * last came into view or took the keyboard, or a key was last pressed while inert — so a
 * keypress or click aimed at something else never lands on a card, and someone typing into
 * what they thought was another window never arms a decision mid-word. `isArmed` answers for
 * a key a handler captured, at the moment the event arrives.
 */
export function useArming(key: string): { armed: boolean; isArmed: (k: string) => boolean } {
  const armedFor = useRef<string | null>(null);
  const epoch = useRef(0);
  const current = useRef(key);
  current.current = key;
  const [restarts, setRestarts] = useState(0);
  const [, rerender] = useState(0);
  const isArmed = (k: string) => armedFor.current === `${k}#${epoch.current}`;

  useEffect(() => {
    const restart = () => setRestarts((n) => n + 1);
    const again = () => {
      epoch.current += 1;
      armedFor.current = null;
      restart();
    };
    const onVisibility = () => { if (document.visibilityState === "visible") again(); };
    // Capture phase: this runs before any handler that would act on the key.
    const onKey = () => { if (armedFor.current !== `${current.current}#${epoch.current}`) restart(); };
    window.addEventListener("focus", again);
    document.addEventListener("visibilitychange", onVisibility);
    window.addEventListener("keydown", onKey, true);
    return () => {
      window.removeEventListener("focus", again);
      document.removeEventListener("visibilitychange", onVisibility);
      window.removeEventListener("keydown", onKey, true);
    };
  }, []);

  useEffect(() => {
    const target = `${key}#${epoch.current}`;
    const t = window.setTimeout(() => {
      armedFor.current = target;
      rerender((n) => n + 1);
    }, ARM_MS);
    return () => window.clearTimeout(t);
  }, [key, restarts]);

  return { armed: isArmed(key), isArmed };
}
