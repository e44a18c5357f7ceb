import type { Presented } from "../api/types/Presented";

/**
 * The list the phone shows after the waiting calls changed. Calls decided elsewhere leave it at
 * once; new calls wait behind a bar until the person asks for them, so a row never moves under
 * a finger about to tap it. `shown` is null before the first read, which shows everything.
 */
export function nextList(shown: string[] | null, latest: Presented[], takeNew: boolean): { list: Presented[]; waiting: number } {
  if (shown === null || takeNew) return { list: latest, waiting: 0 };
  const kept = new Set(shown);
  const list = latest.filter((p) => kept.has(p.approval.id));
  return { list, waiting: latest.length - list.length };
}
