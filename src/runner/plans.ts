// Sampling plans: how many timed iterations a probe runs. The C probe only runs what it is told.
import type { SamplingPlan, SeriesData } from './probe.js';
import { medianRankInterval } from '../stats/ranks.js';

/** Timed iterations so far: a batch may report several series, one sample each per iteration. */
function total(measured: ReadonlyMap<string, SeriesData>): number {
  let n = 0;
  for (const s of measured.values()) n = Math.max(n, s.samplesNs.length);
  return n;
}

/** Exactly `iterations` timed iterations in one batch after `warmupIterations`. */
export function fixedPlan(warmupIterations: number, iterations: number): SamplingPlan {
  return { warmupIterations, next: (m) => Math.max(0, iterations - total(m)) };
}

export interface AdaptiveOptions {
  warmupIterations: number;
  batchIterations: number;
  minIterations: number;
  maxIterations: number;
  /** Stop once the median's 95 % interval lies within ±this fraction of the median (0.02 = ±2 %). */
  targetCiFraction: number;
  /** Stop asking for batches once this much time has passed since setup ended and minIterations are in. */
  budgetMs: number;
}

/** Why an adaptive plan stopped, for the record. */
/** Why adaptive sampling stopped. */
export const STOP_REASONS = ['ci-reached', 'max-iterations', 'budget'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The wider half of the median's distribution-free (rank) interval from these samples ÷ the median: what an
 * adaptive plan stops on. Infinity when the median is not above 0.
 */
export function rankCiHalfWidthFraction(samplesNs: readonly number[], confidence = 0.95): number {
  const sorted = [...samplesNs].sort((a, b) => a - b);
  const { lowNs, highNs, medianNs } = medianRankInterval(sorted, confidence);
  return medianNs > 0 ? Math.max(medianNs - lowNs, highNs - medianNs) / medianNs : Infinity;
}

/** Runs batches until every series' median has a tight enough distribution-free interval, or a cap is reached. */
export function adaptivePlan(o: AdaptiveOptions): SamplingPlan & { stopReason: () => StopReason | null } {
  let reason: StopReason | null = null;
  return {
    warmupIterations: o.warmupIterations,
    stopReason: () => reason,
    next(measured, elapsedMs) {
      const n = total(measured);
      if (n >= o.maxIterations) {
        reason = 'max-iterations';
        return 0;
      }
      if (n >= o.minIterations) {
        let worst = 0;
        for (const s of measured.values()) worst = Math.max(worst, rankCiHalfWidthFraction(s.samplesNs));
        if (worst <= o.targetCiFraction) {
          reason = 'ci-reached';
          return 0;
        }
      }
      if (elapsedMs >= o.budgetMs && n >= o.minIterations) {
        reason = 'budget';
        return 0;
      }
      return Math.min(o.batchIterations, o.maxIterations - n);
    },
  };
}
