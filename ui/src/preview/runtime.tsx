// The artifact preview: runs inside a sandboxed frame (an opaque origin with its own CSP, no
// network), renders the artifact the window sends (as the first-render check compiled it, or
// compiled here when the check did not run) with the artifact scope and runtime Tailwind, and
// reports only its height and its errors back.
import "@tailwindcss/browser";
import { Component, useLayoutEffect, type ErrorInfo, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

import type { Compiled, compile } from "../artifact/compile";
import { asJson } from "../artifact/source";
import { NO_TOOLS, modules, requireFrom, scope, toolsProxy } from "../artifact/scope";

type Theme = "light" | "dark";
type Render = { type: "render"; code: string; compiled: string | null; theme: Theme };

performance.mark("runtime-start");

type Outgoing =
  | { type: "ready" }
  | { type: "resize"; height: number }
  | { type: "error"; message: string; stack: string };
/** Where the runtime runs other than the window's frame (an MCP Apps view), the page sets a
 * host that carries its messages; the window's frame talks to its parent. */
type Host = { post(message: Outgoing): void; listen(receive: (data: unknown) => void): void };
const w = window as unknown as { countersignHost?: Host; countersignInbox?: unknown[] };
const host = w.countersignHost;
delete w.countersignHost;
const parent = window.parent;
const toParent = parent.postMessage.bind(parent);
const post = (message: Outgoing) => (host ? host.post(message) : toParent(message, "*"));
const tools = toolsProxy(() => Promise.reject(new Error(NO_TOOLS)));
const table = modules(tools);
const shared = scope(tools);
const names = Object.keys(shared);
const root = createRoot(document.getElementById("root")!);

class Boundary extends Component<{ children: ReactNode }, { error: Error | null; stack: string }> {
  state = { error: null as Error | null, stack: "" };
  static getDerivedStateFromError(error: Error) { return { error, stack: "" }; }
  componentDidCatch(error: Error, info: ErrorInfo) {
    const stack = info.componentStack ?? "";
    this.setState({ error, stack });
    post({ type: "error", message: String(error?.message ?? error), stack });
  }
  render() {
    const { error, stack } = this.state;
    if (!error) return this.props.children;
    return <Failure title="This artifact failed to render" message={String(error.message ?? error)} stack={stack} />;
  }
}

function Failure({ title, message, stack }: { title: string; message: string; stack?: string }) {
  return (
    <div data-testid="artifact-error" style={{ border: "1px solid #e3b341", background: "#fff4d6", color: "#6b4a00", borderRadius: 8, padding: 12, font: "13px system-ui" }}>
      <strong>{title}</strong>
      <pre style={{ whiteSpace: "pre-wrap", margin: "8px 0 0", font: "12px ui-monospace, monospace" }}>{message}</pre>
      {stack && <pre style={{ whiteSpace: "pre-wrap", margin: "8px 0 0", font: "11px ui-monospace, monospace", opacity: 0.8 }}>{stack.trim()}</pre>}
    </div>
  );
}

/** Runs the compiled body as an inline script (the frame's CSP allows inline scripts, never
 * `eval`), and returns what it defines. */
function evaluate(body: string): unknown {
  const slot = `__artifact${Math.random().toString(36).slice(2)}`;
  const script = document.createElement("script");
  script.textContent = `window.${slot} = function (require, exports, module, __scope) {\n${body}\n};`;
  document.head.appendChild(script);
  script.remove();
  const run = (window as unknown as Record<string, unknown>)[slot] as
    ((r: unknown, e: unknown, m: unknown, s: unknown) => unknown) | undefined;
  delete (window as unknown as Record<string, unknown>)[slot];
  if (typeof run !== "function") throw new Error("the artifact did not compile to a script");
  const exports: Record<string, unknown> = {};
  return run(requireFrom(table), exports, { exports }, shared);
}

function setTheme(theme: Theme) {
  document.documentElement.classList.toggle("dark", theme === "dark");
  document.documentElement.style.colorScheme = theme;
}

/** The compiler, loaded from the preview's own scheme the first time it is needed. */
let compiler: Promise<typeof compile> | null = null;
function loadCompiler(): Promise<typeof compile> {
  // A page that carries the compiler inline (the MCP Apps view) has it already.
  const present = (window as unknown as { countersignCompile?: typeof compile }).countersignCompile;
  if (compiler === null && typeof present === "function") {
    delete (window as unknown as { countersignCompile?: typeof compile }).countersignCompile;
    compiler = Promise.resolve(present);
  }
  compiler ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "compiler.js";
    script.onload = () => {
      const w = window as unknown as { countersignCompile?: typeof compile };
      const found = w.countersignCompile;
      delete w.countersignCompile;
      if (typeof found === "function") resolve(found);
      else reject(new Error("the preview's compiler did not load"));
    };
    script.onerror = () => reject(new Error("the preview's compiler did not load"));
    document.head.appendChild(script);
  });
  return compiler;
}

