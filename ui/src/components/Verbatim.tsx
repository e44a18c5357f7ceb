import type { ReactElement } from "react";

import type { Mark } from "../api/types/Mark";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Text exactly as sent, with every hidden character replaced by a visible, labelled mark.
 * Mark offsets are UTF-8 byte offsets (from the Rust scanner).
 */
export function Verbatim({ text, marks }: { text: string; marks?: Mark[] }) {
  if (!marks || marks.length === 0) return <>{text}</>;
  const bytes = encoder.encode(text);
  const parts: ReactElement[] = [];
  let at = 0;
  marks.forEach((m, i) => {
    if (m.start > at) parts.push(<span key={`t${i}`}>{decoder.decode(bytes.slice(at, m.start))}</span>);
    parts.push(
      <span key={`m${i}`} className={`mark mark-${m.kind}`} title={m.label} data-testid="hidden-mark">
        ⟨{m.label}⟩
      </span>,
    );
    // A trailing-whitespace mark keeps the line break after it.
    at = m.end;
  });
  if (at < bytes.length) parts.push(<span key="tail">{decoder.decode(bytes.slice(at))}</span>);
  return <>{parts}</>;
}
