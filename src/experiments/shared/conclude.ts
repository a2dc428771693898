// What a conclusion (view.ts) rests on: a run's cells with their repeats, the ratio of two cells with the interval the
// claims give it (the run's repeats pooled across cells: src/stats/repeat-pool.ts), and how such figures are said.
import { median } from '../../stats/descriptive.js';
import { fittedChange, linearFit } from '../../stats/regression.js';
import { influenceWeight, poolInflation, pooledRepeatInterval, repeatPool, type RepeatPool } from '../../stats/repeat-pool.js';
import { pooledSpreadInterval } from '../../stats/repeat-spread.js';
import type { Measurement } from '../contract/types.js';

/** One cell of a run: its ok repeats' samples, in repeat order. */
export interface RunCell {
  key: string;
  /** The probe processes it shares with other cells (null: its own). */
  probe: string | null;
  repeats: number[][];
  /** The repeat (round) number of each of `repeats`. */
  rounds: number[];
}

/** The run's cells by a key of a measurement (its series and identity), ok repeats with samples only. */
export function runCells(ms: readonly Measurement[], keyOf: (m: Measurement) => string, probeOf: (m: Measurement) => string | null = () => null): Map<string, RunCell> {
  const out = new Map<string, RunCell>();
  for (const m of [...ms].sort((a, b) => a.repeat - b.repeat)) {
    if (m.state !== 'ok' || m.samplesNs.length === 0) continue;
    const k = keyOf(m);
    const c = out.get(k) ?? { key: k, probe: probeOf(m), repeats: [], rounds: [] };
    c.repeats.push(m.samplesNs);
    c.rounds.push(m.repeat);
    out.set(k, c);
  }
  return out;
}

/** The run's pooled repeat scatter of medians, its rounds taken out as blocks (null: too few repeats). */
export function poolOfCells(cells: Iterable<RunCell>): RepeatPool | null {
  return repeatPool(
    [...cells].map((c) => ({ byRepeat: new Map(c.repeats.map((r, i) => [c.rounds[i]!, median(r)])), probe: c.probe })),
    { rounds: true },
  );
}

export interface CellRatio {
  /** median(a) ÷ median(b), every sample of every repeat pooled. */
  ratio: number;
  /** Its 95 % interval, or null where none can be given (one repeat, too few cells). */
  low: number | null;
  high: number | null;
}

/** Whether the pool may speak for these cells: two repeats each. */
const poolable = (cells: readonly RunCell[], pool: RepeatPool | null): pool is RepeatPool => pool !== null && cells.every((c) => c.repeats.length >= 2);

/** A cell as the pool draws it: its median, its weight (its own larger scatter where its repeats disagree far beyond the pool). */
const drawn = (c: RunCell, pool: RepeatPool) => ({
  stat: median(c.repeats.flat()),
  weight:
    influenceWeight(c.repeats, 'median') *
    poolInflation(
      c.repeats.map((r) => median(r)),
      pool,
    ),
  key: c.key,
  probe: c.probe ?? c.key,
});

/** median(a) ÷ median(b) with the pooled-repeat interval (a and b in the same probe share its correlation). */
export function cellRatio(a: RunCell, b: RunCell, pool: RepeatPool | null, seed: number): CellRatio {
  const ratio = median(a.repeats.flat()) / median(b.repeats.flat());
  if (!poolable([a, b], pool)) return { ratio, low: null, high: null };
  const iv = pooledRepeatInterval([drawn(a, pool), drawn(b, pool)], (s) => s[0]! / s[1]!, pool, { seed });
  return iv ? { ratio, low: iv.low, high: iv.high } : { ratio, low: null, high: null };
}

