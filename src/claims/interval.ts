// Intervals for a quantity computed from the statistics (mean, median or min) of groups of samples: a ratio
// of two means, a difference of medians, a slope fitted through per-configuration medians. The resampling is
// src/stats/resample.ts's (the one bootstrap).
import type { CheckStatistic } from '../reference/published.js';
import { bootstrapQuantity, single } from '../stats/resample.js';
import { statistic } from './select.js';

export interface Quantity {
  groups: number[][];
  stat: CheckStatistic;
  /** From the statistic of each group (same order) to the quantity; non-finite results are dropped. */
  combine: (stats: readonly number[]) => number;
}

export interface QuantityInterval {
  low: number;
  high: number;
}

export function pointOf(q: Quantity): number {
  return q.combine(q.groups.map((g) => statistic(g, q.stat)));
}

/** 95 % (by default) percentile interval of the quantity; null when nothing can be resampled. */
export function intervalOf(q: Quantity, opts: { seed?: number; confidence?: number } = {}): QuantityInterval | null {
  if (q.groups.every((g) => g.length < 2)) return null;
  const ci = bootstrapQuantity(
    { blocks: q.groups.map((g) => single([g])), statistic: q.stat, combine: q.combine },
    { seed: opts.seed ?? 1, ...(opts.confidence === undefined ? {} : { confidence: opts.confidence }) },
  );
  return ci === null ? null : { low: ci.low, high: ci.high };
}
