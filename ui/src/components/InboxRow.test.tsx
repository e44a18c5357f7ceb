import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { InboxGroup } from "../api/types/InboxGroup";
import type { Mark } from "../api/types/Mark";
import type { Presented } from "../api/types/Presented";
import { clashing, head, HistoryRow, InboxRow, projectName } from "./InboxRow";

const rlo: Mark = { start: 0, end: 0, kind: "bidi", label: "U+202E RIGHT-TO-LEFT OVERRIDE" } as Mark;
const at = (start: number, end: number): Mark => ({ ...rlo, start, end });

function terminal(command: string, marks: Mark[], hidden = marks.length): Presented {
  return {
    approval: { id: "01J", tool: "codex.shell", call: { card: "terminal", title: "Run", command }, hidden_marks: hidden },
    marks: marks.length > 0 ? { "call.command": marks } : {},
    more_marks: {},
    coverage: { unshown: [], disagree: [] },
  } as unknown as Presented;
}

const codex: InboxGroup = { agent: "Codex", project: "/home/me/src/api-server", agent_marks: [], project_marks: [], agent_more: 0, project_more: 0 };

function row(p: Presented | undefined, group = codex): string {
  return renderToStaticMarkup(<InboxRow id="01J" group={group} createdAt={Date.now()} p={p} selected={false} onSelect={() => {}} />);
}

describe("a row of the inbox's list", () => {
  it("keeps a short text and its marks whole", () => {
    expect(head("ls \u202E", [at(3, 6)])).toEqual({ text: "ls \u202E", marks: [at(3, 6)], cut: false });
  });

  it("cuts a long text, keeping the marks before the cut and never splitting one", () => {
    const long = `${"a".repeat(238)}\u001b[31m${"b".repeat(500)}`;
    // The escape sequence's mark straddles the 240th character: the cut comes before it.
    const h = head(long, [at(2, 5), at(238, 243), at(300, 303)]);
    expect(h.cut).toBe(true);
    expect(h.text).toBe("a".repeat(238));
    expect(h.marks).toEqual([at(2, 5)]);
    // A surrogate pair at the cut is never halved.
    const emoji = `${"a".repeat(239)}😀${"b".repeat(10)}`;
    expect(head(emoji, []).text).toBe("a".repeat(239));
  });

  it("shows a hidden character in the command as a mark, and ⚠ with why", () => {
    const html = row(terminal("echo hi\u202Edone", [at(7, 10)]));
    expect(html).toContain("⟨U+202E RIGHT-TO-LEFT OVERRIDE⟩");
    expect(html).not.toContain("\u202E");
    expect(html).toContain('data-testid="row-warning"');
    expect(html).toContain("1 hidden character");
    expect(html).toContain("api-server");
  });

  it("marks a hidden character in the agent's name even before the card is read", () => {
    const html = row(undefined, { ...codex, agent: "Co\u202Edex", agent_marks: [at(2, 5)] });
    expect(html).toContain('<span>Co</span><span class="mark mark-bidi"');
    expect(html).not.toContain("\u202E");
    expect(html).toContain("Loading…");
    expect(html).not.toContain('data-testid="row-warning"');
  });

  it("names a project by its last folder", () => {
    expect(projectName("/home/me/src/api-server/")).toBe("api-server");
    expect(projectName("C:\\work\\web")).toBe("web");
    expect(projectName("/")).toBe("/");
  });

  it("never draws text past the marks a field lists when it carries more than it lists", () => {
    const p = terminal("ls x\u200By\u200Bz", [at(4, 7)]);
    (p.more_marks as Record<string, number>)["call.command"] = 1;
    const html = row(p);
    // Up to the last listed mark, then a word that the rest is hidden: "z" and its
    // unlisted zero-width space are not drawn.
    expect(html).toContain("ls x");
    expect(html).toContain("more hidden characters");
    expect(html).not.toContain("z</");
    expect(html).not.toContain("\u200B");
  });

  it("shows the whole path of projects whose last folder another group shares", () => {
    const g = (agent: string, project: string | null) => ({ ...codex, agent, project });
    const clash = clashing([g("Codex", "/a/api"), g("Codex", "/b/api"), g("Codex", "/c/web"), g("Gemini", "/a/api"), g("Codex", null)]);
    expect([...clash].sort()).toEqual([JSON.stringify(["Codex", "/a/api"]), JSON.stringify(["Codex", "/b/api"])].sort());
  });
});

describe("a row of History", () => {
  function decided(extra: object): string {
    const p = terminal("ls", []);
    const approval = {
      ...p.approval, status: "approved", decided_by: "person", decided_at: Date.now(),
      requester: { name: "Codex", cwd: "/srv/app" }, ...extra,
    };
    return renderToStaticMarkup(<HistoryRow p={{ ...p, approval } as unknown as Presented} selected={false} onSelect={() => {}} />);
  }

  it("names the phone a decision was made on, and only then", () => {
    expect(decided({ decided_on: "Anna's phone" })).toContain('title="by you on Anna&#x27;s phone"');
    expect(decided({ decided_on: "Anna's phone", decided_from: "192.168.1.23" }))
      .toContain('title="by you on Anna&#x27;s phone (from 192.168.1.23)"');
    expect(decided({})).toContain('title="by you"');
  });
});
