import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import "../styles.css";
import "../phone/phone.css";
import "./team.css";
import { Markdown } from "../components/Markdown";
import { PlanDrawing } from "../components/PlanText";
import { TeamApp } from "./TeamApp";

// An invitation arrives in the address's fragment (never sent to a server). It is taken out of
// the address at once, so it stays in no history entry, bookmark or shared link.
const fragment = new URLSearchParams(location.hash.slice(1));
const invitation = fragment.get("invite");
// A call to open, as Countersign's window opens the page for a person to decide it.
const call = fragment.get("call");
if (location.hash) history.replaceState(null, "", location.pathname + location.search);

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <PlanDrawing.Provider value={Markdown}>
        <TeamApp invitation={invitation} call={call} />
      </PlanDrawing.Provider>
    </StrictMode>,
  );
}
