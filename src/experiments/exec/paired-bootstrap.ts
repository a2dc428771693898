// exec's three series timed in the same iterations of one probe: a baseline (fork+_exit) and two programs (the
// dynamic or --target one, the static one). Their samples repeat by repeat, and the paired bootstrap of the
// differences to the baseline and of their ratio, from one resampling of probe processes, then iterations.
import { samePairing } from '../../stats/pool.js';
import { bootstrapQuantity, type Repeats } from '../../stats/resample.js';
import type { Measurement } from '../contract/types.js';

/**
 * exec's three series (fork-exit, MIDDLE, exec-static): samples of the repeats where all three succeeded, repeat by repeat, in iteration order: the baseline, the
 * program measured (exec-dynamic, or exec-target for --target) and the static one.
 */
export function pairedSamples(ms: readonly Measurement[], middle: string): [number[][], number[][], number[][]] {
  const names = ['fork-exit', middle, 'exec-static'];
  const out: [number[][], number[][], number[][]] = [[], [], []];
  for (const repeat of new Set(ms.map((m) => m.repeat))) {
    const three = names.map((s) => ms.find((m) => m.repeat === repeat && m.series === s));
    if (three.some((m) => m?.state !== 'ok') || new Set(three.map((m) => m!.samplesNs.length)).size !== 1) continue;
    for (const k of names.keys()) out[k]!.push(three[k]!.samplesNs);
  }
  return out;
}

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
