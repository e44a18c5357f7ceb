import { useCallback, useEffect, useRef, useState } from "react";

/**
 * Whether the end of what a card runs has been on screen, and how to bring it there. A
 * command's end is two places when its lines are wider than its box (the box never wraps: a
 * command is shown verbatim): the end of its last line, and the box's right edge, where its
 * widest line ends. Both must have been in view — inside the box's scrolled view and the
 * window's — at some moment, not necessarily the same one. Until then the card's Approve
 * buttons and `a` bring the missing one into view instead of deciding.
 */
export interface Reading {
  /** The end has been on screen (always, for a card with no command to read). */
  ready: boolean;
  /** Brings the part of the end not yet seen into view: the last line's end, then the right edge. */
  reveal: () => void;
}

/** Where a command box reports its parts: its scrolling box, the mark after its last
 * character, and a strip along its content's right edge. */
export interface ReadingRefs {
  box: (el: HTMLElement | null) => void;
  end: (el: HTMLElement | null) => void;
  right: (el: HTMLElement | null) => void;
  /** The box is taller or wider than it shows (measured; the line count guesses before). */
  overflow: { tall: boolean; wide: boolean };
}

interface Seen { key: string; end: boolean; right: boolean }

/**
 * Watches the end of the command of the card identified by `key` (its digest): `watch` is
 * false for cards with no command to approve, which are ready at once. What was seen is
 * forgotten when `key` changes. Whether the box overflows is measured either way.
 */
export function useReading(key: string, watch: boolean): Reading & { refs: ReadingRefs } {
  const [seen, setSeen] = useState<Seen>({ key, end: false, right: false });
  const [overflow, setOverflow] = useState({ tall: false, wide: false });
  const box = useRef<HTMLElement | null>(null);
  const end = useRef<HTMLElement | null>(null);
  const right = useRef<HTMLElement | null>(null);
  const [elements, setElements] = useState(0);
  const current = seen.key === key ? seen : { key, end: false, right: false };

  const note = useCallback((part: "end" | "right") => {
    setSeen((s) => {
      const base = s.key === key ? s : { key, end: false, right: false };
      return base[part] ? base : { ...base, [part]: true };
    });
  }, [key]);

  // Any part of the strip along the right edge (from the column where the widest line ends)
  // counts; the end mark (one line high) must be nearly whole in view, so a last line cut in
  // half by the box's edge does not count.
  useEffect(() => {
    if (!watch || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.target === end.current && e.isIntersecting && e.intersectionRatio > 0.9) note("end");
        if (e.target === right.current && e.isIntersecting && e.intersectionRatio > 0) note("right");
      }
    }, { threshold: [0, 0.5, 0.95, 1] });
    if (end.current) io.observe(end.current);
    if (right.current) io.observe(right.current);
    return () => io.disconnect();
  }, [watch, note, elements]);

  // Whether the box scrolls at all, kept current as the window or the text's font changes.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const tall = el.scrollHeight > el.clientHeight + 1;
      const wide = el.scrollWidth > el.clientWidth + 1;
      setOverflow((o) => (o.tall === tall && o.wide === wide ? o : { tall, wide }));
    };
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, [elements]);

  const attach = (ref: { current: HTMLElement | null }) => (el: HTMLElement | null) => {
    if (ref.current === el) return;
    ref.current = el;
    setElements((n) => n + 1);
  };
  const refs = useRef<Omit<ReadingRefs, "overflow"> | null>(null);
  refs.current ??= { box: attach(box), end: attach(end), right: attach(right) };

  const ready = !watch || (current.end && (!overflow.wide || current.right));
  const reveal = () => {
    const b = box.current;
    if (!b) return;
    if (!current.end && end.current) {
      b.scrollTop = b.scrollHeight;
      end.current.scrollIntoView({ block: "nearest", inline: "nearest" });
    } else if (right.current) {
      b.scrollLeft = b.scrollWidth;
    }
    // Then the whole box into the window, so what was brought into its view is on screen.
    b.scrollIntoView({ block: "nearest", inline: "nearest" });
  };
  return { ready, reveal, refs: { ...refs.current, overflow } };
}
