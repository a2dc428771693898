// Lines over a key (rssMb, vmas): the points a line is fitted through (one statistic per x value, every value
// the run names present), and the slope-based magnitudes (slope-ratio, per-entry). The shapes (flat,
// grows-linearly) are in shapes.ts. Every interval comes from resampling each x value's repeats, then samples
// (src/claims/quantity.ts).
import { findExperiment } from '../experiments/index.js';
import type { CheckStatistic, Expectation, PerEntryCheck, Series, SlopeRatioCheck } from '../reference/published.js';
import { linearFit } from '../stats/regression.js';
import { pooledStatistic } from '../stats/resample.js';
import { checkCells, positiveRatio } from './evidence.js';
import { fmtSlope } from './format.js';
import { plainSeries } from './plain.js';
import { finite, judgeExpectation, measureWithinRun, statOf, type JudgeContext, type Judgement } from './judgement.js';
import type { Quantity } from './quantity.js';
import { NotMeasurable, describeSeries, keyOf, narrow, repeatValues, select, type Config, type ExperimentData } from './select.js';

export interface Points {
  xs: number[];
  groups: number[][][];
  keys: string[];
  /** Read from a metric, not timed. */
  readings: boolean;
}

/** What one unit of a key a line runs over is called, as its experiment's field labels declare it ("MB", "VMA"); else the key. */
export function unitOfKey(data: ExperimentData, key: string): string {
  return findExperiment(data.experiment)?.fieldLabels?.[key]?.unit ?? key;
}

