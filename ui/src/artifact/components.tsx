// shadcn-style components in artifact scope: plain React with Tailwind classes (the preview
// compiles the classes at run time). The chart family needs its container, and says so.
import {
  createContext, forwardRef, useContext, useState,
  type ButtonHTMLAttributes, type HTMLAttributes, type InputHTMLAttributes, type ReactNode,
  type SelectHTMLAttributes, type TdHTMLAttributes, type ThHTMLAttributes,
} from "react";
import { Legend, ResponsiveContainer, Tooltip } from "recharts";

const cx = (...parts: (string | false | null | undefined)[]) => parts.filter(Boolean).join(" ");

type Div = HTMLAttributes<HTMLDivElement>;

export const Card = forwardRef<HTMLDivElement, Div>(({ className, ...p }, ref) =>
  <div ref={ref} className={cx("rounded-xl border border-slate-200 bg-white text-slate-900 shadow-sm dark:bg-slate-900 dark:text-slate-100 dark:border-slate-700", className)} {...p} />);
export const CardHeader = ({ className, ...p }: Div) => <div className={cx("flex flex-col gap-1.5 p-6", className)} {...p} />;
export const CardTitle = ({ className, ...p }: Div) => <div className={cx("font-semibold leading-none tracking-tight", className)} {...p} />;
export const CardDescription = ({ className, ...p }: Div) => <div className={cx("text-sm text-slate-500 dark:text-slate-400", className)} {...p} />;
export const CardContent = ({ className, ...p }: Div) => <div className={cx("p-6 pt-0", className)} {...p} />;
export const CardFooter = ({ className, ...p }: Div) => <div className={cx("flex items-center p-6 pt-0", className)} {...p} />;

const buttonVariants: Record<string, string> = {
  default: "bg-slate-900 text-white hover:bg-slate-800 dark:bg-slate-100 dark:text-slate-900",
  secondary: "bg-slate-100 text-slate-900 hover:bg-slate-200 dark:bg-slate-800 dark:text-slate-100",
  outline: "border border-slate-300 bg-transparent hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800",
  ghost: "bg-transparent hover:bg-slate-100 dark:hover:bg-slate-800",
  destructive: "bg-red-600 text-white hover:bg-red-700",
  link: "bg-transparent underline-offset-4 hover:underline text-slate-900 dark:text-slate-100",
};
const buttonSizes: Record<string, string> = { default: "h-9 px-4 py-2", sm: "h-8 px-3 text-xs", lg: "h-10 px-8", icon: "h-9 w-9" };
export const Button = forwardRef<HTMLButtonElement, ButtonHTMLAttributes<HTMLButtonElement> & { variant?: string; size?: string }>(
  ({ className, variant = "default", size = "default", ...p }, ref) =>
    <button ref={ref} className={cx("inline-flex items-center justify-center gap-2 rounded-md text-sm font-medium transition-colors disabled:opacity-50", buttonVariants[variant] ?? buttonVariants.default, buttonSizes[size] ?? buttonSizes.default, className)} {...p} />);

const badgeVariants: Record<string, string> = {
  default: "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900",
  secondary: "bg-slate-100 text-slate-900 dark:bg-slate-800 dark:text-slate-100",
  outline: "border border-slate-300 dark:border-slate-600",
  destructive: "bg-red-600 text-white",
};
export const Badge = ({ className, variant = "default", ...p }: HTMLAttributes<HTMLSpanElement> & { variant?: string }) =>
  <span className={cx("inline-flex items-center rounded-md px-2.5 py-0.5 text-xs font-semibold", badgeVariants[variant] ?? badgeVariants.default, className)} {...p} />;

export const Table = ({ className, ...p }: HTMLAttributes<HTMLTableElement>) =>
  <div className="relative w-full overflow-auto"><table className={cx("w-full caption-bottom text-sm", className)} {...p} /></div>;
export const TableHeader = ({ className, ...p }: HTMLAttributes<HTMLTableSectionElement>) => <thead className={cx("border-b border-slate-200 dark:border-slate-700", className)} {...p} />;
export const TableBody = (p: HTMLAttributes<HTMLTableSectionElement>) => <tbody {...p} />;
export const TableFooter = ({ className, ...p }: HTMLAttributes<HTMLTableSectionElement>) => <tfoot className={cx("border-t border-slate-200 font-medium dark:border-slate-700", className)} {...p} />;
export const TableRow = ({ className, ...p }: HTMLAttributes<HTMLTableRowElement>) => <tr className={cx("border-b border-slate-200 transition-colors dark:border-slate-700", className)} {...p} />;
export const TableHead = ({ className, ...p }: ThHTMLAttributes<HTMLTableCellElement>) => <th className={cx("h-10 px-2 text-left align-middle font-medium text-slate-500", className)} {...p} />;
export const TableCell = ({ className, ...p }: TdHTMLAttributes<HTMLTableCellElement>) => <td className={cx("p-2 align-middle", className)} {...p} />;
export const TableCaption = ({ className, ...p }: HTMLAttributes<HTMLTableCaptionElement>) => <caption className={cx("mt-4 text-sm text-slate-500", className)} {...p} />;

