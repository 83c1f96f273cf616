/**
 * Summaries of repeated measurements: the median and the spread, never a single lucky run.
 */

/** The distribution of one measured quantity over its repetitions. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  /** 25th and 75th percentiles: the spread a reader should trust. */
  readonly p25: number;
  readonly p75: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

/** The `q`-quantile (0..1) of `values`, linearly interpolated between neighbours. */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error("quantile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    median: quantile(values, 0.5),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    p99: quantile(values, 0.99),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Pairwise ratios `a[i] / b[i]` of measurements taken side by side in the same repetition. */
export function pairRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]!);
}
