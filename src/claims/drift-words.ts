// What a verdict says about the drift it was widened by: how much runs here vary, what it was learnt from, and,
// when only the drift keeps a verdict open, that it does and what would settle it (docs/reproduce.md).
import type { DriftScale } from '../stats/drift.js';
import type { DriftClass, QuantityDrift } from './drift.js';
import { fmtNum } from './format.js';

/** The drift a verdict's intervals were widened by (its quantities', the widest first). */
export interface VerdictDrift {
  /** The widest drift among its quantities: a relative standard deviation in %, or percentage points of a share. */
  percent: number;
  unit: '%' | 'points';
  /** The fewest earlier runs of this machine any of its quantities was learnt from (0: the prior alone). */
  runs: number;
  /** The priors that weighed in, named (a prior weighs less with every earlier run). */
  priors: string[];
  quantities: { label: string; class: DriftClass; scale: DriftScale; percent: number; runs: number; pooled?: number }[];
  /** The runs its values pool, this one among them, where they are the machine's (the fewest of its quantities'); absent: this run's alone. */
  pooled?: number;
}

/** Earlier runs below this many leave a verdict's drift mostly the prior's: the notes name it. */
export const FEW_RUNS = 4;

export function summarizeDrift(used: readonly QuantityDrift[]): VerdictDrift {
  const qs = used.map((u) => ({ label: u.label, class: u.class, scale: u.scale, percent: u.percent, runs: u.runs, ...(u.pooled ? { pooled: u.pooled.runs } : {}) }));
  const widest = [...qs].sort((a, b) => b.percent - a.percent)[0]!;
  const runs = Math.min(...qs.map((q) => q.runs));
  const pooled = qs.some((q) => q.pooled) ? Math.min(...qs.map((q) => q.pooled ?? 1)) : 0;
  return {
    percent: widest.percent,
    unit: widest.scale === 'absolute' ? 'points' : '%',
    runs,
    priors: [...new Set(used.filter((u) => u.runs < FEW_RUNS).map((u) => u.prior))],
    quantities: qs,
    ...(pooled > 0 ? { pooled } : {}),
  };
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** "±4.2 %" or "±1.5 percentage points". */
export function driftAmount(d: Pick<VerdictDrift, 'percent' | 'unit'>): string {
  return `±${fmtNum(d.percent)} ${d.unit === '%' ? '%' : 'percentage points'}`;
}

/** "runs here vary by ±4.2 % (learnt from 6 earlier runs on this machine)". */
function driftWords(d: VerdictDrift): string {
  const from =
    d.runs === 0
      ? 'no earlier run of it on this machine yet: the stated prior, docs/reproduce.md'
      : `learnt from ${plural(d.runs, 'earlier run')} on this machine${d.runs < FEW_RUNS ? ', with the stated prior' : ''}`;
  return `runs here vary by ${driftAmount(d)} (${from})`;
}

const outcomeWords = (o: 'holds' | 'differs' | 'inconclusive') => (o === 'holds' ? 'it holds' : o === 'differs' ? 'it differs' : 'it is open');

/**
 * The words for a verdict that only the drift keeps open, where this run alone says `alone`: what to add to its
 * detail (near the band's edge), and what would settle it (`sessions`: the separate runs these data pool).
 */
export function driftKeepsOpen(d: VerdictDrift, alone: 'holds' | 'differs', sessions: number): { near: string; settle: string } {
  const later =
    d.pooled !== undefined && d.pooled > 1
      ? `more runs of reproduce made at other times (each joins this machine's pool, now ${d.pooled} runs: the drift of their mean shrinks as 1 ÷ √runs)`
      : `judge runs made at different times together (forklab judge with their ids: the drift of their mean shrinks as 1 ÷ √runs${sessions > 1 ? `; these data already pool ${sessions}` : ''}; reproduce pools the runs before it)`;
  return {
    near: `near the band's edge on this machine: ${driftWords(d)}, more than one run's own interval shows; this run's own interval says ${outcomeWords(alone)}`,
    settle: `not this run's noise but the drift between runs keeps it open, so more probes now cannot settle it: ${later}, or measure on a quieter machine`,
  };
}
