// Generated at build time by ../../lucide-icons.mjs.
declare module "virtual:lucide-icons" {
  /** Icon name (with its `…Icon` and `Lucide…` aliases) → index into the data. */
  export const ICON_INDEX: Record<string, number>;
  /** Each icon's lucide data, `{ name, size, node }`, as JSON. */
  export const ICON_DATA: readonly string[];
}
