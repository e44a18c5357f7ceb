// What the preview can tell about a source without compiling it.

/** A source that is data, not a component: shown as JSON. */
export function asJson(source: string): { value: unknown } | null {
  const t = source.trim();
  if (!/^[[{"]/.test(t) && !/^(true|false|null|-?\d)/.test(t)) return null;
  try { return { value: JSON.parse(t) as unknown }; } catch { return null; }
}