/** Marks when the artifact's first render reached the screen: the frame after its commit,
 * once painted (benchmarks read the mark). */
function Painted() {
  useLayoutEffect(() => {
    performance.mark("artifact-committed");
    requestAnimationFrame(() => setTimeout(() => performance.mark("artifact-painted"), 0));
  }, []);
  return null;
}

function showJson(value: unknown) {
  root.render(<pre data-testid="artifact-json" style={{ font: "12px ui-monospace, monospace", whiteSpace: "pre-wrap" }}>{JSON.stringify(value, null, 2)}</pre>);
}

/** The render asked for last: an older one still compiling is dropped. */
let latest = 0;

async function show(msg: Render) {
  const ask = ++latest;
  setTheme(msg.theme);
  performance.mark("render-asked");
  const json = asJson(msg.code);
  if (json) {
    showJson(json.value);
    return;
  }
  let compiled: Compiled;
  if (msg.compiled !== null) compiled = { kind: "module", body: msg.compiled };
  else {
    try {
      compiled = (await loadCompiler())(msg.code, names);
    } catch (e) {
      compiled = { kind: "error", message: e instanceof Error ? e.message : String(e) };
    }
    if (ask !== latest) return;
  }
  performance.mark("compiled");
  switch (compiled.kind) {
    case "json":
      showJson(compiled.value);
      return;
    case "error":
      root.render(<Failure title="This artifact does not compile" message={compiled.message} />);
      post({ type: "error", message: compiled.message, stack: "" });
      return;
    case "module": {
      let Artifact: unknown;
      try {
        Artifact = evaluate(compiled.body);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        root.render(<Failure title="This artifact failed to load" message={message} />);
        post({ type: "error", message, stack: "" });
        return;
      }
      if (typeof Artifact !== "function" && typeof Artifact !== "object") {
        const message = "the artifact defines no component: export one as default, or name it App";
        root.render(<Failure title="Nothing to render" message={message} />);
        return;
      }
      const El = Artifact as React.ComponentType;
      // A new key: an update replaces the component's state with a fresh render.
      root.render(<Boundary key={Math.random()}><Painted /><div data-testid="artifact-root"><El /></div></Boundary>);
    }
  }
}

function receive(data: unknown) {
  const msg = data as { type?: unknown; code?: unknown; compiled?: unknown; theme?: unknown } | null;
  if (!msg) return;
  const theme: Theme = msg.theme === "dark" ? "dark" : "light";
  if (msg.type === "theme") setTheme(theme);
  else if (msg.type === "render" && typeof msg.code === "string") {
    const compiled = typeof msg.compiled === "string" ? msg.compiled : null;
    void show({ type: "render", code: msg.code, compiled, theme });
  }
}

new ResizeObserver(() => post({ type: "resize", height: document.documentElement.scrollHeight }))
  .observe(document.body);
if (host) host.listen(receive);
else {
  window.addEventListener("message", (e: MessageEvent) => {
    if (e.source === parent) receive(e.data);
  });
  // The page asked for the artifact before this script loaded, and kept what came back.
  const early = w.countersignInbox;
  delete w.countersignInbox;
  if (Array.isArray(early)) early.forEach(receive);
  else post({ type: "ready" });
}