/** The series' values at each distinct x, repeat by repeat; at least `minX` distinct x values. */
export function points(data: ExperimentData, sel: Series, over: string, metric: string | undefined, minX: number): Points {
  const byX = new Map<number, Config[]>();
  for (const c of select(data, sel)) {
    const x = c[over];
    if (typeof x !== 'number') throw new NotMeasurable(`${data.experiment}: the configurations with ${describeSeries(sel)} have no numeric ${over}`);
    byX.set(x, [...(byX.get(x) ?? []), c]);
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  checkCells(data, sel, over, xs, describeSeries);
  if (xs.length < minX)
    throw new NotMeasurable(
      `${data.experiment}: ${describeSeries(sel)} was measured at ${xs.length === 1 ? `one ${over} only` : `${xs.length} values of ${over}`} (${xs.join(', ')}); ${minX === 2 ? 'a line needs two' : `a linear trend needs at least ${minX}`}`,
    );
  return { xs, groups: xs.map((x) => repeatValues(data, byX.get(x)!, metric, sel)), keys: xs.map((x) => keyOf(data, byX.get(x)!)), readings: metric !== undefined };
}

export const slopeOf = (xs: readonly number[], ys: readonly number[]) => linearFit(xs, ys).slope;

export function lineQuantity(p: Points, stat: CheckStatistic, f: (ys: readonly number[]) => number): Quantity {
  return { groups: p.groups, keys: p.keys, stat, combine: f, readings: p.readings };
}

export function twoLines(a: Points, b: Points, stat: CheckStatistic, f: (ya: readonly number[], yb: readonly number[]) => number): Quantity {
  const k = a.groups.length;
  return { groups: [...a.groups, ...b.groups], keys: [...a.keys, ...b.keys], stat, combine: (s) => f(s.slice(0, k), s.slice(k)), readings: a.readings && b.readings };
}

/** ys of a line, minus another series' statistic at the same x where the check subtracts one. */
export function minusPoints(
  data: ExperimentData,
  p: Points,
  minus: Series | undefined,
  over: string,
  metric: string | undefined,
  r: Record<string, unknown>,
): { q: Points; k: number } {
  if (!minus) return { q: p, k: p.groups.length };
  const m = points(data, narrow(minus, r as never, data), over, metric, 1);
  const groups = [...p.groups];
  const keys = [...p.keys];
  for (const x of p.xs) {
    const j = m.xs.indexOf(x);
    if (j < 0) throw new NotMeasurable(`${data.experiment}: ${describeSeries(minus)} was not measured at ${over}=${x}`);
    groups.push(m.groups[j]!);
    keys.push(m.keys[j]!);
  }
  return { q: { xs: p.xs, groups, keys, readings: p.readings && m.readings }, k: p.groups.length };
}

/** The fitted slope through a line's statistics at each x, on the pooled data. */
const pointSlope = (p: Points, stat: CheckStatistic) =>
  slopeOf(
    p.xs,
    p.groups.map((g) => pooledStatistic(g, stat)),
  );

/**
 * Slopes a magnitude divides by, or divides, must rise. One whose fitted point does not: when its own interval
 * (within this run) still reaches above 0, the noise hides whether it rises and the claim is inconclusive, saying
 * so; when the whole interval lies at or below 0, it falls, and the claim is not measurable: the fit falls, said in words, never as a cost or a ratio.
 * Null: every slope rises.
 */
function notRising(
  lines: readonly { sel: Series; p: Points }[],
  over: string,
  stat: CheckStatistic,
  what: string,
  quantity: string,
  e: Expectation,
  ctx: JudgeContext,
): Judgement | null {
  for (const { sel, p } of lines) {
    const slope = pointSlope(p, stat);
    if (slope > 0) continue;
    const fmt = (x: number) => fmtSlope(x, undefined, unitOfKey(ctx.data, over));
    const m = Number.isFinite(slope)
      ? measureWithinRun(
          lineQuantity(p, stat, (ys) => slopeOf(p.xs, ys)),
          ctx,
        )
      : null;
    const iv = m ? finite(m.interval).interval : undefined;
    const label = `the fit through ${describeSeries(sel)}`;
    const ci = iv ? ` [95 % CI ${fmt(iv.low)} to ${fmt(iv.high)}, this run]` : '';
    if (m && iv && iv.high > 0) {
      const reach = `${label} falls at its point (${fmt(slope)}${ci}) but its interval reaches above 0: this run cannot tell whether it rises, so the ${quantity} is not established`;
      return {
        outcome: 'inconclusive',
        measured: null,
        published: e.published ?? null,
        factor: null,
        detail: `${what}: ${reach}`,
        plain: `this machine: ${reach}`,
        minRepeats: m.minRepeats,
      };
    }
    // a falling fit gives no cost and no ratio: said in words, never printed as one
    throw new NotMeasurable(`${what}: not measurable: the fit falls (${label}: ${Number.isFinite(slope) ? fmt(slope) : 'no slope'}${ci}), so there is no ${quantity}`);
  }
  return null;
}

export function judgeSlopeRatio(c: SlopeRatioCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const n = points(ctx.data, c.numerator, c.over, undefined, 2);
  const d = points(ctx.data, c.denominator, c.over, undefined, 2);
  const label = `slope over ${c.over} of ${stat}(${describeSeries(c.numerator)}) ÷ of ${stat}(${describeSeries(c.denominator)})`;
  // Two falling slopes do not make "16× steeper": both must rise.
  const open = notRising(
    [
      { sel: c.numerator, p: n },
      { sel: c.denominator, p: d },
    ],
    c.over,
    stat,
    `${ctx.data.experiment}: ${label}`,
    'ratio of the slopes',
    c as Expectation,
    ctx,
  );
  if (open) return open;
  const q = { ...twoLines(n, d, stat, (a, b) => positiveRatio(slopeOf(n.xs, a), slopeOf(d.xs, b))), multiplicative: true };
  // A denominator that rises at its point but whose own interval reaches 0 gives the ratio no upper end: the largest
  // of the resampled ratios is then an accident of how near 0 one resample's slope fell, not a bound.
  const below = measureWithinRun(
    lineQuantity(d, stat, (ys) => slopeOf(d.xs, ys)),
    ctx,
  ).interval;
  const fmt = (x: number) => fmtSlope(x, undefined, unitOfKey(ctx.data, c.over));
  const noUpperEnd =
    below && Number.isFinite(below.low) && below.low <= 0
      ? `the fit through ${plainSeries(c.denominator)} rises ${fmt(pointSlope(d, stat))} but its interval reaches ${fmt(below.low)} within this run, so the ratio has no upper end`
      : undefined;
  return judgeExpectation(q, 1, c as Expectation, 'ratio', label, ctx, 0, noUpperEnd);
}

export function judgePerEntry(c: PerEntryCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const p = points(ctx.data, c.series, c.over, undefined, 2);
  const entry = c.unit.slice('ns/'.length); // entry, VMA, descriptor
  const open = notRising([{ sel: c.series, p }], c.over, stat, `${ctx.data.experiment}: a cost per ${entry}`, `cost per ${entry}`, c as Expectation, ctx);
  if (open) return open;
  // per page-table entry: the slope per MB ÷ the entries per MB; per VMA or descriptor: the slope over their count itself
  const perMb = c.entriesPerMb;
  const q = lineQuantity(p, stat, (ys) => {
    const slope = slopeOf(p.xs, ys);
    return slope > 0 ? slope / (perMb ?? 1) : NaN;
  });
  const label = `slope over ${c.over} of ${stat}(${describeSeries(c.series)})${perMb !== undefined ? ` ÷ ${perMb} entries per MB` : ''}`;
  return judgeExpectation(q, 1, c as Expectation, c.unit, label, ctx, 0);
}
