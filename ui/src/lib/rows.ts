import { useCallback, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

/** The rows a list of one-line rows shows: `first` to `last` (inclusive), with `overscan`
 * more on each side. */
export interface RowWindow { first: number; last: number }

/**
 * Which rows of `count`, each `height` pixels tall, a list shows when it is scrolled to `top`
 * and `viewport` pixels tall, the rows starting `offset` pixels below the list's top.
 */
export function rowWindow(count: number, height: number, top: number, viewport: number, offset: number, overscan: number): RowWindow {
  if (count === 0) return { first: 0, last: -1 };
  const from = Math.floor(Math.max(top - offset, 0) / height);
  const to = Math.floor(Math.max(top - offset + viewport - 1, 0) / height);
  return { first: Math.max(from - overscan, 0), last: Math.min(to + overscan, count - 1) };
}

/** Where `list` must scroll so that row `index` is whole on screen, moving as little as it
 * can, or null when it already is. `inset`: how much of the list's top something stuck there
 * covers (a bar). */
export function scrollFor(index: number, height: number, top: number, viewport: number, offset: number, inset = 0): number | null {
  const start = offset + index * height;
  const end = start + height;
  if (start < top + inset) return Math.max(start - inset, 0);
  if (end > top + viewport) return end - viewport;
  return null;
}

/**
 * The rows a scrolling list shows, when every row is `height` pixels tall: only those rows are
 * in the page, however many the list holds. The list draws again only when the rows it shows
 * change, and at once (in the scroll event), so a row never appears blank for a frame. The
 * arithmetic is the whole of it: with rows of one height nothing needs measuring, and a list
 * of 10,000 costs what a list of 30 does.
 *
 * `rows` is the element the rows are placed in (inside `list`, below whatever the list shows
 * above them); `list` must be positioned (its rows' `offsetTop` is measured from it).
 */
export function useRowWindow(count: number, height: number, list: React.RefObject<HTMLElement | null>,
  rows: React.RefObject<HTMLElement | null>, overscan = 4) {
  const view = useRef({ top: 0, viewport: typeof window === "undefined" ? 0 : window.innerHeight, offset: 0 });
  const read = () => {
    const l = list.current;
    if (l) view.current = { top: l.scrollTop, viewport: l.clientHeight || view.current.viewport, offset: rows.current?.offsetTop ?? 0 };
    const v = view.current;
    return rowWindow(count, height, v.top, v.viewport, v.offset, overscan);
  };
  const [shown, setShown] = useState<RowWindow>(() => read());
  const latest = useRef({ count, shown });
  latest.current = { count, shown };
  // What the list shows now, after every change of what it holds or of its size.
  const update = useCallback((sync: boolean) => {
    const next = read();
    const was = latest.current.shown;
    if (next.first === was.first && next.last === was.last) return;
    if (sync) flushSync(() => setShown(next));
    else setShown(next);
  }, [count, height, overscan]);
  useLayoutEffect(() => update(false));
  useLayoutEffect(() => {
    const l = list.current;
    if (!l) return undefined;
    const onScroll = () => update(true);
    l.addEventListener("scroll", onScroll, { passive: true });
    const ro = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => update(false));
    ro?.observe(l);
    return () => { l.removeEventListener("scroll", onScroll); ro?.disconnect(); };
  }, [update]);
  /** Scrolls the list as little as it takes to show row `index` whole, below `inset` pixels
   * stuck at the list's top. */
  const scrollTo = useCallback((index: number, inset = 0) => {
    const l = list.current;
    if (!l || index < 0) return;
    const to = scrollFor(index, height, l.scrollTop, l.clientHeight, rows.current?.offsetTop ?? 0, inset);
    if (to !== null) l.scrollTop = to;
  }, [height]);
  const clamped = { first: Math.min(shown.first, count - 1), last: Math.min(shown.last, count - 1) };
  return { ...clamped, total: count * height, scrollTo };
}
