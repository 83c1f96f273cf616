/**
 * Figures as rows: what was measured on each side, the ratio, the target, and whether it was met;
 * printed as a table and written as JSON.
 */
import { pairRatios, summarize, type Summary } from "./stats.ts";

/** One line of the table. `derun` and `anchor` are in `unit`; `ratio` is derun / anchor per pair. */
export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly derun: Summary;
  readonly anchor?: { readonly name: string; readonly summary: Summary };
  /** Secondary anchors measured in the same run (e.g. the bare command). */
  readonly extra?: Record<string, Summary>;
  readonly ratio?: Summary;
  /** What decides the target, e.g. "ratio median <= 1.1"; `met` is that decision. */
  readonly target?: string;
  readonly met?: boolean;
  /** Anything a reader needs to interpret the row (sizes, derived rates). */
  readonly notes?: string;
  /** The previous build (`--baseline`) measured the same way in the same run; `ratio` is derun / baseline per pair. */
  readonly baseline?: BaselineSide;
}

export interface BaselineSide {
  readonly summary: Summary;
  readonly ratio: Summary;
}

/** The baseline side of a figure from its samples (paired with derun's rep by rep), if it ran. */
export function baselineSide(derun: readonly number[], baseline: readonly number[] | undefined): { baseline?: BaselineSide } {
  if (!baseline || baseline.length === 0) return {};
  return { baseline: { summary: summarize(baseline), ratio: summarize(pairRatios(derun, baseline)) } };
}

/**
 * The usual row: derun's samples against an anchor's, paired rep by rep, the target a ceiling on
 * the median ratio.
 */
export function ratioFigure(row: {
  name: string;
  unit: string;
  derun: readonly number[];
  anchor: { name: string; samples: readonly number[] };
  maxRatio: number;
  notes: string;
  extra?: Record<string, Summary>;
  /** The previous build's samples, paired with derun's. */
  baseline?: readonly number[];
}): Figure {
  const ratio = summarize(pairRatios(row.derun, row.anchor.samples));
  return {
    name: row.name,
    unit: row.unit,
    derun: summarize(row.derun),
    anchor: { name: row.anchor.name, summary: summarize(row.anchor.samples) },
    ...(row.extra ? { extra: row.extra } : {}),
    ratio,
    target: `ratio <= ${row.maxRatio.toFixed(1)}`,
    met: ratio.median <= row.maxRatio,
    notes: row.notes,
    ...baselineSide(row.derun, row.baseline),
  };
}

const fmt = (value: number): string => {
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(abs >= 1 ? 2 : 3);
};

/** "median (p25-p75)". */
export const spread = (s: Summary): string => `${fmt(s.median)} (${fmt(s.p25)}-${fmt(s.p75)})`;

/** Markdown table of the figures. */
export function renderTable(figures: readonly Figure[]): string {
  const withBaseline = figures.some((f) => f.baseline);
  const header = ["figure", "derun", "anchor", "ratio", "target", "met", ...(withBaseline ? ["previous build", "vs previous"] : [])];
  const ratioText = (r: Summary) => `${fmt(r.median)} (${fmt(r.min)}-${fmt(r.max)})`;
  const rows = figures.map((f) => [
    f.name,
    `${spread(f.derun)} ${f.unit}`,
    f.anchor ? `${f.anchor.name}: ${spread(f.anchor.summary)} ${f.unit}` : "-",
    f.ratio ? ratioText(f.ratio) : "-",
    f.target ?? "report",
    f.met === undefined ? "-" : f.met ? "yes" : "NO",
    ...(withBaseline ? (f.baseline ? [`${spread(f.baseline.summary)} ${f.unit}`, ratioText(f.baseline.ratio)] : ["-", "-"]) : []),
  ]);
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  const notes = figures.filter((f) => f.notes).map((f) => `- ${f.name}: ${f.notes}`);
  return [line(header), line(header.map(() => "---")), ...rows.map(line), "", ...notes].join("\n");
}
