import { defineConfig } from "vite";

import { lucideIcons } from "./lucide-icons.mjs";

// The first-render check's script, for QuickJS inside the console: the artifact scope and
// React's server renderer in one file with no browser globals assumed.
export default defineConfig({
  plugins: [lucideIcons()],
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  // Component stacks name the scope's components, not their minified names.
  esbuild: { keepNames: true },
  resolve: { conditions: ["browser", "import", "default"] },
  build: {
    outDir: "dist-check",
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    minify: true,
    lib: { entry: "src/check/check.tsx", formats: ["iife"], name: "CountersignCheck", fileName: () => "check.js" },
  },
  clearScreen: false,
});