/** Largest ÷ smallest median of some cells, with its pooled-repeat interval built from the pairs, as the claims' (null: none). */
export function cellSpread(cells: readonly RunCell[], pool: RepeatPool | null, seed: number): CellRatio {
  const meds = cells.map((c) => median(c.repeats.flat()));
  const ratio = Math.max(...meds) / Math.min(...meds);
  if (!poolable(cells, pool)) return { ratio, low: null, high: null };
  const iv = pooledSpreadInterval(
    cells.map((c) => drawn(c, pool)),
    pool,
    { seed },
  );
  return iv ? { ratio, low: Math.max(1, iv.low), high: iv.high } : { ratio, low: null, high: null };
}

/**
 * The least-squares line through some cells' medians over their x values: its end ÷ its start, with the
 * pooled-repeat interval, as the flat claims read a line (null ends: none can be given).
 */
export function cellChange(cells: readonly RunCell[], xs: readonly number[], pool: RepeatPool | null, seed: number): CellRatio {
  const ratio = fittedChange(
    xs,
    cells.map((c) => median(c.repeats.flat())),
  );
  if (!poolable(cells, pool) || !Number.isFinite(ratio)) return { ratio, low: null, high: null };
  const iv = pooledRepeatInterval(
    cells.map((c) => drawn(c, pool)),
    (s) => fittedChange(xs, s),
    pool,
    { seed },
  );
  return iv && Number.isFinite(iv.low) && Number.isFinite(iv.high) ? { ratio, low: iv.low, high: iv.high } : { ratio, low: null, high: null };
}

/** The least-squares slope through each x's pooled median, per unit of x, in ns: the one slope every output shows. */
export function slopeOfMedians(points: readonly { x: number; medianNs: number }[]): number {
  return linearFit(
    points.map((p) => p.x),
    points.map((p) => p.medianNs),
  ).slope;
}

/** A time in words with its unit: "3.0 ms", "412 µs", "85 ns". */
export function fmtTime(ns: number): string {
  const abs = Math.abs(ns);
  if (abs >= 1e9) return `${(ns / 1e9).toFixed(abs >= 1e10 ? 0 : 1)} s`;
  if (abs >= 1e6) return `${(ns / 1e6).toFixed(abs >= 1e7 ? 0 : 1)} ms`;
  if (abs >= 1e3) return `${(ns / 1e3).toFixed(abs >= 1e4 ? 0 : 1)} µs`;
  return `${ns.toFixed(abs >= 10 ? 0 : 1)} ns`;
}

/** A factor: "15×", "2.4×", "1.06×". */
export function fmtTimes(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return x >= 10 ? `${Math.round(x)}×` : x >= 2 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`;
}

/** "[95 % CI 2.3×–10.6×]", or '' where there is no interval. */
export function fmtRatioCi(r: CellRatio): string {
  return r.low === null || r.high === null ? '' : ` [95 % CI ${fmtTimes(r.low)}–${fmtTimes(r.high)}]`;
}

/** Whether the interval of a ratio says it is above 1 (established), below 1, or neither. */
export function ratioSays(r: CellRatio): 'above' | 'below' | 'undecided' {
  if (r.low === null || r.high === null) return 'undecided';
  if (r.low > 1) return 'above';
  if (r.high < 1) return 'below';
  return 'undecided';
}

/**
 * "a costs 2.1× b [95 % CI 1.9×–2.3×] (article 002: 1.8×)" where the interval is above 1, "a costs 0.48× b …" below,
 * "a ÷ b is 1.05× […]: a difference is not established" where it holds 1 or there is none.
 */
export function ratioSentence(a: string, b: string, r: { ratio: number; low: number | null; high: number | null } | null, article?: string | null): string {
  const besides = article ? ` (${article})` : '';
  if (!r || !Number.isFinite(r.ratio)) return `${a} against ${b}: not measurable${besides}`;
  const ci = fmtRatioCi({ ratio: r.ratio, low: r.low, high: r.high });
  const says = ratioSays({ ratio: r.ratio, low: r.low, high: r.high });
  if (says === 'undecided') return `${a} ÷ ${b} is ${fmtTimes(r.ratio)}${ci}: a difference is not established${besides}`;
  return `${a} costs ${fmtTimes(r.ratio)} ${b}${ci}${besides}`;
}
