// The machine's drift between runs inside every interval a verdict uses (docs/reproduce.md, "Drift between runs").
// Each quantity a claim judges (a configuration's statistic, a ratio, a slope, a shape's statistic) is named by a
// key — the claim, what the quantity is, the configurations it reads and how they were measured — so that the same
// quantity can be found in the machine's earlier runs. Its within-run estimates there teach τ (src/stats/drift.ts);
// the verdict's interval is widened by it before the band is applied. Pure: the history comes in as data.
import { createHash } from 'node:crypto';
import { driftPercent, driftPosterior, fromDriftScale, onDriftScale, poolRuns, widenForDrift, type DriftPrior, type DriftScale, type RunEstimate } from '../stats/drift.js';
import type { Range } from './bands.js';
import type { ExperimentData } from './data.js';
import { identityKey } from './select.js';

/** What kind of quantity drifts how: timings (and their shares) move with the machine; readings hardly do. */
export type DriftClass = 'timing' | 'timing-share' | 'reading' | 'reading-share';

/** One run's within-run estimate of a quantity, as stored: enough to learn τ from later. */
export interface QuantityEstimate extends RunEstimate {
  scale: DriftScale;
  class: DriftClass;
}

/** The estimates of one earlier run (or of the runs judged together then) of one experiment. */
export interface HistoryRun {
  /** The runs' uuids: a run judged now is never its own history. */
  runIds: readonly string[];
  startedAt: string;
  estimates: Readonly<Record<string, QuantityEstimate>>;
}

/**
 * The stated priors, one per class: half-Student-t (2 degrees of freedom) on τ, scaled from this machine's
 * benches (docs/reproduce.md, "The prior"). Relative classes: τ on the log scale; shares: in the share's own units.
 */
export const DRIFT_PRIORS: Readonly<Record<DriftClass, DriftPrior>> = {
  timing: { scale: 0.03, df: 2, name: 'the prior for timings: half-t(2) of scale 3 %' },
  'timing-share': { scale: 0.06, df: 2, name: 'the prior for shares of timings (a bow, a spread): half-t(2) of scale 6 points' },
  reading: { scale: 0.003, df: 2, name: 'the prior for readings (kB, faults, bytes): half-t(2) of scale 0.3 %' },
  'reading-share': { scale: 0.003, df: 2, name: 'the prior for shares of readings: half-t(2) of scale 0.3 points' },
};

/** The most earlier runs a quantity's drift is learnt from, most recent first. */
export const MAX_HISTORY_RUNS = 19;
/** How quantities are named and measured: stored estimates of another version are not this one's history. */
export const DRIFT_ESTIMATES_VERSION = 1;

/** How a judgement treats the machine's drift. */
export interface DriftOptions {
  /** Today's intervals, as one run shows them (--within-run): no widening. */
  withinRun?: boolean;
  /** Earlier runs of this machine, by experiment, most recent first (absent: none, the prior alone). */
  history?: Readonly<Record<string, readonly HistoryRun[]>>;
  priors?: Readonly<Record<DriftClass, DriftPrior>>;
  /**
   * Judge the machine's value: each quantity's estimate pooled with its estimates in the most recent runs started
   * before the judged data (τ is learnt from the most recent runs, whenever made). Absent or false: this run alone.
   */
  pool?: boolean;
}

/** What one quantity's widening used: shown with the verdict. */
export interface QuantityDrift {
  label: string;
  scale: DriftScale;
  class: DriftClass;
  /** The posterior median of τ, as ±% (shares: percentage points). */
  percent: number;
  /** Earlier runs of this machine it was learnt from (0: the prior alone). */
  runs: number;
  prior: string;
  within: Range;
  widened: Range;
  /** Pooled with earlier runs (pool): the runs pooled, this one among them, and the machine's value they give. */
  pooled?: { runs: number; point: number };
}

/** Per claim: the quantities in the order its check measures them, their within-run figures, the drift used. */
export class QuantityLog {
  private seq = 0;
  private readonly memo = new Map<number, unknown>();
  private readonly seen = new Set<string>();
  readonly estimates: Record<string, QuantityEstimate> = {};
  readonly used: QuantityDrift[] = [];
  /** shared: the quantities measured for other claims on the same documents, by what they are (the same data, the same interval). */
  constructor(
    readonly claimId: string,
    private readonly shared?: Map<string, unknown>,
  ) {}

  /** The next quantity's slot: the second pass over a check measures the same quantities in the same order. */
  next(): number {
    return this.seq++;
  }
  restart(): void {
    this.seq = 0;
    this.used.length = 0;
    this.seen.clear();
  }
  /** The key made unique within one pass (a check that measures the same quantity twice gets #2, #3…). */
  unique(key: string): string {
    let k = key;
    for (let i = 2; this.seen.has(k); i++) k = `${key}#${i}`;
    this.seen.add(k);
    return k;
  }
  remembered<T>(slot: number, f: () => T, what?: string): T {
    if (!this.memo.has(slot)) {
      const known = what !== undefined ? this.shared?.get(what) : undefined;
      const v = known ?? f();
      if (what !== undefined && known === undefined) this.shared?.set(what, v);
      this.memo.set(slot, v);
    }
    return this.memo.get(slot) as T;
  }
}

/** The parameters that say how a run measured (iterations, warm-up, budgets), not how many probes or which cells. */
const NOT_HOW: ReadonlySet<string> = new Set(['repeats', 'maxRepeats', 'repeatsCiTarget', 'repeatsBudgetS', 'repeatsStop', 'settleOf', 'requestedVmas']);

