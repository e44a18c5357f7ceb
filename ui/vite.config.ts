import { defineConfig } from "vite";

import { lucideIcons } from "./lucide-icons.mjs";
import { subresourceIntegrity } from "./sri.mjs";

// Vite compiles TSX itself; the app needs no plugin. Paths stay relative so the bundle
// loads from tauri://localhost.
export default defineConfig({
  base: "./",
  // The artifact scope's icons, for the tests that import it.
  // The phone page's files carry their hashes (it is served over a network).
  plugins: [lucideIcons(), subresourceIntegrity(["phone.html", "team.html"])],
  build: {
    outDir: "dist", emptyOutDir: true, target: "es2021", sourcemap: false,
    // The window, the phone page the phone's listener serves (decision 0023), and the team's
    // page a team console serves to its people (decision 0034).
    rollupOptions: { input: { index: "index.html", phone: "phone.html", team: "team.html" } },
  },
  clearScreen: false,
});
