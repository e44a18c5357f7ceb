import { useMemo, type ReactNode } from "react";
import type { Nodes, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

import type { Mark } from "../api/types/Mark";
import { Verbatim } from "./Verbatim";

/** How deep Markdown is drawn as structure. */
const MAX_DEPTH = 24;

/** A plan longer than this is shown as written, not drawn. */
const MAX_DRAWN = 200_000;

/**
 * Markdown an agent wrote, drawn as React elements and never as HTML: raw HTML shows as the
 * text it is, an image as its address (nothing is loaded), a link as its words with its target
 * beside them (nothing is followed). Every piece of text is the source as written, so its
 * hidden characters keep their marks (`marks` are UTF-8 byte offsets into `text`).
 */
export function Markdown({ text, marks }: { text: string; marks?: Mark[] }) {
  const tree = useMemo(() => {
    if (text.length > MAX_DRAWN) return null;
    try {
      return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    } catch {
      return null;
    }
  }, [text]);
  const bytes = useMemo(() => byteOffsets(text), [text]);
  if (!tree) return <pre className="plan mono"><Verbatim text={text} marks={marks} /></pre>;
  const source = (node: Nodes): ReactNode => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    // Nodes a transform made (GFM's bare `www.` links) have no place in the source: their
    // own text, or their children's, is drawn, never nothing.
    if (start === undefined || end === undefined) {
      if ("value" in node && typeof node.value === "string") return <Verbatim text={node.value} />;
      if ("children" in node) return <>{draw(node.children as RootContent[], 0)}</>;
      return null;
    }
    const from = bytes(start);
    const to = bytes(end);
    const inside = (marks ?? [])
      .filter((m) => m.start >= from && m.end <= to)
      .map((m) => ({ ...m, start: m.start - from, end: m.end - from }));
    return <Verbatim text={text.slice(start, end)} marks={inside} />;
  };
  // Past this depth (`>>>>…`, lists in lists), what is left is the source as written.
  const draw = (nodes: RootContent[], depth: number): ReactNode[] =>
    nodes.map((n, i) => (depth > MAX_DEPTH ? <span key={i} className="md-raw">{source(n)}</span>
      : <Node key={i} node={n} depth={depth + 1} />));
  function Node({ node, depth }: { node: RootContent; depth: number }): ReactNode {
    const kids = (children: RootContent[]) => draw(children, depth);
    switch (node.type) {
      case "paragraph": return <p>{kids(node.children)}</p>;
      case "heading": {
        const H = `h${Math.min(node.depth + 2, 6)}` as "h3";
        return <H>{kids(node.children)}</H>;
      }
      case "text": return source(node);
      case "emphasis": return <em>{kids(node.children)}</em>;
      case "strong": return <strong>{kids(node.children)}</strong>;
      case "delete": return <del>{kids(node.children)}</del>;
      case "inlineCode": return <code className="mono">{source(node)}</code>;
      case "code": return <pre className="mono">{source(node)}</pre>;
      case "blockquote": return <blockquote>{kids(node.children)}</blockquote>;
      case "list": {
        const items = kids(node.children);
        return node.ordered ? <ol start={node.start ?? 1}>{items}</ol> : <ul>{items}</ul>;
      }
      case "listItem":
        return <li>{node.checked !== null && node.checked !== undefined && <span>{node.checked ? "☑ " : "☐ "}</span>}{kids(node.children)}</li>;
      case "thematicBreak": return <hr />;
      case "break": return <br />;
      // A link as written, its target in sight: `[words](target)`.
      case "link": return <span className="md-link mono" data-testid="md-link">{source(node)}</span>;
      case "image":
        return <span className="md-image" data-testid="md-image">[image, not loaded: <span className="mono">{source(node)}</span>]</span>;
      case "table":
        return (
          <table><tbody>{node.children.map((row, r) => (
            <tr key={r}>{row.children.map((cell, c) => <td key={c}>{kids(cell.children)}</td>)}</tr>
          ))}</tbody></table>
        );
      // Raw HTML, definitions, footnotes and anything else: the source, as text.
      default: return <span className="md-raw">{source(node)}</span>;
    }
  }
  return <div className="markdown" data-testid="markdown">{draw(tree.children, 0)}</div>;
}

/** The UTF-8 byte offset of each UTF-16 index of `text`, in one pass. */
function byteOffsets(text: string): (index: number) => number {
  const at = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    at[i] = bytes;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    // A surrogate pair is four bytes: counted on its first half, none on its second.
    else if (c >= 0xd800 && c <= 0xdbff) bytes += 4;
    else if (c >= 0xdc00 && c <= 0xdfff) bytes += 0;
    else bytes += 3;
  }
  at[text.length] = bytes;
  return (index) => at[Math.max(0, Math.min(index, text.length))] ?? bytes;
}
