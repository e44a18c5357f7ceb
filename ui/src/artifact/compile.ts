// Artifact source to something that runs: JSX and TypeScript compiled by Sucrase, wrapped so
// the scope's names are in reach without imports and the artifact's own declarations win.
import { transform } from "sucrase";

import { asJson } from "./source";

export type Compiled =
  | { kind: "json"; value: unknown }
  | { kind: "module"; body: string }
  | { kind: "error"; message: string };

/** The component a source defines when it exports none: `App`, else its last capitalised
 * top-level function or constant. */
function fallbackName(source: string): string | null {
  const names = [...source.matchAll(/^(?:export\s+)?(?:function\s+([A-Z]\w*)|const\s+([A-Z]\w*)\s*=)/gm)]
    .map((m) => m[1] ?? m[2]!);
  return names.includes("App") ? "App" : names[names.length - 1] ?? null;
}

/** Words that cannot name a binding (a module namespace has a `default`). */
const RESERVED = new Set(("default break case catch class const continue debugger delete do else enum " +
  "export extends false finally for function if import in instanceof new null return super switch " +
  "this throw true try typeof var void while with yield let static implements interface package " +
  "private protected public await arguments eval").split(" "));

/** Compiles `source`; `names` are the scope's names, of which only those the code mentions
 * are brought into reach. The body runs as `function (require, exports, module, __scope)`. */
export function compile(source: string, names: readonly string[]): Compiled {
  const json = asJson(source);
  if (json) return { kind: "json", value: json.value };
  let code: string;
  try {
    code = transform(source, {
      transforms: ["jsx", "typescript", "imports"],
      jsxRuntime: "classic",
      production: true,
    }).code;
  } catch (e) {
    return { kind: "error", message: e instanceof Error ? e.message : String(e) };
  }
  const mentioned = new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const used = names.filter((n) => mentioned.has(n) && !RESERVED.has(n) && /^[A-Za-z_$][\w$]*$/.test(n));
  const fallback = fallbackName(source);
  const ret = fallback ? `return typeof ${fallback} !== "undefined" ? ${fallback} : undefined;` : "return undefined;";
  const body = `"use strict";\nconst {${used.join(",")}} = __scope;\n` +
    `const __fallback = (function () {\n${code}\n;${ret}\n}).call(undefined);\n` +
    `return (module.exports && module.exports.default) || exports.default || __fallback;`;
  return { kind: "module", body };
}
