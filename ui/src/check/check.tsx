// The first-render check: the artifact compiled and rendered once, server-side, with the same
// compiler, scope and components as the preview, and tools whose promises never settle. Runs
// in QuickJS inside the console (no browser, no Node): `countersignCheck(source)` answers JSON.
import { drain } from "./shims";

import { createElement, type ComponentType } from "react";
import { renderToReadableStream } from "react-dom/server.browser";

import { compile } from "../artifact/compile";
import { modules, requireFrom, scope, toolsProxy } from "../artifact/scope";

type Outcome =
  | { ok: true; kind: "json" }
  | { ok: true; kind: "component"; body: string }
  | { ok: false; message: string; stack: string };

const tools = toolsProxy(() => new Promise<never>(() => {}));
const table = modules(tools);
const shared = scope(tools);
const names = Object.keys(shared);

function check(source: string): Outcome {
  const compiled = compile(source, names);
  if (compiled.kind === "json") return { ok: true, kind: "json" };
  if (compiled.kind === "error") return { ok: false, message: `it does not compile: ${compiled.message}`, stack: "" };
  let Artifact: unknown;
  try {
    const run = new Function("require", "exports", "module", "__scope", compiled.body) as
      (r: unknown, e: unknown, m: unknown, s: unknown) => unknown;
    const exports: Record<string, unknown> = {};
    Artifact = run(requireFrom(table), exports, { exports }, shared);
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e), stack: "" };
  }
  if (typeof Artifact !== "function" && (typeof Artifact !== "object" || Artifact === null)) {
    return { ok: false, message: "the artifact defines no component: export one as default, or name it App", stack: "" };
  }
  let failure: Outcome | null = null;
  const fail = (error: unknown, stack?: string) => {
    failure ??= {
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      stack: (stack ?? "").trim(),
    };
  };
  renderToReadableStream(createElement(Artifact as ComponentType), {
    onError: (error: unknown, info?: { componentStack?: string }) => { fail(error, info?.componentStack); },
  }).catch((e: unknown) => fail(e));
  drain();
  // The preview runs this body as is, so what renders there is what rendered here.
  return failure ?? { ok: true, kind: "component", body: compiled.body };
}

(globalThis as unknown as Record<string, unknown>).countersignCheck = (source: string) =>
  JSON.stringify(check(source));
