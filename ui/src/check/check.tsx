// The first-render check: the artifact rendered once, server-side, with the same scope and
// components as the preview, and tools whose promises never settle. Runs in QuickJS inside the
// console (no browser, no Node). The console compiles the source with the preview's compiler
// in a realm of its own, where no artifact code ever runs, and hands the result here:
// `countersignCheck(compiledJson)` answers JSON. `countersignNames()` gives the scope's names
// to that compiler.
import { drain } from "./shims";

import { createElement, type ComponentType } from "react";
import { renderToReadableStream } from "react-dom/server.browser";

import type { Compiled } from "../artifact/compile";
import { modules, requireFrom, scope, toolsProxy } from "../artifact/scope";

type Outcome =
  | { ok: true; kind: "json" }
  | { ok: true; kind: "component" }
  | { ok: false; message: string; stack: string };

// Taken before any artifact code runs in this realm, which may replace `JSON`'s own.
const { stringify, parse } = JSON;

const tools = toolsProxy(() => new Promise<never>(() => {}));
const table = modules(tools);
const shared = scope(tools);
const names = Object.keys(shared);

/** A thrown value as text, whatever it is (its `message` or `toString` may throw too). */
function describe(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return "a value that cannot be shown as text";
  }
}

function check(compiled: Compiled): Outcome {
  if (compiled.kind === "json") return { ok: true, kind: "json" };
  if (compiled.kind === "error") return { ok: false, message: `it does not compile: ${compiled.message}`, stack: "" };
  let Artifact: unknown;
  try {
    const run = new Function("require", "exports", "module", "__scope", compiled.body) as
      (r: unknown, e: unknown, m: unknown, s: unknown) => unknown;
    const exports: Record<string, unknown> = {};
    Artifact = run(requireFrom(table), exports, { exports }, shared);
  } catch (e) {
    return { ok: false, message: describe(e), stack: "" };
  }
  if (typeof Artifact !== "function" && (typeof Artifact !== "object" || Artifact === null)) {
    return { ok: false, message: "the artifact defines no component: export one as default, or name it App", stack: "" };
  }
  let failure: Outcome | null = null;
  const fail = (error: unknown, stack?: string) => {
    failure ??= {
      ok: false,
      message: describe(error),
      stack: typeof stack === "string" ? stack.trim() : "",
    };
  };
  renderToReadableStream(createElement(Artifact as ComponentType), {
    onError: (error: unknown, info?: { componentStack?: string }) => { fail(error, info?.componentStack); },
  }).catch((e: unknown) => fail(e));
  drain();
  return failure ?? { ok: true, kind: "component" };
}

function answer(compiledJson: string): string {
  try {
    return stringify(check(parse(compiledJson) as Compiled));
  } catch (e) {
    return stringify({ ok: false, message: describe(e), stack: "" });
  }
}

// Artifact code runs in this realm: it cannot put another function in their place.
for (const [name, value] of [["countersignCheck", answer], ["countersignNames", () => stringify(names)]] as const) {
  Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
}