const TabsContext = createContext<{ value: string; set: (v: string) => void } | null>(null);
function useTabs(component: string) {
  const t = useContext(TabsContext);
  if (!t) throw new Error(`${component} must be used inside <Tabs>`);
  return t;
}
export function Tabs({ defaultValue = "", value, onValueChange, className, children }: {
  defaultValue?: string; value?: string; onValueChange?: (v: string) => void; className?: string; children?: ReactNode;
}) {
  const [own, setOwn] = useState(defaultValue);
  const current = value ?? own;
  const set = (v: string) => { setOwn(v); onValueChange?.(v); };
  return <TabsContext.Provider value={{ value: current, set }}><div className={className}>{children}</div></TabsContext.Provider>;
}
export const TabsList = ({ className, ...p }: Div) => {
  useTabs("TabsList");
  return <div role="tablist" className={cx("inline-flex h-9 items-center rounded-lg bg-slate-100 p-1 dark:bg-slate-800", className)} {...p} />;
};
export function TabsTrigger({ value, className, children }: { value: string; className?: string; children?: ReactNode }) {
  const t = useTabs("TabsTrigger");
  const on = t.value === value;
  return <button role="tab" aria-selected={on} onClick={() => t.set(value)}
    className={cx("rounded-md px-3 py-1 text-sm font-medium", on && "bg-white shadow dark:bg-slate-900", className)}>{children}</button>;
}
export function TabsContent({ value, className, children }: { value: string; className?: string; children?: ReactNode }) {
  const t = useTabs("TabsContent");
  return t.value === value ? <div role="tabpanel" className={cx("mt-2", className)}>{children}</div> : null;
}

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(({ className, ...p }, ref) =>
  <input ref={ref} className={cx("flex h-9 w-full rounded-md border border-slate-300 bg-transparent px-3 py-1 text-sm dark:border-slate-600", className)} {...p} />);

/** A native select: `<Select value onValueChange>` with `<SelectItem value>` children, or plain options. */
export function Select({ value, defaultValue, onValueChange, className, children, ...p }: SelectHTMLAttributes<HTMLSelectElement> & { onValueChange?: (v: string) => void }) {
  return <select className={cx("h-9 rounded-md border border-slate-300 bg-transparent px-2 text-sm dark:border-slate-600", className)}
    value={value} defaultValue={defaultValue} onChange={(e) => onValueChange?.(e.target.value)} {...p}>{children}</select>;
}
export const SelectItem = ({ value, children }: { value: string; children?: ReactNode }) => <option value={value}>{children}</option>;
export const SelectTrigger = ({ children }: { children?: ReactNode }) => <>{children}</>;
export const SelectValue = (_: { placeholder?: string }) => null;
export const SelectContent = ({ children }: { children?: ReactNode }) => <>{children}</>;

/** A chart's series: label and color by data key, as shadcn's `ChartConfig`. */
export type ChartConfig = Record<string, { label?: ReactNode; color?: string }>;
const ChartContext = createContext<ChartConfig | null>(null);
function useChart(component: string): ChartConfig {
  const c = useContext(ChartContext);
  if (!c) throw new Error(`${component} must be used inside <ChartContainer>`);
  return c;
}
export function ChartContainer({ config, className, children }: { config: ChartConfig; className?: string; children: ReactNode }) {
  const vars = Object.fromEntries(Object.entries(config).flatMap(([k, v]) => (v.color ? [[`--color-${k}`, v.color]] : [])));
  return (
    <ChartContext.Provider value={config}>
      <div className={cx("aspect-video w-full text-xs", className)} style={vars}>
        <ResponsiveContainer width="100%" height="100%">{children as never}</ResponsiveContainer>
      </div>
    </ChartContext.Provider>
  );
}
export const ChartTooltip = Tooltip;
export const ChartLegend = Legend;
type Payload = { dataKey?: string | number; name?: string | number; value?: unknown; color?: string };
export function ChartTooltipContent({ active, payload, label }: { active?: boolean; payload?: Payload[]; label?: ReactNode }) {
  const config = useChart("ChartTooltipContent");
  if (!active || !payload?.length) return null;
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-xs shadow dark:bg-slate-900 dark:border-slate-700">
      {label !== undefined && <div className="mb-1 font-medium">{label}</div>}
      {payload.map((p, i) => (
        <div key={i} className="flex items-center gap-2">
          <span className="inline-block h-2 w-2 rounded-sm" style={{ background: p.color }} />
          <span>{config[String(p.dataKey)]?.label ?? p.name}</span>
          <span className="ml-auto font-mono">{String(p.value)}</span>
        </div>
      ))}
    </div>
  );
}
export function ChartLegendContent({ payload }: { payload?: Payload[] }) {
  const config = useChart("ChartLegendContent");
  return (
    <div className="flex items-center justify-center gap-4 pt-3">
      {(payload ?? []).map((p, i) => (
        <div key={i} className="flex items-center gap-1.5">
          <span className="inline-block h-2 w-2 rounded-sm" style={{ background: p.color }} />
          {config[String(p.dataKey)]?.label ?? p.name}
        </div>
      ))}
    </div>
  );
}