/** The parameters of a run that say how it measured, as one comparable string. */
function howMeasured(p: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(
    Object.entries(p)
      .filter(([k, v]) => !NOT_HOW.has(k) && (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean'))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** Two runs measured the same way (the same iterations, warm-up, budgets…; repeats and cells may differ). */
export function sameMeasurement(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  return howMeasured(a) === howMeasured(b);
}

const SCALES: ReadonlySet<string> = new Set(['log', 'relative', 'absolute']);
const CLASSES: ReadonlySet<string> = new Set(['timing', 'timing-share', 'reading', 'reading-share']);
const num = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

/** The well-formed estimates of a stored set (anything else is left out, never trusted). */
export function asQuantityEstimates(raw: Readonly<Record<string, unknown>>): Record<string, QuantityEstimate> {
  const out: Record<string, QuantityEstimate> = {};
  for (const [k, v] of Object.entries(raw)) {
    const e = v as Partial<QuantityEstimate> | null;
    if (typeof e !== 'object' || e === null || !SCALES.has(String(e.scale)) || !CLASSES.has(String(e.class)) || !num(e.point) || !num(e.confidence)) continue;
    if (!(e.confidence! > 0 && e.confidence! < 1) || !((e.low === null && e.high === null) || (num(e.low) && num(e.high) && e.low! <= e.high!))) continue;
    out[k] = e as QuantityEstimate;
  }
  return out;
}

function paramsSignature(data: ExperimentData): string {
  const keys = new Set<string>();
  for (const p of data.params ?? [])
    for (const [k, v] of Object.entries(p)) if (!NOT_HOW.has(k) && (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')) keys.add(k);
  return [...keys]
    .sort()
    .map((k) => `${k}=${[...new Set((data.params ?? []).map((p) => JSON.stringify(p[k] ?? null)))].join('|')}`)
    .join(';');
}

/** The configurations a quantity reads (its groups' keys are positions in data.configs), as identities. */
function configsSignature(data: ExperimentData, keys: readonly string[]): string {
  const ids = new Set<string>();
  for (const k of keys)
    for (const part of k.replace(/−$/, '').split(',')) {
      const c = data.configs[Number(part)];
      if (c) ids.add(identityKey(data, c));
    }
  return [...ids].sort().join('');
}

/** The key of a quantity: the claim, what it is, the configurations it reads, how they were measured. */
export function quantityKey(claimId: string, label: string, data: ExperimentData, keys: readonly string[]): string {
  const h = createHash('sha256')
    .update(`${configsSignature(data, keys)}\n${paramsSignature(data)}`)
    .digest('hex')
    .slice(0, 16);
  return `${claimId}|${label}|${h}`;
}

export function driftClass(readings: boolean, scale: DriftScale): DriftClass {
  if (readings) return scale === 'absolute' ? 'reading-share' : 'reading';
  return scale === 'absolute' ? 'timing-share' : 'timing';
}

/**
 * A quantity's within-run interval widened by its drift on this machine: its estimates in the earlier runs (the
 * ones not judged now, most recent first, at most MAX_HISTORY_RUNS) and in this one, under the class's prior. With
 * `pool`, the machine's value instead: this run's estimate pooled with those of the most recent runs that started
 * before it, at most MAX_HISTORY_RUNS (src/stats/drift.ts, poolRuns), its point with it.
 */
export function widenByDrift(
  est: QuantityEstimate,
  key: string,
  label: string,
  data: ExperimentData,
  opts: DriftOptions,
): { interval: Range; point: number; used: QuantityDrift } | null {
  if (est.low === null || est.high === null) return null;
  const mine = new Set(data.runIds ?? []);
  const others = (opts.history?.[data.experiment] ?? [])
    .filter((h) => !h.runIds.some((id) => mine.has(id)))
    .map((h) => ({ at: h.startedAt, e: h.estimates[key] }))
    .filter((h): h is { at: string; e: QuantityEstimate } => h.e !== undefined && h.e.scale === est.scale);
  const earlier = others.slice(0, MAX_HISTORY_RUNS).map((h) => h.e);
  const sessions = Math.max(1, data.sessions ?? 1);
  // Several separate runs judged together are one pooled estimate, not one run: they teach τ only through history.
  const runs: RunEstimate[] = sessions === 1 ? [...earlier, est] : earlier;
  const prior = (opts.priors ?? DRIFT_PRIORS)[est.class];
  const post = driftPosterior(runs, est.scale, prior);
  const alone = widenForDrift(est.point, est.low, est.high, post, est.confidence, sessions);
  const before = data.startedAt;
  // pooled: the most recent runs before this one (τ is learnt from the most recent runs, whenever they were made)
  const poolable =
    opts.pool === true && sessions === 1 && before !== undefined
      ? others
          .filter((h) => h.at < before)
          .slice(0, MAX_HISTORY_RUNS)
          .map((h) => h.e)
      : [];
  const pooled = poolable.length > 0 ? poolRuns([...poolable, est], post, est.confidence) : null;
  const value = pooled ? fromDriftScale(pooled, est.scale) : null;
  const interval = value ? { low: value.low, high: value.high } : alone;
  return {
    interval,
    point: value ? value.point : est.point,
    used: {
      label,
      scale: est.scale,
      class: est.class,
      percent: driftPercent(est.scale, post.medianTau),
      runs: post.runs - (sessions === 1 && onDriftScale(est, est.scale) ? 1 : 0),
      prior: prior.name,
      within: { low: est.low, high: est.high },
      widened: interval,
      ...(pooled && value ? { pooled: { runs: pooled.runs, point: value.point } } : {}),
    },
  };
}
