/**
 * forklab's one bootstrap: percentile intervals for any quantity computed from the statistics (median, mean
 * or minimum) of measured series, resampled the way the data were taken.
 *
 * - Hierarchical: a series is a list of repeats (fresh probe processes), each a list of samples. A resample
 *   first draws as many repeats as there are, with replacement, then, within each drawn repeat, as many samples
 *   as it has, with replacement. Run-to-run swings therefore widen the interval instead of vanishing into
 *   thousands of iterations treated as independent. With one repeat it is the ordinary bootstrap.
 * - Paired: series measured in the same iterations (the probe times both in every iteration) form one `Block`;
 *   a resample draws repeats and iteration indices once per block and uses them for every series in it, so
 *   drift shared by the series cancels in their differences and ratios.
 * - In rounds: series measured by separate probes but round by round (repeat r of every configuration in round
 *   r, src/runner/schedule.ts) form a `rounds` block: a resample draws the repeats once for all of them, and the
 *   iterations within each series on their own. What a round shares (the machine's state at that time) cancels
 *   in their ratios; series that share nothing get the same interval as drawn apart.
 * - Medians by counting: each series is sorted once; a resample only counts how often each rank was drawn
 *   and walks the counts to the middle, so a resample costs O(draws) with no sorting.
 * - Seeded (mulberry32): the same data and seed give the same interval. The seed is the run's --seed.
 */

import { quantileUnchecked } from './descriptive.js';
import { mulberry32 } from './random.js';

export type ResampleStatistic = 'median' | 'mean' | 'min';

/** Samples of one series, repeat by repeat. */
export type Repeats = readonly (readonly number[])[];

/**
 * Series measured together: series[k][r][i] is iteration i of repeat r of series k. Paired blocks need every
 * series to have the same number of repeats and, repeat by repeat, the same number of samples.
 */
export interface Block {
  series: readonly Repeats[];
  /** The series share only their rounds: the same repeat draws, iterations drawn within each (any lengths). */
  rounds?: boolean;
  /**
   * In rounds: series with the same number here come from the same probes (the same configuration: readings
   * of one iteration) and share their iteration draws too; they must have the same samples per repeat.
   */
  together?: readonly number[];
}

export interface Quantity {
  blocks: readonly Block[];
  statistic: ResampleStatistic;
  /** From the statistic of every series (blocks in order, series in order within a block) to the quantity. */
  combine: (stats: readonly number[]) => number;
}

/** Default number of resamples, and the floor when a large data set makes the budget cut it. */
export const RESAMPLES = 2000;
export const MIN_RESAMPLES = 500;
/** At most this many draws per interval (samples × resamples); beyond, fewer resamples (never under MIN_RESAMPLES). */
export const MAX_DRAWS = 12_000_000;
/** An interval needs this share of resamples to give a finite quantity (e.g. no zero denominator). */
export const MIN_FINITE_SHARE = 0.95;

export interface ResampleOptions {
  seed: number;
  confidence?: number;
  resamples?: number;
  /**
   * Keep every repeat as it is and draw only the iterations within each: the sampling noise inside the repeats alone
   * (where the run-to-run scatter is accounted for otherwise: src/stats/repeat-pool.ts).
   */
  withinRepeats?: boolean;
}

export interface QuantityInterval {
  /** The quantity on the pooled data. */
  point: number;
  low: number;
  high: number;
  confidence: number;
  /** Resamples drawn, and how many repeats the series with the fewest had (1: iteration noise only). */
  resamples: number;
  minRepeats: number;
}

/** Returns the statistic of the pooled samples of one series. */
function statisticOf(values: readonly number[], stat: ResampleStatistic): number {
  if (values.length === 0) throw new RangeError('statisticOf: no samples');
  if (stat === 'min') return values.reduce((a, b) => Math.min(b, a), Infinity);
  if (stat === 'mean') return values.reduce((a, b) => a + b, 0) / values.length;
  const s = Float64Array.from(values).sort();
  return quantileUnchecked(s, 0.5);
}

export function pooledStatistic(series: Repeats, stat: ResampleStatistic): number {
  return statisticOf(series.flat(), stat);
}

