/**
 * Statistics of a comparison of two runs, configuration by configuration: the ratio of pooled medians with
 * its hierarchical bootstrap interval (each run's repeats resampled, then the samples within them), a
 * Mann-Whitney U test on the pooled samples, and the rule that decides when a difference is marked.
 */
import { median } from './descriptive.js';
import { mannWhitneyU } from './mannwhitney.js';
import { nonEmpty, ratioOfMedians } from './pool.js';
import type { Repeats } from './resample.js';

/**
 * When a difference is marked: two-sided Mann–Whitney p below maxP, the bootstrap interval of the ratio of
 * medians (at `confidence`) excluding 1, and the ratio at least minEffect away from 1.
 */
export const VERDICT_RULE = { maxP: 0.01, confidence: 0.95, minEffect: 0.05 } as const;

export type ComparisonVerdict = 'faster' | 'slower' | 'same';

/** The verdict for B relative to A, by VERDICT_RULE. */
export function verdictOf(ratio: number | null, low: number | null, high: number | null, pValue: number): ComparisonVerdict {
  if (ratio === null || low === null || high === null) return 'same';
  const clear = pValue < VERDICT_RULE.maxP && (low > 1 || high < 1);
  if (!clear || Math.abs(ratio - 1) < VERDICT_RULE.minEffect) return 'same';
  return ratio > 1 ? 'slower' : 'faster';
}

export interface SeriesComparison {
  medianANs: number;
  medianBNs: number;
  /** median(B) / median(A); null when A's median is 0. */
  ratio: number | null;
  /** Bootstrap interval of the ratio; null when some sample of A is 0 (no ratio can be resampled). */
  ratioLow: number | null;
  ratioHigh: number | null;
  /** Two-sided Mann–Whitney U p-value on the pooled samples. */
  pValue: number;
  verdict: ComparisonVerdict;
}

/** Compares configuration B against A from their repeats' samples (each must hold at least one sample). */
export function compareSeries(a: Repeats, b: Repeats, seed: number): SeriesComparison {
  const pa = nonEmpty(a).flat();
  const pb = nonEmpty(b).flat();
  const ma = median(pa);
  const mb = median(pb);
  const ratio = ma > 0 ? mb / ma : null;
  let low: number | null = null;
  let high: number | null = null;
  if (ratio !== null && pa.every((x) => x > 0)) {
    const ci = ratioOfMedians(a, b, seed, { confidence: VERDICT_RULE.confidence });
    low = ci?.low ?? ratio;
    high = ci?.high ?? ratio;
  }
  const pValue = mannWhitneyU(pa, pb).pValue;
  return { medianANs: ma, medianBNs: mb, ratio, ratioLow: low, ratioHigh: high, pValue, verdict: verdictOf(ratio, low, high, pValue) };
}
