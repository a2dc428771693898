// How `forklab selfcheck` judges a pair: forklab's figure ÷ the bare loop's, with a 95 % interval over rounds and
// blocks, against ±TOLERANCE. Pure; src/lab/selfcheck.ts measures the pairs, src/report/selfcheck.ts prints them.
import { mean, median } from '../stats/descriptive.js';
import { ratioOfMedians } from '../stats/pool.js';
import type { SelfcheckPair } from '../experiments/contract/selfcheck.js';
import type { Method, ThpMode } from '../experiments/spawn/summary.js';

export const TOLERANCE = 0.1;
/**
 * Calls per block. Each side's figure is the median of its blocks' means per call over all rounds: still a mean per
 * call, as the articles measure, but a VM preemption or a page-fault storm spoils one block instead of a round.
 */
export const BLOCK = 10;
/** Seed of the intervals (the same rounds give the same verdict). */
const SEED = 1;

/** Means of consecutive blocks of `block` samples (a trailing partial block is left out unless it is the only one). */
export function blockMeans(samples: readonly number[], block: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + block <= samples.length; i += block) out.push(mean(samples.slice(i, i + block)));
  return out.length ? out : samples.length ? [mean(samples)] : [];
}

export interface SelfcheckParams {
  suites: string[];
  methods: Method[];
  rssMb: number[];
  thp: ThpMode[];
  iterations: number;
  rounds: number;
  pinCpu: number | null;
}

/** One comparison of a suite (an experiment's selfcheck pair, src/experiments/contract/selfcheck.ts). */
export interface Pair extends SelfcheckPair {
  suite: string;
}

export interface Cell {
  pair: Pair;
  /** Each round's blocks per side: means per call (per page for cow) in ns, one array per fresh process. */
  probeRoundsNs: number[][];
  loopRoundsNs: number[][];
  failures: string[];
}

export type PairVerdict = 'ok' | 'out' | 'undecided';

export interface PairResult {
  probeNs: number;
  loopNs: number;
  /** forklab ÷ loop, with its 95 % interval from resampling rounds, then blocks within each round (paired by round). */
  ratio: number;
  low: number;
  high: number;
  /** ok: the whole interval within ±TOLERANCE; out: entirely outside; undecided: across an edge. */
  verdict: PairVerdict;
  /** How far apart the rounds of one side are (max ÷ min of their medians − 1), the larger of the two sides. */
  roundSwing: number;
}

/**
 * Each side's figure is the median of its blocks over every round; the ratio's interval resamples rounds (the
 * probe's and the loop's of one round together: they ran back to back), then blocks, so that swings between fresh
 * processes widen it instead of deciding the verdict by chance.
 */
export function pairResult(c: Cell): PairResult | null {
  if (!c.probeRoundsNs.length || !c.loopRoundsNs.length) return null;
  const probeNs = median(c.probeRoundsNs.flat());
  const loopNs = median(c.loopRoundsNs.flat());
  if (!(loopNs > 0)) return null;
  const ci = ratioOfMedians(c.loopRoundsNs, c.probeRoundsNs, SEED, { paired: true });
  const ratio = probeNs / loopNs;
  const low = ci?.low ?? ratio;
  const high = ci?.high ?? ratio;
  const verdict: PairVerdict = low >= 1 - TOLERANCE && high <= 1 + TOLERANCE ? 'ok' : high < 1 - TOLERANCE || low > 1 + TOLERANCE ? 'out' : 'undecided';
  const swing = (rounds: number[][]) => {
    const m = rounds.filter((r) => r.length).map((r) => median(r));
    return m.length > 1 ? Math.max(...m) / Math.min(...m) - 1 : 0;
  };
  return { probeNs, loopNs, ratio, low, high, verdict, roundSwing: Math.max(swing(c.probeRoundsNs), swing(c.loopRoundsNs)) };
}
