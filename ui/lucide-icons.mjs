// A Vite plugin for `virtual:lucide-icons`: every lucide-react icon as a JSON string, parsed and
// made into a component only when artifact code first names it. Creating all of them up front
// (what `import * as Lucide from "lucide-react"` does) costs the preview frame about 125 ms and
// the check's engine as much again, for the two or three icons an artifact uses.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const ID = "virtual:lucide-icons";
const RESOLVED = "\0" + ID;

/** Every exported icon name (aliases included) → its icon file, from the package's index. */
async function iconExports(esm) {
  const index = await readFile(join(esm, "lucide-react.mjs"), "utf8");
  const byFile = new Map();
  for (const m of index.matchAll(/^export \{ (.+) \} from '\.\/icons\/([\w-]+)\.mjs';$/gm)) {
    const names = m[1].split(", ").map((part) => part.replace(/^default as /, ""));
    byFile.set(m[2], names);
  }
  if (byFile.size < 1000) throw new Error(`lucide-react's index lists only ${byFile.size} icons: its layout changed`);
  return byFile;
}

export function lucideIcons() {
  return {
    name: "countersign-lucide-icons",
    resolveId: (id) => (id === ID ? RESOLVED : null),
    async load(id) {
      if (id !== RESOLVED) return null;
      const require = createRequire(import.meta.url);
      const esm = join(dirname(require.resolve("lucide-react/package.json")), "dist/esm");
      const data = [];
      const names = {};
      for (const [file, aliases] of await iconExports(esm)) {
        const mod = await import(pathToFileURL(join(esm, "icons", `${file}.mjs`)).href);
        if (!mod.__iconData) throw new Error(`lucide-react icon ${file} has no __iconData`);
        for (const name of aliases) names[name] = data.length;
        data.push(mod.__iconData);
      }
      return [
        `export const ICON_INDEX = ${JSON.stringify(names)};`,
        // One JSON string per icon: only the icons an artifact names are ever parsed.
        `export const ICON_DATA = ${JSON.stringify(data.map((d) => JSON.stringify(d)))};`,
      ].join("\n");
    },
  };
}
