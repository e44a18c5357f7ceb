// What artifact code can use: React, Recharts, lucide-react, the shadcn-style components and a
// `tools` object whose calls reject (the preview and the render check run no tools). Shared by
// the preview runtime and the server-side render check, so both see the same names.
import * as React from "react";
import * as Lucide from "lucide-react";
import * as Recharts from "recharts";

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

/** Modules by the names artifact code imports them from. */
export function modules(tools: unknown): Record<string, Record<string, unknown>> {
  const ui = { ...Components } as Record<string, unknown>;
  return {
    react: React as unknown as Record<string, unknown>,
    recharts: Recharts as unknown as Record<string, unknown>,
    "lucide-react": Lucide as unknown as Record<string, unknown>,
    "@/components/ui": ui,
    "@/lib/utils": { cn },
    tools: { tools, default: tools },
  };
}

/** The names artifact code may use without importing them. */
export function scope(tools: unknown): Record<string, unknown> {
  const m = modules(tools);
  return {
    ...m["lucide-react"],
    ...m.recharts,
    ...m.react,
    ...m["@/components/ui"],
    React,
    cn,
    tools,
  };
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
