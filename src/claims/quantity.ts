// A quantity a claim is judged on (a ratio of means, a difference of medians, a slope through per-configuration
// medians…), computed from series of measured values kept repeat by repeat, with its interval from the one
// bootstrap (src/stats/resample.ts). Series timed in the same iterations (paired experiments, same repeats and
// lengths) are resampled as one block; the same configurations used twice are resampled once.
import type { CheckStatistic } from '../reference/published.js';
import { clusterWidening, widen } from '../stats/clusters.js';
import { bootstrapQuantity, pooledStatistic, type Block } from '../stats/resample.js';
import { influenceWeight, poolInflation, pooledRepeatInterval, type RepeatPool } from '../stats/repeat-pool.js';
import { pooledSpreadInterval } from '../stats/repeat-spread.js';
import type { Range } from './bands.js';
import type { DriftScale } from '../stats/drift.js';
import type { OperandGroups } from './select.js';

export interface Quantity {
  /** Each group: one series, repeat by repeat. */
  groups: number[][][];
  /** Which configurations each group comes from (equal keys: the same data). */
  keys: string[];
  stat: CheckStatistic;
  /** From the statistic of each group (same order) to the quantity; non-finite results are dropped. */
  combine: (stats: readonly number[]) => number;
  /**
   * A ratio of positive quantities, or a time: its noise is many-fold, so the small-sample widening applies on
   * the log scale (src/stats/clusters.ts). Differences, slopes and shares, which may pass through 0, are widened
   * on the linear scale.
   */
  multiplicative?: boolean;
  /**
   * How the quantity varies from run to run (src/stats/drift.ts): `log` (many-fold, the default of a multiplicative
   * quantity), `relative` (additive but positive by nature, the default otherwise), `absolute` (a share that may sit at 0).
   */
  drift?: DriftScale;
  /** Every group is a reading of a metric (kB, faults, bytes), not a timing: its drift is a reading's. */
  readings?: boolean;
  /**
   * The quantity is the largest ÷ the smallest of the groups' statistics (combine says so too): where the repeats are
   * pooled, its interval is built from the pairs (src/stats/repeat-spread.ts).
   */
  spread?: boolean;
}

export interface Measured {
  point: number;
  /**
   * Null when nothing can be resampled (single readings). When too few resamples give a finite value (a
   * denominator near 0), the interval is unbounded: -Infinity…Infinity, which no band contains.
   */
  interval: Range | null;
  /** Repeats of the series with the fewest (1: the interval shows iteration noise only). */
  minRepeats: number;
}

export interface MeasureContext {
  seed: number;
  /** The experiment times its series in the same iterations. */
  paired: boolean;
  /**
   * The probe processes a group's configurations come from (a group key → its probes), where one probe measures
   * several configurations round by round (spawn's methods): groups of the same probes share their iteration draws.
   */
  probeOf?: (key: string) => string;
  /** Of the interval (default 0.95; stricter on later looks of reproduce --settle). */
  confidence?: number;
  /**
   * The pooled scatter of the run's repeats for a statistic (src/claims/repeat-pool.ts): where it is given and every
   * group of a timed quantity has two repeats or more, the interval borrows the other cells' repeats
   * (src/stats/repeat-pool.ts) instead of widening this quantity's own few by Student's t; a group whose own repeats
   * disagree far beyond the pool keeps its own larger scatter.
   */
  repeatPool?: (stat: Quantity['stat']) => RepeatPool | null;
}

function pointOf(q: Quantity): number {
  return q.combine(q.groups.map((g) => pooledStatistic(g, q.stat)));
}

const shapeOf = (g: number[][]) => g.map((r) => r.length).join('/');

/**
 * Blocks for the bootstrap and, for each group, where its statistic lands in the resampled vector. Series of an
 * unpaired experiment with the same number of repeats were measured round by round (repeat r of each in round
 * r): one block in rounds, each configuration once.
 */
function blocksOf(q: Quantity, paired: boolean, probeOf?: (key: string) => string): { blocks: Block[]; slot: number[] } {
  const repeats = new Set(q.groups.map((g) => g.length));
  if (!paired && repeats.size === 1 && q.groups.length > 1) {
    // the same configuration (one probe's readings) is drawn together, iteration by iteration, and so are
    // configurations timed round by round in the same probes (when they have the same samples per repeat)
    const first = new Map<string, number>();
    const together = q.keys.map((k, i) => {
      if (first.has(k)) return first.get(k)!; // the same configurations
      const probe = probeOf ? `probe:${probeOf(k)}` : null;
      const at = probe !== null ? first.get(probe) : undefined;
      const g = at !== undefined && shapeOf(q.groups[at]!) === shapeOf(q.groups[i]!) ? at : i;
      first.set(k, g);
      if (probe !== null && at === undefined) first.set(probe, i);
      return g;
    });
    return { blocks: [{ series: q.groups, rounds: true, together }], slot: q.groups.map((_, i) => i) };
  }
  const byKey = new Map<string, { series: number[][][]; at: number[] }>();
  q.groups.forEach((g, i) => {
    const k = paired ? `shape:${shapeOf(g)}` : `cfg:${q.keys[i]}`;
    const b = byKey.get(k) ?? { series: [], at: [] };
    b.series.push(g);
    b.at.push(i);
    byKey.set(k, b);
  });
  const blocks: Block[] = [];
  const slot = new Array<number>(q.groups.length);
  let n = 0;
  for (const b of byKey.values()) {
    blocks.push({ series: b.series });
    for (const i of b.at) slot[i] = n++;
  }
  return { blocks, slot };
}