/** A series prepared for resampling: its pooled sorted values and the rank of every (repeat, iteration). */
interface Prepared {
  sorted: Float64Array;
  ranks: Uint32Array[];
  counts: Uint32Array;
}

function prepare(series: Repeats): Prepared {
  const flat: { v: number; r: number; i: number }[] = [];
  series.forEach((rep, r) => {
    rep.forEach((v, i) => {
      flat.push({ v, r, i });
    });
  });
  flat.sort((a, b) => a.v - b.v);
  const sorted = new Float64Array(flat.length);
  const ranks = series.map((rep) => new Uint32Array(rep.length));
  flat.forEach((x, k) => {
    sorted[k] = x.v;
    ranks[x.r]![x.i] = k;
  });
  return { sorted, ranks, counts: new Uint32Array(flat.length) };
}

/** The k-th (0-based) smallest drawn value and the middle of `total` draws, from the counts per rank. */
function medianOfCounts(sorted: Float64Array, counts: Uint32Array, total: number): number {
  const kLo = (total - 1) >> 1;
  const kHi = total >> 1;
  let cum = 0;
  let lo = NaN;
  for (let j = 0; j < sorted.length; j++) {
    cum += counts[j]!;
    if (Number.isNaN(lo) && cum > kLo) lo = sorted[j]!;
    if (cum > kHi) return kLo === kHi ? lo : (lo + sorted[j]!) / 2;
  }
  return lo;
}

function checkBlock(b: Block, where: string): void {
  if (b.series.length === 0) throw new RangeError(`${where}: a block needs at least one series`);
  const shape = b.series[0]!.map((rep) => rep.length);
  if (shape.length === 0 || shape.some((n) => n === 0)) throw new RangeError(`${where}: a series has no repeats, or an empty repeat`);
  for (const s of b.series) {
    if (b.rounds) {
      if (s.length !== shape.length || s.some((rep) => rep.length === 0)) throw new RangeError(`${where}: series in rounds must have the same number of repeats, none empty`);
    } else if (s.length !== shape.length || s.some((rep, r) => rep.length !== shape[r]))
      throw new RangeError(`${where}: paired series must have the same repeats and samples per repeat`);
    for (const rep of s) for (const x of rep) if (!Number.isFinite(x)) throw new RangeError(`${where}: sample ${x} is not finite`);
  }
  // in rounds, the series drawn together must be paired: the same samples per repeat as the first of them
  if (b.rounds)
    for (const g of drawGroups(b))
      for (const s of g)
        if (b.series[s]!.some((rep, r) => rep.length !== b.series[g[0]!]![r]!.length))
          throw new RangeError(`${where}: series drawn together must have the same samples per repeat`);
}

/** The series of a block whose iterations are drawn together: all of them, or in rounds each group of `together`. */
function drawGroups(b: Block): number[][] {
  if (!b.rounds) return [b.series.map((_, s) => s)];
  const groups = new Map<number, number[]>();
  b.series.forEach((_, s) => {
    const g = b.together?.[s] ?? s;
    groups.set(g, [...(groups.get(g) ?? []), s]);
  });
  return [...groups.values()];
}

/**
 * Draws one resample of a block into `out` from `at`: the repeats (once for the whole block), then within each
 * drawn repeat the iterations, shared by the series drawn together (`groups`: the block's drawGroups).
 */
