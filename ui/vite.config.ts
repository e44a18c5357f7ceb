import { defineConfig } from "vite";

// Vite compiles TSX itself; the app needs no plugin. Paths stay relative so the bundle
// loads from tauri://localhost.
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2021", sourcemap: false },
  clearScreen: false,
});
