import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { FileDiff } from "../api/types/FileDiff";
import type { RenderedDiff } from "../api/types/RenderedDiff";
import { DiffView } from "./DiffView";

/** A one-line file's diff as the core renders it. */
const rendered = (newFile: boolean): RenderedDiff => ({
  path: "/app/a.txt", new_file: newFile, added: 1, removed: 0, fallback: null,
  hunks: [{ old_start: 0, old_lines: 0, new_start: 1, new_lines: 1, lines: [
    { kind: "added", old_line: null, new_line: 1, segments: [{ text: "x", changed: false, marks: [] }], no_newline: false, more_marks: 0 },
  ] }],
});

function shown(file: FileDiff, newFile: boolean): string {
  return renderToStaticMarkup(<DiffView rendered={rendered(newFile)} file={file} marks={() => ({ marks: undefined })} />);
}

describe("a file's change", () => {
  it("over a file that could not be read says so, and never 'new file'", () => {
    const html = shown({ path: "/app/a.txt", old_text: null, new_text: "x\n",
      on_disk: { state: "unreadable", reason: "it is a named pipe (FIFO)" } }, false);
    expect(html).toContain("replaces an existing file (could not be read: it is a named pipe (FIFO))");
    expect(html).not.toContain("new file");
  });

  it("to a path with nothing there is a new file", () => {
    const html = shown({ path: "/app/a.txt", old_text: null, new_text: "x\n" }, true);
    expect(html).toContain("new file");
    expect(html).not.toContain("could not be read");
  });

  it("reached through a link names the link and where it points", () => {
    const html = shown({ path: "/tmp/proj/notes/settings.json", old_text: null, new_text: "x\n",
      through_link: { link: "/tmp/proj/notes", target: "/home/u/.claude" } }, true);
    expect(html).toContain("reached through the link");
    expect(html).toContain("/tmp/proj/notes");
    expect(html).toContain(", which points to ");
    expect(html).toContain("/home/u/.claude");
    const unknown = shown({ path: "/p/l/a", old_text: null, new_text: "x\n",
      through_link: { link: "/p/l", target: null } }, true);
    expect(unknown).toContain("(its target could not be read)");
    expect(shown({ path: "/app/a.txt", old_text: null, new_text: "x\n" }, true)).not.toContain("through the link");
  });
});
