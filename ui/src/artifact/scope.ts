// What artifact code can use: React, Recharts, lucide-react, the shadcn-style components and a
// `tools` object whose calls reject (the preview and the render check run no tools). Shared by
// the preview runtime and the server-side render check, so both see the same names.
import * as React from "react";
import { Icon, LucideProvider, createLucideIcon, useLucideContext, type LucideIconData } from "lucide-react";
import * as Recharts from "recharts";
import { ICON_DATA, ICON_INDEX } from "virtual:lucide-icons";

import * as Components from "./components";

/** The error a tool call gets outside a real run. */
export const NO_TOOLS = "tools are not available in the preview";

/** `tools.<anything>.<…>(…)`: every call returns a promise that `settle` decides. */
export function toolsProxy(settle: () => Promise<never>): unknown {
  const handler: ProxyHandler<() => void> = {
    get: (_t, key) => (key === "then" ? undefined : new Proxy(() => {}, handler)),
    apply: () => settle(),
  };
  return new Proxy(() => {}, handler);
}

const cn = (...parts: unknown[]) => parts.filter((p) => typeof p === "string" && p).join(" ");

const madeIcons = new Map<number, unknown>();

/** The lucide-react icon `name` (or one of its aliases), made on first use. */
function icon(name: string): unknown {
  const i = ICON_INDEX[name];
  if (i === undefined) return undefined;
  let made = madeIcons.get(i);
  if (!made) {
    made = createLucideIcon(JSON.parse(ICON_DATA[i]!) as LucideIconData);
    madeIcons.set(i, made);
  }
  return made;
}

/** Adds every icon to `target` as a getter that makes it on first read, except names
 * `target` already has. */
function withIcons<T extends Record<string, unknown>>(target: T): T {
  for (const name of Object.keys(ICON_INDEX)) {
    if (!(name in target)) Object.defineProperty(target, name, { get: () => icon(name), enumerable: true });
  }
  return target;
}

/** lucide-react as artifact code imports it: its helpers, and the icons on demand. */
const lucide = withIcons<Record<string, unknown>>({ Icon, LucideProvider, createLucideIcon, useLucideContext });

/** Modules by the names artifact code imports them from. */
export function modules(tools: unknown): Record<string, Record<string, unknown>> {
  const ui = { ...Components } as Record<string, unknown>;
  return {
    react: React as unknown as Record<string, unknown>,
    recharts: Recharts as unknown as Record<string, unknown>,
    "lucide-react": lucide,
    "@/components/ui": ui,
    "@/lib/utils": { cn },
    tools: { tools, default: tools },
  };
}

/** The names artifact code may use without importing them: the ui components win over React,
 * React over Recharts, Recharts over the icons. Icons are made only when read. */
export function scope(tools: unknown): Record<string, unknown> {
  const m = modules(tools);
  return withIcons({
    Icon, LucideProvider, createLucideIcon, useLucideContext,
    ...m.recharts,
    ...m.react,
    ...m["@/components/ui"],
    React,
    cn,
    tools,
  });
}

/** `require` for compiled artifact code: shadcn paths (`@/components/ui/card`) map to the
 * components; anything else outside the scope fails with its name. */
export function requireFrom(table: Record<string, Record<string, unknown>>) {
  return (name: string): Record<string, unknown> => {
    if (name.startsWith("@/components/ui/")) return table["@/components/ui"]!;
    const found = table[name];
    if (!found) throw new Error(`"${name}" is not available to artifacts (React, Recharts, lucide-react and the ui components are)`);
    return found;
  };
}
