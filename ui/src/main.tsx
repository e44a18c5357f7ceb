import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App, readInboxEarly } from "./App";
import "./styles.css";

// For the benchmark: when the window's script began to run.
performance.mark("app-script");
const early = readInboxEarly();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App early={early} />
    </StrictMode>,
  );
  // For the benchmark: the first frame the window painted.
  requestAnimationFrame(() => setTimeout(() => performance.mark("app-painted"), 0));
}
