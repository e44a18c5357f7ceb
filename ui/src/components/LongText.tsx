import { useState } from "react";

import type { Mark } from "../api/types/Mark";
import { Verbatim } from "./Verbatim";

/** Texts up to this size are shown whole. */
const WHOLE_BYTES = 64 * 1024;
/** Of a longer text, this much of the start and of the end is shown. */
const PART_BYTES = 16 * 1024;

const encoder = new TextEncoder();

interface Elided { head: string; tail: string; lines: number; bytes: number }

/** The first and last lines of a long text, and what is left out between them. */
export function elide(text: string): Elided | null {
  const total = encoder.encode(text).length;
  if (total <= WHOLE_BYTES) return null;
  const lines = text.split("\n");
  let i = 0, headBytes = 0;
  while (i < lines.length && headBytes + encoder.encode(lines[i]).length + 1 <= PART_BYTES) headBytes += encoder.encode(lines[i++]).length + 1;
  let j = lines.length, tailBytes = 0;
  while (j > i && tailBytes + encoder.encode(lines[j - 1]).length + 1 <= PART_BYTES) tailBytes += encoder.encode(lines[--j]).length + 1;
  // One enormous line: cut by characters instead of lines.
  if (i === 0 && j === lines.length) {
    const head = text.slice(0, PART_BYTES / 4), tail = text.slice(-PART_BYTES / 4);
    return { head, tail, lines: 0, bytes: total - encoder.encode(head).length - encoder.encode(tail).length };
  }
  const head = lines.slice(0, i).join("\n"), tail = lines.slice(j).join("\n");
  return { head, tail, lines: j - i, bytes: total - headBytes - tailBytes };
}

/** The marks that fall inside `[from, to)` (UTF-8 byte offsets), relative to `from`. */
function within(marks: Mark[] | undefined, from: number, to: number): Mark[] {
  return (marks ?? [])
    .filter((m) => m.start >= from && m.end <= to)
    .map((m) => ({ ...m, start: m.start - from, end: m.end - from }));
}

/** A result's text: whole when short, else head and tail with what was left out said, and
 * "Show all" one click away. Nothing is cut silently; hidden characters show as marks. */
export function LongText({ text, marks }: { text: string; marks?: Mark[] }) {
  const [all, setAll] = useState(false);
  const cut = all ? null : elide(text);
  if (!cut) return <pre className="output mono" data-testid="result-text"><Verbatim text={text} marks={marks} /></pre>;
  const total = encoder.encode(text).length;
  const headEnd = encoder.encode(cut.head).length;
  const tailStart = total - encoder.encode(cut.tail).length;
  return (
    <div className="long-text">
      <pre className="output mono" data-testid="result-head"><Verbatim text={cut.head} marks={within(marks, 0, headEnd)} /></pre>
      <div className="elided" data-testid="elided">
        … {cut.lines > 0 ? `${cut.lines.toLocaleString()} lines, ` : ""}{cut.bytes.toLocaleString()} bytes not shown …
        <button className="small" onClick={() => setAll(true)} data-testid="show-all">Show all</button>
      </div>
      <pre className="output mono" data-testid="result-tail"><Verbatim text={cut.tail} marks={within(marks, tailStart, total)} /></pre>
    </div>
  );
}
