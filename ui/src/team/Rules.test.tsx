import { describe, expect, it } from "vitest";

import type { Presented } from "../api/types/Presented";
import type { Machine, Me } from "./api";
import { firstWords, noRule, reaches, rulesOffered } from "./Rules";

function call(card: Record<string, unknown>, extra: Record<string, unknown> = {}): Presented {
  return {
    approval: { id: "apr_1", tool: "claude-code.Bash", digest: "sha256:ab", artifact_id: null, asked_with: "tok_1", call: card, ...extra },
    no_grant: null,
  } as unknown as Presented;
}

const machine: Machine = { id: "tok_1", name: "bob-laptop", owner: null, project: "web", revoked: false };
const me = (role: "approver" | "viewer", two: string[] = [], readsOnly = false): Me => ({
  team: "Platform team",
  person: { id: "prs_1", name: "alice", role } as Me["person"],
  policy: { prevent_self_review: true, two_approvals: two },
  reads_only: readsOnly,
});

describe("the team page's rule chooser", () => {
  it("offers a command's first plain words, never an option, a variable or a shell sign", () => {
    expect(firstWords("cargo test --release")).toEqual(["cargo", "test"]);
    expect(firstWords("  git push origin main")).toEqual(["git", "push"]);
    expect(firstWords("rm -rf /")).toEqual(["rm"]);
    expect(firstWords("FOO=1 make")).toEqual([]);
    expect(firstWords("echo $(id)")).toEqual(["echo"]);
    expect(firstWords("ls;reboot")).toEqual([]);
  });

  it("offers this exact call always, a prefix for a command, never any call to a tool", () => {
    const kinds = (p: Presented) => reaches(p).map((r) => r.reach.kind);
    expect(kinds(call({ card: "terminal", command: "cargo test" }))).toEqual(["exact", "command"]);
    expect(kinds(call({ card: "terminal", command: "cargo test", args: ["x"] }))).toEqual(["exact"]);
    expect(kinds(call({ card: "diff", diffs: [] }))).toEqual(["exact"]);
    expect(kinds(call({ card: "generic", title: "Create an issue" }))).toEqual(["exact"]);
    expect(reaches(call({ card: "terminal", command: "x" }))[0].reach).toEqual({ kind: "exact", digest: "sha256:ab" });
  });

  it("is offered to an approver for a machine's call, not where two approvals are needed", () => {
    const p = call({ card: "terminal", command: "cargo test" });
    expect(rulesOffered(p, machine, me("approver"))).toBe(true);
    expect(rulesOffered(p, machine, me("viewer"))).toBe(false);
    expect(rulesOffered(p, machine, me("approver", [], true))).toBe(false);
    expect(rulesOffered(p, machine, me("approver", ["web"]))).toBe(false);
    expect(rulesOffered(p, machine, me("approver", ["*"]))).toBe(false);
    expect(rulesOffered(p, machine, me("approver", ["payments"]))).toBe(true);
    expect(rulesOffered(p, undefined, me("approver"))).toBe(false);
    expect(rulesOffered(call({ card: "question", questions: [] }), machine, me("approver"))).toBe(false);
    expect(rulesOffered(call({ card: "terminal", command: "x" }, { artifact_id: "art_1" }), machine, me("approver"))).toBe(false);
    const hidden = { ...p, no_grant: "the call carries hidden characters" } as Presented;
    expect(noRule(hidden, machine, me("approver"))).toContain("hidden characters");
    expect(noRule(p, machine, me("approver", ["web"]))).toContain("project web need two");
    expect(noRule(p, undefined, me("approver"))).toContain("not known");
    expect(noRule(call({ card: "terminal", command: "x" }, { asked_with: null }), undefined, me("approver"))).toContain("console's own machine");
  });
});
