// A flat line's largest ÷ smallest under the pooled repeat model of repeat-pool.ts (docs/noise.md, "Few repeats").
import { quantileUnchecked } from './descriptive.js';
import { mulberry32 } from './random.js';
import { type PoolInterval, type PooledGroup, poolNoise, type RepeatPool } from './repeat-pool.js';

/**
 * The interval of the largest ÷ the smallest of the groups' statistics (a line that should be flat), by the pooled
 * model above, at `confidence`. Unlike the interval of a smooth quantity it is built from the pairs:
 * - its upper end is the highest of every pair's own upper end (stat_i ÷ stat_j with its Student's-t margin on the log
 *   scale). The truth's largest ÷ smallest is one pair's ratio, the pair of the truly dearest and cheapest points, so
 *   it lies above that end only when that pair's own interval misses it: at most (1 − confidence) ÷ 2 of the time,
 *   however many points there are. No margin for the choice of the extremes is needed, and none is counted twice (the
 *   draws of the extremes of already noisy points push the percentile end up by the noise once more);
 * - its lower end is the point divided by the spread that the noise alone reaches (the (1 + confidence) ÷ 2 quantile
 *   of the draws' largest ÷ smallest of the noise): the point can exceed the truth by no more than that, whichever
 *   pair it comes from. Never below 1.
 * Null where a statistic is not above 0.
 */
export function pooledSpreadInterval(groups: readonly PooledGroup[], pool: RepeatPool, opts: { seed: number; confidence?: number; draws?: number }): PoolInterval | null {
  if (groups.length < 2 || groups.some((g) => !(g.stat > 0) || !Number.isFinite(g.stat))) return null;
  const confidence = opts.confidence ?? 0.95;
  const draws = opts.draws ?? 4000;
  const drawNoise = poolNoise(groups, pool, mulberry32(opts.seed));
  const n = groups.length;
  // each ordered pair's noise e_i − e_j, and the noise's own largest ÷ smallest, on the log scale
  const pairs: number[][] = Array.from({ length: n * n }, () => []);
  const ranges: number[] = [];
  const e = new Array<number>(n);
  for (let d = 0; d < draws; d++) {
    drawNoise(e);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) pairs[i * n + j]!.push(e[i]! - e[j]!);
    ranges.push(Math.max(...e) - Math.min(...e));
  }
  const upperQ = (xs: number[]) =>
    quantileUnchecked(
      xs.sort((a, b) => a - b),
      1 - (1 - confidence) / 2,
    );
  const l = groups.map((g) => Math.log(g.stat));
  const point = Math.max(...l) - Math.min(...l);
  let high = point;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) high = Math.max(high, l[i]! - l[j]! + upperQ(pairs[i * n + j]!));
  const low = Math.max(0, point - upperQ(ranges));
  return { low: Math.exp(low), high: Math.exp(high), finiteShare: 1 };
}
