/**
 * Percentile-bootstrap confidence intervals for medians and ratios of medians.
 *
 * Implementation note: each resample draws n indices into the *sorted*
 * original data and counts how often each index was drawn. Because the data
 * are sorted, the k-th smallest value of the resample is the value at the
 * index where the running count first exceeds k, so a resample's median costs
 * O(n) with no sorting or comparisons. Buffers are allocated once per call.
 * A side effect is that results depend only on the multiset of values and the
 * seed, not on the order of the input.
 */

import { assertSamples, quantileUnchecked, sortedCopy } from './descriptive.js';
import { mulberry32 } from './random.js';

/** A confidence interval; bounds in nanoseconds. */
export interface Interval {
  lowNs: number;
  highNs: number;
  /** Nominal coverage, e.g. 0.95. */
  confidence: number;
}

/** A confidence interval for median(a) / median(b) (dimensionless). */
export interface RatioInterval {
  ratio: number;
  low: number;
  high: number;
  confidence: number;
}

export interface BootstrapOptions {
  /** Number of bootstrap resamples; default 2000. */
  resamples?: number;
  /** Nominal coverage in (0, 1); default 0.95. */
  confidence?: number;
  /** PRNG seed (integer); default 1. Same input + seed gives identical output. */
  seed?: number;
}

interface ResolvedOptions {
  resamples: number;
  confidence: number;
  seed: number;
}

function resolveOptions(opts: BootstrapOptions | undefined, what: string): ResolvedOptions {
  const resamples = opts?.resamples ?? 2000;
  const confidence = opts?.confidence ?? 0.95;
  const seed = opts?.seed ?? 1;
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`${what}: resamples must be a positive integer, got ${resamples}`);
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`${what}: confidence must be strictly between 0 and 1, got ${confidence}`);
  }
  if (!Number.isInteger(seed)) {
    throw new RangeError(`${what}: seed must be an integer, got ${seed}`);
  }
  return { resamples, confidence, seed };
}

/**
 * Draws resample medians from sorted data. `counts` must have length
 * sorted.length; it is overwritten.
 */
function resampleMedian(sorted: Float64Array, counts: Uint32Array, rng: () => number): number {
  const n = sorted.length;
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    // rng() < 1, so the index is always < n.
    counts[Math.floor(rng() * n)]! += 1;
  }
  // 0-based ranks of the middle element(s).
  const kLo = (n - 1) >> 1;
  const kHi = n >> 1;
  let cum = 0;
  let lo = NaN;
  for (let j = 0; j < n; j++) {
    cum += counts[j]!;
    if (Number.isNaN(lo) && cum > kLo) lo = sorted[j]!;
    if (cum > kHi) return kLo === kHi ? lo : (lo + sorted[j]!) / 2;
  }
  // Unreachable: the counts sum to n > kHi.
  throw new Error('resampleMedian: internal error');
}

function percentileInterval(stats: Float64Array, confidence: number): [number, number] {
  stats.sort();
  const alpha = 1 - confidence;
  return [quantileUnchecked(stats, alpha / 2), quantileUnchecked(stats, 1 - alpha / 2)];
}

/**
 * Percentile bootstrap confidence interval of the median. Seeded and
 * reproducible. For a single sample x the interval is [x, x].
 * Throws a RangeError on empty or non-finite input or invalid options.
 */
export function bootstrapMedianCi(samplesNs: readonly number[], opts?: BootstrapOptions): Interval {
  const { resamples, confidence, seed } = resolveOptions(opts, 'bootstrapMedianCi');
  assertSamples(samplesNs, 'bootstrapMedianCi');
  const sorted = sortedCopy(samplesNs);
  const n = sorted.length;
  if (n === 1 || sorted[0] === sorted[n - 1]) {
    const x = sorted[0]!;
    return { lowNs: x, highNs: x, confidence };
  }
  const rng = mulberry32(seed);
  const counts = new Uint32Array(n);
  const medians = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) medians[r] = resampleMedian(sorted, counts, rng);
  const [lowNs, highNs] = percentileInterval(medians, confidence);
  return { lowNs, highNs, confidence };
}

/**
 * Percentile bootstrap confidence interval of median(a) / median(b), resampling
 * a and b independently (one seeded stream, a then b each round). Every value
 * of b must be > 0 so that no resampled denominator can be zero or negative,
 * which is the case for durations.
 */
export function bootstrapRatioCi(
  a: readonly number[],
  b: readonly number[],
  opts?: BootstrapOptions,
): RatioInterval {
  const { resamples, confidence, seed } = resolveOptions(opts, 'bootstrapRatioCi');
  assertSamples(a, 'bootstrapRatioCi (a)');
  assertSamples(b, 'bootstrapRatioCi (b)');
  const sa = sortedCopy(a);
  const sb = sortedCopy(b);
  if (!(sb[0]! > 0)) {
    throw new RangeError(`bootstrapRatioCi: every value of b must be > 0, found ${sb[0]}`);
  }
  const ratio = quantileUnchecked(sa, 0.5) / quantileUnchecked(sb, 0.5);
  const rng = mulberry32(seed);
  const ca = new Uint32Array(sa.length);
  const cb = new Uint32Array(sb.length);
  const ratios = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    const ma = resampleMedian(sa, ca, rng);
    const mb = resampleMedian(sb, cb, rng);
    ratios[r] = ma / mb;
  }
  const [low, high] = percentileInterval(ratios, confidence);
  return { ratio, low, high, confidence };
}

/**
 * Half-width of an interval relative to a point estimate:
 * max(median - low, high - median) / |median|. Used as a stopping rule
 * (e.g. stop sampling once this is <= 0.02, i.e. within +/-2 %).
 * If median is 0 the result is 0 for a zero-width interval and Infinity
 * otherwise. Throws a RangeError on non-finite arguments.
 */
export function ciHalfWidthFraction(median: number, interval: Pick<Interval, 'lowNs' | 'highNs'>): number {
  const { lowNs, highNs } = interval;
  if (!Number.isFinite(median) || !Number.isFinite(lowNs) || !Number.isFinite(highNs)) {
    throw new RangeError(
      `ciHalfWidthFraction: arguments must be finite (median ${median}, low ${lowNs}, high ${highNs})`,
    );
  }
  const half = Math.max(median - lowNs, highNs - median, 0);
  if (median === 0) return half === 0 ? 0 : Infinity;
  return half / Math.abs(median);
}
