import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import "../styles.css";
import "./phone.css";
import { Markdown } from "../components/Markdown";
import { PlanDrawing } from "../components/PlanText";
import { PhoneApp } from "./PhoneApp";

// The pairing code arrives in the address's fragment (never sent to a server). It is taken
// out of the address at once, so it stays in no history entry, bookmark or shared link.
const code = new URLSearchParams(location.hash.slice(1)).get("pair");
if (location.hash) history.replaceState(null, "", location.pathname + location.search);

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      {/* The phone loads the plan's parser with its page: every file it runs is pinned by hash. */}
      <PlanDrawing.Provider value={Markdown}>
        <PhoneApp code={code} />
      </PlanDrawing.Provider>
    </StrictMode>,
  );
}
