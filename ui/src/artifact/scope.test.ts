import { describe, expect, it } from "vitest";

import { Table } from "./components";
import { modules, requireFrom, scope, toolsProxy } from "./scope";

const tools = toolsProxy(() => Promise.reject(new Error("no tools")));

describe("the artifact scope", () => {
  it("makes an icon when it is first named, under each of its names", () => {
    const s = scope(tools);
    const a = s["TrendingUp"];
    expect(typeof a).toBe("object"); // a forwardRef component
    expect(s["TrendingUpIcon"]).toBe(a);
    expect(s["LucideTrendingUp"]).toBe(a);
    expect((a as { displayName?: string }).displayName).toBe("TrendingUp");
  });

  it("keeps the ui components and React over icons of the same name", () => {
    const s = scope(tools);
    expect(s["Table"]).toBe(Table);
    expect(Object.keys(s)).toContain("BarChart");
    expect(Object.keys(s)).toContain("ArrowUpRight");
  });

  it("imports from lucide-react resolve the same icons, and unknown modules fail by name", () => {
    const req = requireFrom(modules(tools));
    const lucide = req("lucide-react");
    expect(lucide["Users"]).toBe(scope(tools)["Users"]);
    expect(lucide["NotAnIconAtAll"]).toBeUndefined();
    expect(() => req("node:fs")).toThrow(/"node:fs" is not available to artifacts/);
  });
});
