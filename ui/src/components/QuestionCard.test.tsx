import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { Presented } from "../api/types/Presented";
import { ApprovalCard, type CardActions } from "./ApprovalCard";

const actions: CardActions = {
  decide: async () => {}, openArtifact: () => {}, artifactTitle: () => undefined, report: () => {},
};

function card(call: unknown, more: Record<string, unknown> = {}): Presented {
  return {
    approval: {
      id: "apr_1", tool: "claude-code.AskUserQuestion", tool_parts: null, artifact_id: null,
      requester: { name: "Claude Code", session: null, cwd: null },
      call, raw_input: null, status: "pending", digest: "sha256:1", hidden_marks: 0, decided_by: null,
      reason: null, granted: null, created_at: 0, expires_at: Date.now() + 60_000, decided_at: null,
      result: null, result_at: null, call_id: null, parent: null, ...more,
    },
    diffs: [], raw_input_json: null, result_diffs: [], result_value_json: null, parent: null, nested: [],
    nested_count: 0, marks: {}, more_marks: {}, coverage: { unshown: [], disagree: [] }, no_grant: null,
    offers: {} as Presented["offers"],
  } as unknown as Presented;
}

const question = {
  card: "question", title: "Claude Code asks",
  questions: [
    { header: "Framework", question: "Which framework?", multi_select: false, other: true,
      options: [{ label: "React", description: "Component library" }, { label: "Vue" }] },
    { question: "Which sections?", multi_select: true, other: false,
      options: [{ label: "Introduction" }, { label: "Conclusion" }] },
  ],
};

describe("a question card", () => {
  it("shows each question as asked, its options to pick by key, and sends only once all are answered", () => {
    const html = renderToStaticMarkup(<ApprovalCard p={card(question)} actions={actions} armed />);
    expect(html).toContain("Which framework?");
    expect(html).toContain("Component library");
    expect(html).toContain('type="radio"');
    expect(html).toContain('type="checkbox"');
    expect(html).toContain('data-testid="other"');
    // Nothing chosen yet: Send waits, and there is no Approve and no rule to make.
    expect(html).toMatch(/<button[^>]*disabled=""[^>]*data-testid="send-answers"/);
    expect(html).not.toContain('data-testid="approve"');
    expect(html).not.toContain('data-testid="approve-always"');
    expect(html).toContain("no rule is made from it");
  });

  it("keeps the answers in its outcome", () => {
    const p = card(question, {
      status: "approved", decided_by: "person", decided_at: 1,
      given: { kind: "answers", answers: [{ chosen: [], other: "Svelte" }, { chosen: [0, 1] }] },
    });
    const html = renderToStaticMarkup(<ApprovalCard p={p} actions={actions} armed />);
    expect(html).toContain('data-testid="given-answers"');
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain("“Svelte”");
    expect(text).toContain("Introduction, Conclusion");
  });
});

describe("a plan card", () => {
  it("shows the plan's Markdown as text, never as HTML, with the agent's choices", () => {
    const plan = {
      card: "plan", title: "Claude Code's plan", feedback: true, modes: [],
      plan: "## Steps\n<script>alert(1)</script>\n![x](http://h/i.png)",
    };
    const html = renderToStaticMarkup(<ApprovalCard p={card(plan)} actions={actions} armed />);
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain('data-testid="approve-plan"');
    expect(html).toContain("Keep planning…");
  });
});

describe("an editable call", () => {
  const terminal = { card: "terminal", title: "Run", command: "git push --force", options: { shell: "bash" } };

  it("offers its edit at the desk only, and says why where there is none", () => {
    const editable = { ...card(terminal), edit: "command", no_edit: null } as Presented;
    const desk = renderToStaticMarkup(<ApprovalCard p={editable} actions={actions} armed />);
    expect(desk).toContain('data-testid="edit"');
    const phone = renderToStaticMarkup(<ApprovalCard p={editable} actions={actions} armed onPhone />);
    expect(phone).not.toContain('data-testid="edit"');
    expect(phone).toContain("editing the call stay at the desk");
    expect(desk).not.toContain('data-testid="note"');
    const noted = renderToStaticMarkup(<ApprovalCard p={{ ...editable, note: true }} actions={actions} armed />);
    expect(noted).toContain("Approve with a note…");
    const fixed = { ...card(terminal), edit: null, no_edit: "this agent's answer cannot carry a changed call" } as Presented;
    const none = renderToStaticMarkup(<ApprovalCard p={fixed} actions={actions} armed />);
    expect(none).not.toContain('data-testid="edit"');
    expect(none).toContain("No edit here: this agent&#x27;s answer cannot carry a changed call");
  });

  it("keeps both versions in its outcome", () => {
    const p = {
      ...card(terminal, {
        status: "approved", decided_by: "person", decided_at: 1,
        given: { kind: "edited", edit: { kind: "command", command: "git push" }, digest: "sha256:e" },
      }),
      edit: "command", no_edit: null,
      edited_diff: { path: "command", new_file: false, added: 1, removed: 1, hunks: [], fallback: null },
    } as unknown as Presented;
    const html = renderToStaticMarkup(<ApprovalCard p={p} actions={actions} armed />);
    expect(html).toContain('data-testid="given-edit"');
    expect(html).toContain("sha256:e");
    expect(html).toContain("The agent&#x27;s call: digest");
  });
});