export function measureQuantity(q: Quantity, ctx: MeasureContext): Measured {
  const point = pointOf(q);
  const minRepeats = Math.min(...q.groups.map((g) => g.length));
  if (q.groups.every((g) => g.reduce((a, r) => a + r.length, 0) < 2)) return { point, interval: null, minRepeats };
  const { blocks, slot } = blocksOf(q, ctx.paired, ctx.probeOf);
  const boot = (withinRepeats: boolean) =>
    bootstrapQuantity({ blocks, statistic: q.stat, combine: (s) => q.combine(slot.map((j) => s[j]!)) }, { seed: ctx.seed, confidence: ctx.confidence ?? 0.95, withinRepeats });
  // Borrowed from the other cells' repeats, never narrower than what the samples within this quantity's own repeats
  // show (repeats that agree by chance, or copies, would otherwise hide the sampling noise within each). Drawing the
  // repeats themselves again would bring back the one degree of freedom the pool replaces.
  const borrowed = pooledInterval(q, ctx, point);
  if (borrowed) {
    const within = boot(true);
    if (within === null) return { point, interval: { low: -Infinity, high: Infinity }, minRepeats };
    return { point, interval: { low: Math.min(borrowed.low, within.low), high: Math.max(borrowed.high, within.high) }, minRepeats };
  }
  const ci = boot(false);
  if (ci === null) return { point, interval: { low: -Infinity, high: Infinity }, minRepeats };
  // Few repeats: widened by the small-sample factor (src/stats/clusters.ts); a point outside its own interval
  // (a skewed statistic) widens about the nearer edge.
  const centre = Math.min(Math.max(point, ci.low), ci.high);
  return { point, interval: widen(centre, ci.low, ci.high, clusterWidening(minRepeats, ctx.confidence ?? 0.95), q.multiplicative === true), minRepeats };
}

/** The configurations a group key names (positions in the data, comma-separated; a trailing − marks a subtrahend). */
const configsIn = (key: string) => key.replace(/−$/, '').split(',').length;

/** The interval from the run's pooled repeat scatter, where it applies (timings, two repeats or more everywhere); else null. */
function pooledInterval(q: Quantity, ctx: MeasureContext, point: number): Range | null {
  if (q.readings === true || !ctx.repeatPool || q.groups.some((g) => g.filter((r) => r.length > 0).length < 2)) return null;
  const pool = ctx.repeatPool(q.stat);
  if (!pool) return null;
  const cellsOf = (i: number) => Math.max(1, Math.round(configsIn(q.keys[i]!) / q.groups[i]!.length));
  // a group whose own repeats disagree far beyond the pool's scatter has its own, larger, scatter
  const inflation = (i: number) =>
    poolInflation(
      q.groups[i]!.filter((r) => r.length > 0).map((r) => pooledStatistic([r], q.stat)),
      pool,
      cellsOf(i),
    );
  const groups = q.groups.map((g, i) => ({
    stat: pooledStatistic(g, q.stat),
    weight: influenceWeight(g, q.stat, cellsOf(i)) * inflation(i),
    key: q.keys[i]!,
    probe: ctx.probeOf ? ctx.probeOf(q.keys[i]!) : q.keys[i]!,
  }));
  const opts = { seed: ctx.seed, confidence: ctx.confidence ?? 0.95 };
  const iv = q.spread === true ? pooledSpreadInterval(groups, pool, opts) : pooledRepeatInterval(groups, q.combine, pool, opts);
  if (!iv) return null;
  // the interval holds its own point (a skewed statistic such as largest ÷ smallest may sit near an edge)
  return { low: Math.min(iv.low, point), high: Math.max(iv.high, point) };
}

/** A quantity built from several operands: their groups side by side, combined from their values. */
export function combined(parts: readonly OperandGroups[], stat: CheckStatistic, f: (values: number[]) => number): Quantity {
  const offsets: number[] = [];
  let n = 0;
  for (const p of parts) {
    offsets.push(n);
    n += p.groups.length;
  }
  return {
    groups: parts.flatMap((p) => p.groups),
    keys: parts.flatMap((p) => p.keys),
    stat,
    combine: (s) => f(parts.map((p, i) => p.combine(s.slice(offsets[i], offsets[i]! + p.groups.length)))),
    readings: parts.every((p) => p.readings === true),
  };
}
