import { useEffect, useRef, useState } from "react";

/** How long decision keys and buttons stay inert after the card under them changes. */
export const ARM_MS = 600;

/**
 * Whether decisions may be taken for the card(s) identified by `key`: not until {@link ARM_MS}
 * after `key` last changed (a new card selected, a card appearing, the list moving), so a
 * keypress or click aimed at one card never lands on the one that replaced it. `isArmed` answers
 * for a key a handler captured, at the moment the event arrives.
 */
export function useArming(key: string): { armed: boolean; isArmed: (k: string) => boolean } {
  const armedFor = useRef<string | null>(null);
  const [, rerender] = useState(0);
  useEffect(() => {
    const t = window.setTimeout(() => {
      armedFor.current = key;
      rerender((n) => n + 1);
    }, ARM_MS);
    return () => window.clearTimeout(t);
  }, [key]);
  return { armed: armedFor.current === key, isArmed: (k: string) => armedFor.current === k };
}
