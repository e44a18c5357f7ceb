import { useState } from "react";

import type { Mark } from "../api/types/Mark";
import { Verbatim } from "./Verbatim";

/** Texts up to this size are shown whole. */
const WHOLE_BYTES = 64 * 1024;
/** Of a longer text, this much of the start and of the end is shown. */
const PART_BYTES = 16 * 1024;

const encoder = new TextEncoder();

export interface Elided { head: string; tail: string; lines: number; bytes: number }

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
export function within(marks: Mark[] | undefined, from: number, to: number): Mark[] {
  return (marks ?? [])
    .filter((m) => m.start >= from && m.end <= to)
    .map((m) => ({ ...m, start: m.start - from, end: m.end - from }));
}

/** Where the listed marks end (UTF-8 bytes): past it a field's marks are counted, not listed. */
function listedEnd(marks: Mark[] | undefined): number {
  return marks && marks.length > 0 ? marks[marks.length - 1].end : 0;
}

/** The marks of a head (`[0, headEnd)`) or tail (`[tailStart, total)`) shown of a long text,
 * with the count of marks past the listed ones: on the head when they end in it, and always on
 * the tail, which then lies past them (its hidden characters are shown as sent). */
export function partMarks(marks: Mark[] | undefined, more: number | undefined, part: "head" | "tail", from: number, to: number, headEnd: number): { marks: Mark[]; more?: number } {
  const owns = (more ?? 0) > 0 && (part === "tail" || listedEnd(marks) <= headEnd);
  return { marks: within(marks, from, to), more: owns ? more : undefined };
}

/** A result's text: whole when short, else head and tail with what was left out said, and
 * "Show all" one click away. Nothing is cut silently; hidden characters show as marks. */
export function LongText({ text, marks, more }: { text: string; marks?: Mark[]; more?: number }) {
  const [all, setAll] = useState(false);
  const cut = all ? null : elide(text);
  if (!cut) return <pre className="output mono" data-testid="result-text"><Verbatim text={text} marks={marks} more={more} /></pre>;
  const total = encoder.encode(text).length;
  const headEnd = encoder.encode(cut.head).length;
  const tailStart = total - encoder.encode(cut.tail).length;
  return (
    <div className="long-text">
      <pre className="output mono" data-testid="result-head"><Verbatim text={cut.head} {...partMarks(marks, more, "head", 0, headEnd, headEnd)} /></pre>
      <div className="elided" data-testid="elided">
        … {cut.lines > 0 ? `${cut.lines.toLocaleString()} lines, ` : ""}{cut.bytes.toLocaleString()} bytes not shown …
        <button className="small" onClick={() => setAll(true)} data-testid="show-all">Show all</button>
      </div>
      <pre className="output mono" data-testid="result-tail"><Verbatim text={cut.tail} {...partMarks(marks, more, "tail", tailStart, total, headEnd)} /></pre>
    </div>
  );
}
