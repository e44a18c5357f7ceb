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
