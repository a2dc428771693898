// The growth of a spawn's cost with the parent's heap: least-squares slope through the median of each heap
// size, with a bootstrap interval that redraws the fresh processes (repeats) of each size, then the samples
// within each drawn process, so that the interval carries the spread between processes as well.
import { linearFit } from '../../stats/regression.js';
import { mulberry32 } from '../../stats/random.js';

export interface HeapGroup {
  heapMb: number;
  /** Samples in µs, one array per fresh driver process. */
  repeats: number[][];
}

export interface SlopeEstimate {
  slopeUsPerMb: number;
  interceptUs: number;
  /** 95 % percentile-bootstrap interval of the slope; null when nothing can be resampled. */
  lowUsPerMb: number | null;
  highUsPerMb: number | null;
  /** Fitted µs at the smallest and largest heap. */
  fromUs: number;
  toUs: number;
  /** The measured median at the smallest heap: the cost growth is judged against. */
  smallestHeapUs: number;
}

function medianOf(xs: Float64Array | number[]): number {
  const s = Float64Array.from(xs).sort();
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

function resampledMedian(g: HeapGroup, rng: () => number): number {
  const pool: number[] = [];
  for (let i = 0; i < g.repeats.length; i++) {
    const r = g.repeats[Math.floor(rng() * g.repeats.length)]!;
    for (let j = 0; j < r.length; j++) pool.push(r[Math.floor(rng() * r.length)]!);
  }
  return medianOf(pool);
}

/** Null when fewer than two heap sizes have samples. */
export function heapSlope(groups: readonly HeapGroup[], opts: { seed: number; resamples?: number }): SlopeEstimate | null {
  const gs = groups.filter((g) => g.repeats.some((r) => r.length > 0)).map((g) => ({ ...g, repeats: g.repeats.filter((r) => r.length > 0) }));
  if (new Set(gs.map((g) => g.heapMb)).size < 2) return null;
  const xs = gs.map((g) => g.heapMb);
  const medians = gs.map((g) => medianOf(g.repeats.flat()));
  const point = linearFit(xs, medians);
  const rng = mulberry32(opts.seed);
  const slopes: number[] = [];
  const resamplable = gs.some((g) => g.repeats.flat().length > 1);
  for (let i = 0; resamplable && i < (opts.resamples ?? 1000); i++)
    slopes.push(
      linearFit(
        xs,
        gs.map((g) => resampledMedian(g, rng)),
      ).slope,
    );
  slopes.sort((a, b) => a - b);
  const at = (q: number) => slopes[Math.min(slopes.length - 1, Math.max(0, Math.round(q * (slopes.length - 1))))]!;
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return {
    slopeUsPerMb: point.slope,
    interceptUs: point.intercept,
    lowUsPerMb: slopes.length ? at(0.025) : null,
    highUsPerMb: slopes.length ? at(0.975) : null,
    fromUs: point.intercept + point.slope * lo,
    toUs: point.intercept + point.slope * hi,
    smallestHeapUs: medians[xs.indexOf(lo)]!,
  };
}

export type GrowthVerdict = 'flat' | 'grows' | 'unclear';

/** How much the fitted cost may change over the heap range and still be flat (as article 000's flat claims). */
const FLAT_LIMIT = 0.25;

/**
 * Judged with the interval: grows when even its low end adds more than FLAT_LIMIT of the cost at the
 * smallest heap over the range measured; flat (does not grow) when even its high end adds no more than
 * that; unclear when the interval reaches both sides of the limit. The cost at the smallest heap is the measured
 * median there, not the fitted line's start: growth that is faster than linear (a fork copying page tables)
 * gives a line that starts below zero.
 */
export function growthVerdict(s: SlopeEstimate, heapRangeMb: number): GrowthVerdict {
  if (s.lowUsPerMb === null || s.highUsPerMb === null || s.smallestHeapUs <= 0 || heapRangeMb <= 0) return 'unclear';
  const low = (s.lowUsPerMb * heapRangeMb) / s.smallestHeapUs;
  const high = (s.highUsPerMb * heapRangeMb) / s.smallestHeapUs;
  if (low > FLAT_LIMIT) return 'grows';
  if (high <= FLAT_LIMIT) return 'flat';
  return 'unclear';
}
