import { defineConfig } from "vite";

import { lucideIcons } from "./lucide-icons.mjs";

// The artifact preview's runtime: one script, served to the sandboxed frame by the shell's
// `preview:` scheme with the frame's own CSP. Nothing in it is fetched at run time but the
// compiler (vite.compiler.config.ts), from the same scheme, for artifacts the check did not compile.
export default defineConfig({
  plugins: [lucideIcons()],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  // Component stacks name the scope's components, not their minified names.
  esbuild: { keepNames: true },
  build: {
    outDir: "dist-preview",
    emptyOutDir: true,
    target: "es2021",
    sourcemap: false,
    lib: { entry: "src/preview/runtime.tsx", formats: ["iife"], name: "CountersignPreview", fileName: () => "runtime.js" },
  },
  clearScreen: false,
});
