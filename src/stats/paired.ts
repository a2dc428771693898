// The paired bootstrap of three series timed in the same iterations: a baseline and two programs (exec's
// fork+_exit, the dynamic or --target program, the static one). Intervals of each program minus the baseline
// and of their ratio, from one resampling of probe processes, then iterations, for all three at once.
import { samePairing } from './pool.js';
import { bootstrapQuantity, type Repeats } from './resample.js';

/**
 * Paired hierarchical bootstrap (src/stats/resample.ts): the three series are timed in every iteration, so
 * one block resamples probe processes, then iterations, for all three at once (drift shared by the three
 * cancels in the differences). Intervals for med(dyn) − med(base), med(stat) − med(base) and their ratio
 * (null when too many resamples have static ≤ 0).
 */
export function pairedExecBootstrap(base: Repeats, dyn: Repeats, stat: Repeats, seed: number, resamples?: number, confidence = 0.95) {
  if (base.length === 0 || !samePairing(base, dyn) || !samePairing(base, stat)) throw new RangeError('pairedExecBootstrap: three non-empty series of equal length');
  const blocks = [{ series: [base, dyn, stat] }];
  const opts = { seed, confidence, ...(resamples === undefined ? {} : { resamples }) };
  const of = (combine: (s: readonly number[]) => number): [number, number] | null => {
    const ci = bootstrapQuantity({ blocks, statistic: 'median', combine }, opts);
    return ci === null ? null : [ci.low, ci.high];
  };
  const d = (s: readonly number[]) => s[1]! - s[0]!;
  const st = (s: readonly number[]) => s[2]! - s[0]!;
  const zero: [number, number] = [0, 0];
  return { dynamic: of(d) ?? zero, static: of(st) ?? zero, ratio: of((s) => (st(s) > 0 ? d(s) / st(s) : NaN)), confidence };
}
