/**
 * Percentile-bootstrap intervals of a median and of a ratio of two medians, for samples pooled into one
 * repeat. Both are the one bootstrap of resample.ts (hierarchical when given repeats, see pool.ts); these
 * keep the simple signatures for the places that have one array of samples.
 */

import { assertSamples } from './descriptive.js';
import { bootstrapQuantity, single, RESAMPLES } from './resample.js';

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
  /** PRNG seed (integer): the run's --seed. Same input + seed gives identical output. */
  seed: number;
  /** Number of bootstrap resamples; default RESAMPLES (2000). */
  resamples?: number;
  /** Nominal coverage in (0, 1); default 0.95. */
  confidence?: number;
}

function check(opts: BootstrapOptions, what: string): { resamples: number; confidence: number } {
  const resamples = opts.resamples ?? RESAMPLES;
  const confidence = opts.confidence ?? 0.95;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`${what}: resamples must be a positive integer, got ${resamples}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`${what}: confidence must be strictly between 0 and 1, got ${confidence}`);
  if (!Number.isInteger(opts.seed)) throw new RangeError(`${what}: seed must be an integer, got ${opts.seed}`);
  return { resamples, confidence };
}

/**
 * Percentile bootstrap interval of the median. For a single sample x, or constant data, the interval is
 * [x, x]. Throws a RangeError on empty or non-finite input or invalid options.
 */
export function bootstrapMedianCi(samplesNs: readonly number[], opts: BootstrapOptions): Interval {
  const { resamples, confidence } = check(opts, 'bootstrapMedianCi');
  assertSamples(samplesNs, 'bootstrapMedianCi');
  const ci = bootstrapQuantity({ blocks: [single([samplesNs])], statistic: 'median', combine: (s) => s[0]! }, { seed: opts.seed, resamples, confidence });
  if (ci === null) return { lowNs: samplesNs[0]!, highNs: samplesNs[0]!, confidence };
  return { lowNs: ci.low, highNs: ci.high, confidence };
}

/**
 * The wider half of a given interval around a given median, relative to it:
 * max(median - low, high - median) / |median|, a fraction (0.02 = ±2 %).
 * If the median is 0 the result is 0 for a zero-width interval and Infinity
 * otherwise. Throws a RangeError on non-finite arguments. (The adaptive plans
 * stop on the rank interval's width from the samples instead: rankCiHalfWidthFraction
 * in src/runner/plans.ts.)
 */
export function intervalHalfWidthFraction(medianNs: number, interval: Pick<Interval, 'lowNs' | 'highNs'>): number {
  const { lowNs, highNs } = interval;
  if (!Number.isFinite(medianNs) || !Number.isFinite(lowNs) || !Number.isFinite(highNs)) {
    throw new RangeError(`intervalHalfWidthFraction: arguments must be finite (median ${medianNs}, low ${lowNs}, high ${highNs})`);
  }
  const half = Math.max(medianNs - lowNs, highNs - medianNs, 0);
  if (medianNs === 0) return half === 0 ? 0 : Infinity;
  return half / Math.abs(medianNs);
}
