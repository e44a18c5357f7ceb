import { createContext, lazy, Suspense, useContext, type ComponentType } from "react";

import type { Mark } from "../api/types/Mark";
import { LongText } from "./LongText";

type Drawn = ComponentType<{ text: string; marks?: Mark[] }>;

/**
 * How a plan's Markdown is drawn. The Markdown parser is a fifth of the window's script, and
 * the window's first paint waits for every byte of script it loads: so the window loads it
 * when a plan is first shown (or when it is idle), and the phone page, whose files are pinned
 * by their hashes in its HTML (decision 0025), loads it with the page.
 */
export const PlanDrawing = createContext<Drawn | null>(null);

// Should the parser not load, plans stay shown as written rather than failing the window.
const LazyMarkdown = lazy(() => import("./Markdown").then(
  (m): { default: Drawn } => ({ default: m.Markdown }),
  (): { default: Drawn } => ({ default: LongText }),
));

/** The window's drawing: the plan as written, its marks shown, until the parser has loaded. */
export function LazyPlan({ text, marks }: { text: string; marks?: Mark[] }) {
  return (
    <Suspense fallback={<LongText text={text} marks={marks} />}>
      <LazyMarkdown text={text} marks={marks} />
    </Suspense>
  );
}

/** Loads the parser ahead of the first plan, once the window has nothing else to do. */
export function preloadPlanDrawing(): void {
  const load = () => void import("./Markdown").catch(() => {});
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 1000);
}

/** A plan's Markdown, drawn as the page provides; without a provider, shown as written. */
export function PlanText({ text, marks }: { text: string; marks?: Mark[] }) {
  const Draw = useContext(PlanDrawing);
  return Draw ? <Draw text={text} marks={marks} /> : <LongText text={text} marks={marks} />;
}
