import type { ReactElement } from "react";

import type { Mark } from "../api/types/Mark";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The marks of one field as a card lists them: the first thousand, and how many more. */
export interface FieldMarks { marks?: Mark[]; more?: number }

/** "and 1,999,000 more hidden characters": what a field carries past the marks it lists. */
export function moreMarks(more: number): string {
  return `and ${more.toLocaleString("en-US")} more hidden character${more === 1 ? "" : "s"}, not marked one by one`;
}

/**
 * Text exactly as sent, with every hidden character replaced by a visible, labelled mark.
 * Mark offsets are UTF-8 byte offsets (from the Rust scanner). A field lists at most a
 * thousand marks; `more` says how many it carries past them, shown where the listed ones end.
 */
export function Verbatim({ text, marks, more }: { text: string; marks?: Mark[]; more?: number }) {
  const extra = more ?? 0;
  if ((!marks || marks.length === 0) && extra === 0) return <>{text}</>;
  const bytes = encoder.encode(text);
  const parts: ReactElement[] = [];
  let at = 0;
  (marks ?? []).forEach((m, i) => {
    if (m.start > at) parts.push(<span key={`t${i}`}>{decoder.decode(bytes.slice(at, m.start))}</span>);
    parts.push(
      <span key={`m${i}`} className={`mark mark-${m.kind}`} title={m.label} data-testid="hidden-mark">
        ⟨{m.label}⟩
      </span>,
    );
    // A trailing-whitespace mark keeps the line break after it.
    at = m.end;
  });
  if (extra > 0) {
    parts.push(
      <span key="more" className="mark mark-more" data-testid="marks-more-inline"
        title="Past this point hidden characters are counted, not marked: the text is shown as sent">
        ⟨{moreMarks(extra)}⟩
      </span>,
    );
  }
  if (at < bytes.length) parts.push(<span key="tail">{decoder.decode(bytes.slice(at))}</span>);
  return <>{parts}</>;
}
