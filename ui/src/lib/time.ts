/** "12 s", "5 min", "3 h", "2 d": short spans for ages and countdowns. */
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60 ? `${s % 60} s` : ""}`.trim();
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60 ? `${m % 60} min` : ""}`.trim();
  return `${Math.floor(h / 24)} d`;
}

/** A local date and time, to the second; the year only when it is not this one. */
export function stamp(ms: number): string {
  const d = new Date(ms);
  return d.toLocaleString(undefined, {
    year: d.getFullYear() === new Date().getFullYear() ? undefined : "numeric",
    month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
}

/** "just now", "5 min", "3 h 20 min", "2 d": an age to the minute, so it changes (and the
 * page repaints) once a minute, not every second. */
export function ageWords(ms: number): string {
  if (ms < 60_000) return "just now";
  return `${span(Math.floor(ms / 60_000) * 60_000)} ago`;
}

/** The time left, to the minute while a minute or more is left (rounded down, so it never
 * says more than is left), then to the second. */
export function leftWords(ms: number): string {
  return ms < 60_000 ? span(ms) : span(Math.floor(ms / 60_000) * 60_000);
}
