/**
 * Descriptive statistics over samples (typically durations in nanoseconds).
 * No function here mutates its input.
 */

/** Summary of a set of samples; every `...Ns` field is in nanoseconds. */
export interface Summary {
  n: number;
  minNs: number;
  medianNs: number;
  meanNs: number;
  p90Ns: number;
  p99Ns: number;
  maxNs: number;
  /** Sample standard deviation (n - 1 denominator); 0 when n = 1. */
  stdevNs: number;
  /** Coefficient of variation, stdevNs / |meanNs|, as a fraction (0.05 = 5 %). */
  cv: number;
}

/**
 * Throws a RangeError unless `xs` is non-empty and every value is finite.
 * Exported for the other stats modules; not part of the public API surface.
 */
export function assertSamples(xs: ArrayLike<number>, what: string): void {
  if (xs.length === 0) {
    throw new RangeError(`${what}: needs at least one sample, got an empty array`);
  }
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as number;
    if (!Number.isFinite(x)) {
      throw new RangeError(`${what}: sample ${i} is not a finite number (${x})`);
    }
  }
}

/** Returns an ascending sorted copy as a Float64Array (numeric sort). */
function sortedCopy(xs: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(xs);
  out.sort();
  return out;
}

/**
 * Quantile of already-sorted (ascending) data by linear interpolation between
 * closest ranks: R type 7, numpy's default. With h = (n - 1) * q the result is
 * sorted[floor(h)] + (h - floor(h)) * (sorted[floor(h) + 1] - sorted[floor(h)]).
 *
 * Throws a RangeError if `sorted` is empty, not ascending, contains a
 * non-finite value, or if q is outside [0, 1].
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) {
    throw new RangeError(`quantile: q must be within [0, 1], got ${q}`);
  }
  assertSamples(sorted, 'quantile');
  for (let i = 1; i < sorted.length; i++) {
    if ((sorted[i] as number) < (sorted[i - 1] as number)) {
      throw new RangeError(`quantile: input must be sorted ascending (index ${i} is smaller than index ${i - 1})`);
    }
  }
  return quantileUnchecked(sorted, q);
}

/** quantile() without validation; for hot loops over data known to be valid. */
export function quantileUnchecked(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const xLo = sorted[lo] as number;
  if (lo >= n - 1) return xLo;
  const frac = h - lo;
  if (frac === 0) return xLo;
  const xHi = sorted[lo + 1] as number;
  return xLo + frac * (xHi - xLo);
}

/** Median (average of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  assertSamples(xs, 'median');
  return quantileUnchecked(sortedCopy(xs), 0.5);
}

/** Arithmetic mean. */
export function mean(xs: readonly number[]): number {
  assertSamples(xs, 'mean');
  return meanUnchecked(xs);
}

function meanUnchecked(xs: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i] as number;
  return sum / xs.length;
}

function stdevAround(xs: ArrayLike<number>, m: number): number {
  const n = xs.length;
  if (n < 2) return 0;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = (xs[i] as number) - m;
    ss += d * d;
  }
  return Math.sqrt(ss / (n - 1));
}

/** Sample standard deviation (n - 1 denominator); 0 for a single sample. */
export function stdev(xs: readonly number[]): number {
  assertSamples(xs, 'stdev');
  return stdevAround(xs, meanUnchecked(xs));
}

/**
 * Full summary of a set of samples. Percentiles use quantile() (type 7).
 * cv is stdev / |mean|; when the mean is 0 it is 0 if stdev is also 0 and
 * Infinity otherwise.
 */
export function describe(samplesNs: readonly number[]): Summary {
  assertSamples(samplesNs, 'describe');
  const sorted = sortedCopy(samplesNs);
  const n = sorted.length;
  // Summed in input order so the values match mean() and stdev() exactly.
  const meanNs = meanUnchecked(samplesNs);
  const stdevNs = stdevAround(samplesNs, meanNs);
  let cv: number;
  if (meanNs !== 0) cv = stdevNs / Math.abs(meanNs);
  else cv = stdevNs === 0 ? 0 : Infinity;
  return {
    n,
    minNs: sorted[0] as number,
    medianNs: quantileUnchecked(sorted, 0.5),
    meanNs,
    p90Ns: quantileUnchecked(sorted, 0.9),
    p99Ns: quantileUnchecked(sorted, 0.99),
    maxNs: sorted[n - 1] as number,
    stdevNs,
    cv,
  };
}
