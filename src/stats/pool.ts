/**
 * Pooling a configuration's repeats into one figure: the median of every sample of every repeat, and its
 * hierarchical bootstrap interval (repeats, then samples within each repeat; see resample.ts). Used by the
 * experiments' summaries, the claims, the reports and the comparison of runs, so that one configuration has
 * one median and one interval everywhere.
 */
import { describe, type Summary } from './descriptive.js';
import { bootstrapQuantity, single, type Repeats } from './resample.js';

export interface PooledFigure extends Summary {
  /** Repeats (probe processes) with at least one sample. */
  repeats: number;
  ciLowNs: number;
  ciHighNs: number;
  ciConfidence: number;
}

/** The repeats that hold samples (a failed repeat contributes none). */
export function nonEmpty(repeats: Repeats): number[][] {
  return repeats.filter((r) => r.length > 0).map((r) => [...r]);
}

/**
 * Pools repeats into one median with its interval; null when no repeat has a sample. `seed` is the run's
 * --seed: the same samples and seed give the same interval.
 */
export function poolRepeats(repeats: Repeats, seed: number, confidence = 0.95): PooledFigure | null {
  const reps = nonEmpty(repeats);
  if (reps.length === 0) return null;
  const d = describe(reps.flat());
  const ci = bootstrapQuantity({ blocks: [single(reps)], statistic: 'median', combine: (s) => s[0]! }, { seed, confidence });
  return { ...d, repeats: reps.length, ciLowNs: ci?.low ?? d.medianNs, ciHighNs: ci?.high ?? d.medianNs, ciConfidence: confidence };
}

/** Whether two series were measured in the same iterations: same repeats, same samples per repeat. */
export function samePairing(a: Repeats, b: Repeats): boolean {
  return a.length === b.length && a.every((r, i) => r.length === b[i]!.length);
}

/**
 * Interval of median(b) ÷ median(a). `paired`: the two series were timed in the same iterations (one block,
 * resampled together); otherwise (e.g. two runs) each is resampled on its own. Null without samples, or when
 * the ratio cannot be resampled (a zero denominator).
 */
export function ratioOfMedians(
  a: Repeats,
  b: Repeats,
  seed: number,
  opts: { confidence?: number; paired?: boolean } = {},
): { ratio: number; low: number; high: number; confidence: number } | null {
  const confidence = opts.confidence ?? 0.95;
  const ra = nonEmpty(a);
  const rb = nonEmpty(b);
  if (ra.length === 0 || rb.length === 0) return null;
  const paired = opts.paired === true && samePairing(a, b) && ra.length === a.length;
  const blocks = paired ? [{ series: [rb, ra] }] : [single(rb), single(ra)];
  const ci = bootstrapQuantity({ blocks, statistic: 'median', combine: (s) => s[0]! / s[1]! }, { seed, confidence });
  return ci === null ? null : { ratio: ci.point, low: ci.low, high: ci.high, confidence };
}
