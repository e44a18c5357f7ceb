import type { Effect } from "../api/types/Effect";
import type { Grant } from "../api/types/Grant";
import type { Reach } from "../api/types/Reach";
import { span } from "./time";

/** A grant that has not been used for this long is flagged on the Grants page. */
export const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/** What an approve folder rule leaves out, whatever its folder (the core's `paths`: hidden
 * names, the settings list, Countersign's own data, files reached by another name). */
export const SETTINGS_EXCLUDED = "except hidden files and folders (names starting with “.”), the agents' and tools' settings, Countersign's own data, and files reached through a link";

/** What a reach covers, in words. An approve folder rule never covers the settings under it;
 * a decline rule covers them too. */
export function reachWords(reach: Reach, effect: Effect = "approve"): string {
  switch (reach.kind) {
    case "any": return "any call";
    case "exact": return "this exact call";
    case "command": return `commands starting with “${reach.words.map(shellWord).join(" ")}”`;
    case "path": return effect === "approve"
      ? `files under ${reach.prefix}, ${SETTINGS_EXCLUDED}` : `files under ${reach.prefix}`;
  }
}

/** Where a grant applies, in words (artifact titles are shown by the caller). */
export function whereWords(g: { artifact_id: string | null; project: string | null }): string {
  if (g.artifact_id) return "for its artifact";
  return g.project ? `from ${g.project}` : "everywhere";
}

/** How long a grant lasts, in words, at `now`. */
export function untilWords(expiresAt: number | null, now: number): string {
  if (expiresAt === null) return "until revoked";
  return expiresAt <= now ? "expired" : `for ${span(expiresAt - now)} more`;
}

/** Whether a grant was made over a week ago and never used: worth a second look. */
export function neverUsed(g: Grant, now: number): boolean {
  return g.uses === 0 && now - g.created_at > STALE_MS;
}

/** The end of the local day containing `now`. */
export function endOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(23, 59, 59, 999);
  return d.getTime();
}

/** A word as a shell would need it written: quoted when it holds spaces or quotes, so the
 * words `a b` and the one word `'a b'` never read alike. */
export function shellWord(w: string): string {
  return w === "" || /[\s'"\\]/.test(w) ? `'${w.replace(/'/g, "'\\''")}'` : w;
}
