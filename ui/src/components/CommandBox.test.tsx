import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { Mark } from "../api/types/Mark";
import type { Presented } from "../api/types/Presented";
import type { ReadingRefs } from "../lib/reading";
import { ApprovalCard, type CardActions } from "./ApprovalCard";
import { CommandBox, commandSize, sizeLine } from "./CommandBox";
import { Verbatim } from "./Verbatim";

const refs: ReadingRefs = { box: () => {}, end: () => {}, right: () => {}, overflow: { tall: false, wide: false } };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `echo step ${i + 1}`).join("\n");

describe("a command box", () => {
  it("counts lines, characters (not UTF-16 units) and the widest line", () => {
    expect(commandSize("ls")).toEqual({ lines: 1, chars: 2, widest: 2 });
    expect(commandSize("a\nbcd\n")).toEqual({ lines: 3, chars: 6, widest: 3 });
    expect(commandSize("é😀")).toEqual({ lines: 1, chars: 2, widest: 2 });
    expect(sizeLine(commandSize(lines(300)), false)).toBe(`300 lines, ${(lines(300).length).toLocaleString("en-US")} characters`);
    expect(sizeLine({ lines: 1, chars: 9812, widest: 9812 }, true)).toBe("1 line, 9,812 characters, widest line 9,812 characters");
  });

  it("says the size of a command taller than the box, and ends with the sentinel after the last character", () => {
    const text = lines(300);
    const html = renderToStaticMarkup(<CommandBox text={text} refs={refs} />);
    expect(html).toContain('data-testid="command-size"');
    expect(html).toContain("300 lines");
    const end = html.indexOf('data-testid="command-end"');
    expect(end).toBeGreaterThan(html.indexOf("echo step 300"));
    expect(html).not.toContain("command-elided");
  });

  it("says nothing about the size of a short command", () => {
    expect(renderToStaticMarkup(<CommandBox text="cargo test" refs={refs} />)).not.toContain("command-size");
  });

  it("shows a command too long to draw whole as head and last lines, the middle one click away", () => {
    const text = lines(20_000);
    const html = renderToStaticMarkup(<CommandBox text={text} refs={refs} />);
    expect(html).toContain('data-testid="command-elided"');
    expect(html).toMatch(/\d[\d,]* lines, [\d,]+ bytes not shown/);
    expect(html).toContain("echo step 1\n");
    expect(html).toContain("echo step 20000");
    expect(html).toContain('data-testid="command-show-all"');
  });
});

describe("marks past the cap", () => {
  it("lists the marks given and says how many more there are where they end", () => {
    const text = "\r".repeat(1500);
    const marks: Mark[] = Array.from({ length: 1000 }, (_, i) => ({ start: i, end: i + 1, kind: "control", label: "U+000D CARRIAGE RETURN" }));
    const html = renderToStaticMarkup(<Verbatim text={text} marks={marks} more={500} />);
    expect(html.match(/data-testid="hidden-mark"/g)).toHaveLength(1000);
    expect(html).toContain("and 500 more hidden characters, not marked one by one");
    expect(html.indexOf("marks-more-inline")).toBeGreaterThan(html.lastIndexOf("hidden-mark"));
  });
});

function terminalCard(command: string): Presented {
  return {
    approval: {
      id: "apr_1", tool: "x.Bash", tool_parts: null, artifact_id: null,
      requester: { name: "agent", session: null, cwd: null },
      call: { card: "terminal", title: "Run", command },
      raw_input: null, status: "pending", digest: "sha256:1", hidden_marks: 0, decided_by: null, reason: null,
      granted: null, created_at: 0, expires_at: Date.now() + 60_000, decided_at: null, result: null, result_at: null,
      call_id: null, parent: null,
    },
    diffs: [], raw_input_json: null, result_diffs: [], result_value_json: null, parent: null, nested: [],
    nested_count: 0, marks: {}, more_marks: {}, coverage: { unshown: [], disagree: [] }, no_grant: null,
    offers: {} as Presented["offers"],
  } as unknown as Presented;
}

const actions: CardActions = {
  decide: async () => {}, openArtifact: () => {}, artifactTitle: () => undefined, report: () => {},
};

describe("the Approve button of a command", () => {
  it("waits, saying why, until the command's end has been on screen", () => {
    const html = renderToStaticMarkup(<ApprovalCard p={terminalCard(lines(300))} actions={actions} armed />);
    expect(html).toContain("Scroll to the end of the command to approve");
    expect(html).toContain('data-waits="end"');
    expect(html).toContain('data-read-to-end="false"');
    // Declining never waits.
    expect(html).toMatch(/data-testid="decline"[^>]*>Decline…/);
  });

  it("does not wait on a card with no command to read", () => {
    const p = terminalCard("ls");
    const generic = { ...p, approval: { ...p.approval, call: { card: "generic", title: "Call" } } } as unknown as Presented;
    const html = renderToStaticMarkup(<ApprovalCard p={generic} actions={actions} armed />);
    expect(html).toMatch(/data-testid="approve"[^>]*>Approve <kbd>a<\/kbd>/);
    expect(html).not.toContain("Scroll to the end");
  });
});
