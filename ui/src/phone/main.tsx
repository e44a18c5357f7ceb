import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import "../styles.css";
import "./phone.css";
import { PhoneApp } from "./PhoneApp";

// The pairing code arrives in the address's fragment (never sent to a server). It is taken
// out of the address at once, so it stays in no history entry, bookmark or shared link.
const code = new URLSearchParams(location.hash.slice(1)).get("pair");
if (location.hash) history.replaceState(null, "", location.pathname + location.search);

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <PhoneApp code={code} />
    </StrictMode>,
  );
}
