import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import type { Mark } from "../api/types/Mark";
import { Markdown } from "./Markdown";

const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("a plan's Markdown", () => {
  it("draws its structure, never its HTML, loads no image and follows no link", () => {
    const plan = [
      "## Steps", "", "1. Extract the **store**", "2. Keep `auth.rs`", "",
      "<script>alert(1)</script>", "", "![x](http://h/i.png)", "",
      "[docs](javascript:alert(1))", "", "| a | b |", "|---|---|", "| 1 | 2 |",
    ].join("\n");
    const html = renderToStaticMarkup(<Markdown text={plan} />);
    expect(html).toContain("<h4>");
    expect(html).toContain("<ol");
    expect(html).toContain("<strong>");
    expect(html).toContain("<table>");
    expect(html).not.toContain("<script");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<a ");
    expect(html).not.toContain("href=");
    expect(html).toContain('data-testid="md-image"');
    expect(html).toContain("[docs](javascript:alert(1))");
  });

  it("keeps the mark of a hidden character where it stands, in a link too", () => {
    const rlo = "\u202E";
    const plan = `See [the docs](https://good.example/${rlo}gpj.exe) first.\n\nThen é 😀 ok${rlo}.`;
    const marks: Mark[] = [];
    let from = 0;
    for (;;) {
      const i = plan.indexOf(rlo, from);
      if (i < 0) break;
      const start = bytes(plan.slice(0, i));
      marks.push({ start, end: start + bytes(rlo), kind: "bidi", label: "U+202E RIGHT-TO-LEFT OVERRIDE" } as Mark);
      from = i + 1;
    }
    const html = renderToStaticMarkup(<Markdown text={plan} marks={marks} />);
    expect(html.match(/data-testid="hidden-mark"/g)?.length).toBe(2);
    expect(html).not.toContain(rlo);
  });

  it("draws every word, links GFM makes of bare addresses too", () => {
    const html = renderToStaticMarkup(<Markdown text={'1. Fetch "www.example.com", then run rm -rf ~/work'} />);
    const text = html.replace(/<[^>]+>/g, "");
    expect(text).toContain("www.example.com");
    expect(text).toContain("then run rm -rf ~/work");
  });

  it("draws deep nesting as text past its depth, without failing", () => {
    const deep = `${">".repeat(2000)} bottom`;
    const html = renderToStaticMarkup(<Markdown text={deep} />);
    expect(html).toContain("bottom");
    expect((html.match(/<blockquote>/g) ?? []).length).toBeLessThanOrEqual(30);
  });

  it("shows a plan too long to draw as written", () => {
    const html = renderToStaticMarkup(<Markdown text={"x".repeat(300_000)} />);
    expect(html).toContain("<pre");
    expect(html).not.toContain('data-testid="markdown"');
  });
});
