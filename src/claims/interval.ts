// Percentile-bootstrap intervals for any quantity computed from the statistics (mean, median or min) of
// independent groups of samples: a ratio of two means, a difference of medians, a slope fitted through
// per-configuration medians. Each resample redraws every group with replacement and recomputes the quantity.
import type { CheckStatistic } from '../reference/published.js';
import { mulberry32 } from '../stats/random.js';
import { quantileUnchecked } from '../stats/descriptive.js';
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

/** A group prepared for fast resampling: sorted values (medians by counting, no sort per resample). */
interface Prepared {
  sorted: Float64Array;
  counts: Uint32Array;
}

function prepare(g: readonly number[]): Prepared {
  const sorted = Float64Array.from(g).sort();
  return { sorted, counts: new Uint32Array(sorted.length) };
}

function resampleStat(p: Prepared, stat: CheckStatistic, rng: () => number): number {
  const n = p.sorted.length;
  if (n === 1) return p.sorted[0]!;
  if (stat === 'mean') {
    let s = 0;
    for (let i = 0; i < n; i++) s += p.sorted[Math.floor(rng() * n)]!;
    return s / n;
  }
  if (stat === 'min') {
    let lo = n;
    for (let i = 0; i < n; i++) lo = Math.min(lo, Math.floor(rng() * n));
    return p.sorted[lo]!;
  }
  const c = p.counts;
  c.fill(0);
  for (let i = 0; i < n; i++) c[Math.floor(rng() * n)]! += 1;
  const kLo = (n - 1) >> 1;
  const kHi = n >> 1;
  let cum = 0;
  let lo = NaN;
  for (let j = 0; j < n; j++) {
    cum += c[j]!;
    if (Number.isNaN(lo) && cum > kLo) lo = p.sorted[j]!;
    if (cum > kHi) return kLo === kHi ? lo : (lo + p.sorted[j]!) / 2;
  }
  return lo;
}

/**
 * 95 % (by default) percentile interval of the quantity. Null when no group has two values (nothing to
 * resample: single readings) or when more than 5 % of the resamples give no finite value.
 */
export function intervalOf(q: Quantity, opts: { seed?: number; resamples?: number; confidence?: number } = {}): QuantityInterval | null {
  if (q.groups.every((g) => g.length < 2)) return null;
  const resamples = opts.resamples ?? 1000;
  const confidence = opts.confidence ?? 0.95;
  // Keep the work bounded on large runs: at most ~4 M draws per interval.
  const draws = q.groups.reduce((s, g) => s + g.length, 0);
  const r = Math.max(200, Math.min(resamples, Math.floor(4_000_000 / Math.max(1, draws))));
  const rng = mulberry32(opts.seed ?? 1);
  const prepared = q.groups.map(prepare);
  const out: number[] = [];
  for (let i = 0; i < r; i++) {
    const v = q.combine(prepared.map((p) => resampleStat(p, q.stat, rng)));
    if (Number.isFinite(v)) out.push(v);
  }
  if (out.length < r * 0.95) return null;
  const sorted = Float64Array.from(out).sort();
  const a = (1 - confidence) / 2;
  return { low: quantileUnchecked(sorted, a), high: quantileUnchecked(sorted, 1 - a) };
}
