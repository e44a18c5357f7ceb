import { defineConfig } from "vite";

// The preview's compiler (Sucrase), beside its runtime in dist-preview: the frame loads it only
// for an artifact the first-render check did not compile.
export default defineConfig({
  build: {
    outDir: "dist-preview",
    emptyOutDir: false,
    target: "es2021",
    sourcemap: false,
    lib: { entry: "src/preview/compiler.ts", formats: ["iife"], name: "CountersignCompiler", fileName: () => "compiler.js" },
  },
  clearScreen: false,
});
