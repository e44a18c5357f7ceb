import { useMemo, useState } from "react";

import type { Mark } from "../api/types/Mark";
import type { ReadingRefs } from "../lib/reading";
import { elide, partMarks } from "./LongText";
import { Verbatim } from "./Verbatim";

/** Lines a command box shows before it scrolls; the box's CSS height says the same. */
export const BOX_LINES = 20;

/** How long a command is: its lines, its characters (code points) and its widest line. */
export interface CommandSize { lines: number; chars: number; widest: number }

export function commandSize(text: string): CommandSize {
  let lines = 1, chars = 0, widest = 0, width = 0;
  for (const c of text) {
    chars += 1;
    if (c === "\n") {
      lines += 1;
      widest = Math.max(widest, width);
      width = 0;
    } else {
      width += 1;
    }
  }
  return { lines, chars, widest: Math.max(widest, width) };
}

const n = (x: number) => x.toLocaleString("en-US");

/** "42 lines, 9,812 characters", with the widest line when the box scrolls sideways. */
export function sizeLine(size: CommandSize, wide: boolean): string {
  const lines = `${n(size.lines)} line${size.lines === 1 ? "" : "s"}`;
  const widest = wide ? `, widest line ${n(size.widest)} characters` : "";
  return `${lines}, ${n(size.chars)} character${size.chars === 1 ? "" : "s"}${widest}`;
}

const encoder = new TextEncoder();

/**
 * A command exactly as it would run: never wrapped (a wrapped line reads as two), in a box
 * that scrolls both ways. A command taller or wider than the box says its size on top; one too
 * long to draw whole (over 64 KiB) shows its head and its last lines, with the middle one
 * click away. The end of the last line and the box's right edge carry the sentinels the card
 * watches before it lets the command be approved (see `useReading`).
 */
export function CommandBox({ text, marks, more, refs }: {
  text: string;
  marks?: Mark[];
  more?: number;
  refs: ReadingRefs;
}) {
  const size = useMemo(() => commandSize(text), [text]);
  const [all, setAll] = useState(false);
  const cut = useMemo(() => (all ? null : elide(text)), [text, all]);
  const tall = refs.overflow.tall || size.lines > BOX_LINES || cut !== null;
  const wide = refs.overflow.wide;
  let body;
  if (cut) {
    const total = encoder.encode(text).length;
    const headEnd = encoder.encode(cut.head).length;
    const tailStart = total - encoder.encode(cut.tail).length;
    body = (
      <>
        <Verbatim text={cut.head} {...partMarks(marks, more, "head", 0, headEnd, headEnd)} />
        {"\n"}
        <span className="elided command-elided" data-testid="command-elided">
          … {cut.lines > 0 ? `${n(cut.lines)} lines, ` : ""}{n(cut.bytes)} bytes not shown …{" "}
          <button className="small" onClick={() => setAll(true)} data-testid="command-show-all">Show all</button>
        </span>
        {"\n"}
        <Verbatim text={cut.tail} {...partMarks(marks, more, "tail", tailStart, total, headEnd)} />
      </>
    );
  } else {
    body = <Verbatim text={text} marks={marks} more={more} />;
  }
  return (
    <div className="command-box">
      {(tall || wide) && (
        <p className="command-size muted" data-testid="command-size">
          {sizeLine(size, wide)}
          {cut ? " — its start and its end are shown, the middle one click away"
            : tall ? " — the box scrolls; its end is at the bottom" : " — the box scrolls sideways"}
        </p>
      )}
      <div className="command-scroll" ref={refs.box} data-testid="command-box">
        <pre className="command command-text mono" data-testid="command">
          <span className="prompt" aria-hidden>$ </span>
          {body}
          <span className="command-end" ref={refs.end} data-testid="command-end" aria-hidden />
          <span className="command-right" ref={refs.right} aria-hidden />
        </pre>
      </div>
    </div>
  );
}
