// Subresource integrity for the phone page (decision 0025): every script and stylesheet its
// HTML loads carries the SHA-384 of the file built beside it, so the page runs only the code
// this build made, whatever answers for its files.
import { createHash } from "node:crypto";

/** A Vite plugin that adds `integrity` to the `<script>` and `<link>` tags of the HTML pages
 * named in `pages`, for the files of the same build they load. */
export function subresourceIntegrity(pages) {
  return {
    name: "countersign-sri",
    enforce: "post",
    apply: "build",
    generateBundle(_options, bundle) {
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
    },
  };
}