function resampleBlock(
  b: Block,
  groups: readonly (readonly number[])[],
  prep: Prepared[],
  stat: ResampleStatistic,
  rng: () => number,
  out: number[],
  at: number,
  withinRepeats = false,
): void {
  const R = b.series[0]!.length;
  const picks: number[] = [];
  for (const ss of groups) {
    const k = ss.length;
    const sums = new Array<number>(k).fill(0);
    const minRank = new Array<number>(k).fill(Infinity);
    for (const s of ss) prep[s]!.counts.fill(0);
    let total = 0;
    for (let d = 0; d < R; d++) {
      // One repeat: nothing to draw at the top level (so one repeat is exactly the ordinary bootstrap).
      picks[d] ??= R === 1 || withinRepeats ? d : Math.floor(rng() * R);
      const r = picks[d]!;
      const n = prep[ss[0]!]!.ranks[r]!.length;
      total += n;
      if (k === 1 && stat === 'median') {
        // the common case, a series drawn on its own for its median: only counts, the same draws as below
        const ranks = prep[ss[0]!]!.ranks[r]!;
        const counts = prep[ss[0]!]!.counts;
        for (let j = 0; j < n; j++) counts[ranks[Math.floor(rng() * n)]!]! += 1;
        continue;
      }
      for (let j = 0; j < n; j++) {
        const i = Math.floor(rng() * n);
        for (let m = 0; m < k; m++) {
          const p = prep[ss[m]!]!;
          const rank = p.ranks[r]![i]!;
          if (stat === 'median') p.counts[rank]! += 1;
          else if (stat === 'mean') sums[m]! += p.sorted[rank]!;
          else if (rank < minRank[m]!) minRank[m] = rank;
        }
      }
    }
    for (let m = 0; m < k; m++) {
      const p = prep[ss[m]!]!;
      out[at + ss[m]!] = total === 0 ? NaN : stat === 'median' ? medianOfCounts(p.sorted, p.counts, total) : stat === 'mean' ? sums[m]! / total : p.sorted[minRank[m]!]!;
    }
  }
}

/** How many resamples a quantity gets: RESAMPLES, fewer when the draws would exceed MAX_DRAWS. */
export function resamplesFor(draws: number, requested = RESAMPLES): number {
  return Math.max(Math.min(requested, MIN_RESAMPLES), Math.min(requested, Math.floor(MAX_DRAWS / Math.max(1, draws))));
}

/**
 * Percentile interval of a quantity. Throws RangeError on malformed blocks. Returns null when nothing can
 * vary (every series holds a single value) or when fewer than MIN_FINITE_SHARE of the resamples are finite.
 */
export function bootstrapQuantity(q: Quantity, opts: ResampleOptions): QuantityInterval | null {
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`bootstrapQuantity: confidence must be in (0, 1), got ${confidence}`);
  if (!Number.isInteger(opts.seed)) throw new RangeError(`bootstrapQuantity: seed must be an integer, got ${opts.seed}`);
  q.blocks.forEach((b, i) => {
    checkBlock(b, `bootstrapQuantity (block ${i})`);
  });
  // The order within a repeat of a series drawn on its own carries no information: sorted, the result depends
  // only on each repeat's multiset of values.
  const sortRepeats = (s: Repeats) => s.map((rep) => Array.from(Float64Array.from(rep).sort()));
  // the groups of each block, found once: every resample draws by them
  const groups = q.blocks.map(drawGroups);
  const blocks = q.blocks.map((b, i): Block => {
    const alone = new Set(groups[i]!.filter((g) => g.length === 1).map((g) => g[0]));
    return { ...b, series: b.series.map((s, j) => (alone.has(j) ? sortRepeats(s) : s)) };
  });
  const point = q.combine(blocks.flatMap((b) => b.series.map((s) => pooledStatistic(s, q.statistic))));
  const sizes = blocks.map((b) => Math.max(...b.series.map((s) => s.reduce((a, rep) => a + rep.length, 0))));
  if (sizes.every((n) => n < 2)) return null;
  const draws = blocks.reduce((a, b, i) => a + sizes[i]! * b.series.length, 0);
  const resamples = resamplesFor(draws, opts.resamples ?? RESAMPLES);
  const prep = blocks.map((b) => b.series.map(prepare));
  const rng = mulberry32(opts.seed);
  const stats = new Array<number>(prep.reduce((a, p) => a + p.length, 0));
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let at = 0;
    blocks.forEach((b, i) => {
      resampleBlock(b, groups[i]!, prep[i]!, q.statistic, rng, stats, at, opts.withinRepeats === true);
      at += b.series.length;
    });
    const v = q.combine(stats);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length < resamples * MIN_FINITE_SHARE) return null;
  const sorted = Float64Array.from(values).sort();
  const a = (1 - confidence) / 2;
  const minRepeats = Math.min(...blocks.map((b) => b.series[0]!.length));
  return { point, low: quantileUnchecked(sorted, a), high: quantileUnchecked(sorted, 1 - a), confidence, resamples, minRepeats };
}

/** One unpaired series as a block. */
export const single = (series: Repeats): Block => ({ series: [series] });
