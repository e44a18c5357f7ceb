// Subresource integrity for the phone page (decision 0025): every script and stylesheet its
// HTML loads carries the SHA-384 of the file built beside it, so the page runs only the code
// this build made, whatever answers for its files.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A Vite plugin that adds `integrity` to the `<script>` and `<link>` tags of the HTML pages
 * named in `pages`, for the files of the same build they load. */
export function subresourceIntegrity(pages) {
  return {
    name: "countersign-sri",
    enforce: "post",
    apply: "build",
    // Last among the build's plugins: Vite rewrites a chunk that imports another dynamically
    // (its preload list) in its own generateBundle, after which the hash must be taken.
    generateBundle: { order: "post", handler(_options, bundle) {
      const hashOf = (name) => {
        const item = bundle[name];
        if (!item) return null;
        const bytes = item.type === "chunk" ? item.code : item.source;
        return "sha384-" + createHash("sha384").update(bytes).digest("base64");
      };
      for (const page of pages) {
        const html = bundle[page];
        if (!html || html.type !== "asset") continue;
        let text = String(html.source);
        let missing = [];
        text = text.replace(/<(script|link)\b([^>]*?)\s(src|href)="\.\/([^"]+)"([^>]*)>/g, (tag, el, before, attr, path, after) => {
          if (/\bintegrity=/.test(tag)) return tag;
          const hash = hashOf(path);
          if (!hash) { missing.push(path); return tag; }
          return `<${el}${before} ${attr}="./${path}" integrity="${hash}"${after}>`;
        });
        if (missing.length > 0) {
          this.error(`${page} loads files this build did not make: ${missing.join(", ")}`);
        }
        html.source = text;
      }
    } },
    // The files as written, checked against the hashes their pages name: a plugin that changed
    // a file after the hash was taken fails the build here, not the phone's page.
    writeBundle(options) {
      for (const page of pages) {
        const html = readFileSync(join(options.dir, page), "utf8");
        for (const [, path, hash] of html.matchAll(/(?:src|href)="\.\/([^"]+)" integrity="([^"]+)"/g)) {
          const actual = "sha384-" + createHash("sha384").update(readFileSync(join(options.dir, path))).digest("base64");
          if (actual !== hash) this.error(`${page}: ${path} does not match its integrity hash`);
        }
      }
    },
  };
}
