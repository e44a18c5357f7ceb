import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { ResultView } from "../api/types/ResultView";
import { ResultBody } from "./ResultBody";

/** The result as the window shows it, as HTML. */
function shown(result: ResultView, valueJson: string | null = null): string {
  return renderToStaticMarkup(<ResultBody result={result} diffs={[]} valueJson={valueJson} marks={() => ({})} />);
}

/** Where each test id appears in the HTML, in order. */
function order(html: string, ids: string[]): number[] {
  return ids.map((id) => html.indexOf(`data-testid="${id}"`));
}

describe("a result card", () => {
  it("shows logs only, line by line, and no 'no output' marker", () => {
    const html = shown({ card: "generic", logs: ["fetching 3 issues", "done"] });
    expect(html).toContain("Logged (2 lines)");
    expect(html).toContain("fetching 3 issues\ndone");
    expect(html).not.toContain("no-output");
    expect(html).not.toContain("result-value");
  });

  it("shows a return value only", () => {
    const html = shown({ card: "generic", value: { created: 3 } }, '{\n  "created": 3\n}');
    expect(html).toContain("Returned");
    expect(html).toContain("&quot;created&quot;: 3");
    expect(html).not.toContain("result-logs");
    expect(html).not.toContain("no-output");
  });

  it("shows the logs first, then the return value", () => {
    const html = shown({ card: "generic", logs: ["a", "b"], value: "created 3" }, '"created 3"');
    const [logs, value] = order(html, ["result-logs", "result-value"]);
    expect(logs).toBeGreaterThan(-1);
    expect(value).toBeGreaterThan(logs);
  });

  it("says 'No output.' when there is nothing, for every kind of card", () => {
    expect(shown({ card: "generic" })).toContain('data-testid="no-output"');
    expect(shown({ card: "generic", content: [] })).toContain('data-testid="no-output"');
    expect(shown({ card: "terminal", exit_code: 0 })).toContain('data-testid="no-output"');
    expect(shown({ card: "terminal", output: "" })).toContain('data-testid="no-output"');
  });

  it("spills a long output as head and tail, saying how much is left out", () => {
    const output = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n");
    const html = shown({ card: "terminal", output, exit_code: 0 });
    expect(html).toContain('data-testid="result-head"');
    expect(html).toContain('data-testid="result-tail"');
    const elided = /(\d[\d,]*) lines, (\d[\d,]*) bytes not shown/.exec(html);
    expect(elided).not.toBeNull();
    const lines = Number(elided![1].replace(/,/g, ""));
    expect(lines).toBeGreaterThan(15_000);
    expect(html).toContain("line 0\n");
    expect(html).toContain("line 19999");
    expect(html).toContain('data-testid="show-all"');
  });

  it("shows a failed command's exit code and output, and a failed call's error after its logs", () => {
    const cmd = shown({ card: "terminal", output: "error[E0308]: mismatched types", exit_code: 101 });
    expect(cmd).toMatch(/<span class="bad">exit code 101<\/span>/);
    expect(cmd).toContain("mismatched types");
    const call = shown({ card: "generic", logs: ["calling the API"], error: "HTTP 403" });
    const [logs, error] = order(call, ["result-logs", "result-error"]);
    expect(error).toBeGreaterThan(logs);
    expect(call).toContain("HTTP 403");
    expect(call).not.toContain("no-output");
  });

  it("keeps standard output and standard error apart, and says when a command was interrupted", () => {
    const html = shown({ card: "terminal", output: "ok", stderr: "warning: x", interrupted: true });
    expect(html).toContain("Standard output");
    expect(html).toContain("Standard error");
    expect(html).toContain("interrupted before it finished");
  });
});
