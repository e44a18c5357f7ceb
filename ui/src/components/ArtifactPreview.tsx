import { convertFileSrc } from "@tauri-apps/api/core";
import { useEffect, useRef, useState } from "react";

import { MIN_HEIGHT, readFrameMessage } from "../lib/frame";

type Theme = "light" | "dark";
const DARK = "(prefers-color-scheme: dark)";

/** The app's theme, which follows the system's. */
function useTheme(): Theme {
  const [query] = useState(() => typeof window.matchMedia === "function" ? window.matchMedia(DARK) : null);
  const [theme, setTheme] = useState<Theme>(query?.matches ? "dark" : "light");
  useEffect(() => {
    if (!query) return;
    const on = (e: MediaQueryListEvent) => setTheme(e.matches ? "dark" : "light");
    query.addEventListener("change", on);
    return () => query.removeEventListener("change", on);
  }, [query]);
  return theme;
}

/** The artifact rendered live in a sandboxed frame: an opaque origin served by the shell's
 * `preview:` scheme with its own CSP, so the agent's code reaches nothing of the window.
 * The window sends it the source; it answers only with its height and its errors. */
export function ArtifactPreview({ code, compiled, version }: {
  code: string | null;
  /** The source as the first-render check compiled it, run as is; `null` when the check did
   * not run (the frame compiles it). */
  compiled: string | null;
  version: number;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const theme = useTheme();
  const [height, setHeight] = useState(MIN_HEIGHT);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const asked = useRef(false);
  const latest = useRef({ code, compiled, theme });
  latest.current = { code, compiled, theme };

  const send = (msg: object) => frame.current?.contentWindow?.postMessage(msg, "*");
  const render = () => {
    if (latest.current.code === null) return;
    setFailed(false);
    send({ type: "render", ...latest.current });
  };

  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      // Only the frame's own window, and only its three messages.
      if (!frame.current || e.source !== frame.current.contentWindow) return;
      const m = readFrameMessage(e.data);
      if (!m) return;
      // One `ready` per frame: the artifact runs in the frame too, and cannot have its
      // source sent again and again.
      if (m.type === "ready") {
        if (asked.current) return;
        asked.current = true;
        setReady(true);
        render();
      }
      else if (m.type === "resize") setHeight(m.height);
      else setFailed(true);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);
  // An agent's update renders in place.
  useEffect(() => { if (ready) render(); }, [code, version]);
  useEffect(() => { if (ready) send({ type: "theme", theme }); }, [theme]);

  return (
    <div className="preview" data-testid="artifact-preview" data-ready={ready} data-failed={failed} data-version={version}>
      <iframe ref={frame} src={convertFileSrc("index.html", "preview")} sandbox="allow-scripts"
        referrerPolicy="no-referrer" title="Artifact preview" data-testid="artifact-frame"
        style={{ height }} />
      {!ready && <p className="muted pad">Starting the preview…</p>}
      {failed && <p className="muted small-print" data-testid="preview-failed">The artifact reported an error while rendering; its message is in the preview above. The Source tab shows its code.</p>}
    </div>
  );
}
