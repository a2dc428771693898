// Checks on lines over a key (rssMb, vmas): flat, grows-linearly, and the slope-based magnitudes (slope-ratio,
// per-entry). Every line is fitted through one statistic per x value; its interval comes from resampling each
// x value's repeats, then samples (src/claims/quantity.ts).
import type { CheckStatistic, Expectation, FlatCheck, GrowsLinearlyCheck, PerEntryCheck, Series, SlopeRatioCheck } from '../reference/published.js';
import { linearFit } from '../stats/regression.js';
import { pooledStatistic } from '../stats/resample.js';
import { allOf, against, placement, type Outcome } from './bands.js';
import { fmtFactor, fmtMetric, fmtPercent, fmtSlope } from './format.js';
import { eachOf, judgeExpectation, scaled, statOf, where, withInterval, type JudgeContext, type Judgement } from './judgement.js';
import { plainMark, plainPair, plainSeries, plainSpan, plainWhere } from './plain.js';
import type { Quantity } from './quantity.js';
import { NotMeasurable, describeSeries, keyOf, narrow, repeatValues, select, type Config, type ExperimentData } from './select.js';

interface Points {
  xs: number[];
  groups: number[][][];
  keys: string[];
}

/** The series' values at each distinct x, repeat by repeat; at least `minX` distinct x values. */
function points(data: ExperimentData, sel: Series, over: string, metric: string | undefined, minX: number): Points {
  const byX = new Map<number, Config[]>();
  for (const c of select(data, sel)) {
    const x = c[over];
    if (typeof x !== 'number') throw new NotMeasurable(`${data.experiment}: the configurations with ${describeSeries(sel)} have no numeric ${over}`);
    byX.set(x, [...(byX.get(x) ?? []), c]);
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  if (xs.length < minX)
    throw new NotMeasurable(
      `${data.experiment}: ${describeSeries(sel)} was measured at ${xs.length === 1 ? `one ${over} only` : `${xs.length} values of ${over}`} (${xs.join(', ')}); ${minX === 2 ? 'a line needs two' : `a linear trend needs at least ${minX}`}`,
    );
  return { xs, groups: xs.map((x) => repeatValues(data, byX.get(x)!, metric, sel)), keys: xs.map((x) => keyOf(data, byX.get(x)!)) };
}

const slopeOf = (xs: readonly number[], ys: readonly number[]) => linearFit(xs, ys).slope;

function lineQuantity(p: Points, stat: CheckStatistic, f: (ys: readonly number[]) => number): Quantity {
  return { groups: p.groups, keys: p.keys, stat, combine: f };
}

function twoLines(a: Points, b: Points, stat: CheckStatistic, f: (ya: readonly number[], yb: readonly number[]) => number): Quantity {
  const k = a.groups.length;
  return { groups: [...a.groups, ...b.groups], keys: [...a.keys, ...b.keys], stat, combine: (s) => f(s.slice(0, k), s.slice(k)) };
}

export function judgeFlat(c: FlatCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const parts: string[] = [];
  const plainParts: string[] = [];
  const outcomes: Outcome[] = [];
  let worst = 0;
  let minRepeats = Infinity;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const p = points(data, sel, c.over, c.metric, 2);
    const range = p.xs[p.xs.length - 1]! - p.xs[0]!;
    const change = (ys: readonly number[]) => Math.abs(slopeOf(p.xs, ys) * range) / Math.abs(ys.reduce((a, b) => a + b, 0) / ys.length);
    const m = scaled(lineQuantity(p, stat, change), 1, ctx, `the fitted change of ${describeSeries(sel)}`);
    minRepeats = Math.min(minRepeats, m.minRepeats);
    const iv = m.interval ?? { low: m.point, high: m.point };
    let o = against(iv, [0, c.maxRelativeChange]);
    worst = Math.max(worst, m.point);
    let text = `${where(r)}fitted change ${withInterval(m.point, m.interval, fmtPercent)} over ${c.over} ${p.xs[0]}–${p.xs[p.xs.length - 1]}`;
    let plainText = `${plainWhere(r)}changes by ${withInterval(m.point, m.interval, fmtPercent)} over ${plainSpan(c.over, p.xs[0]!, p.xs[p.xs.length - 1]!)}`;
    if (c.maxSlopeFraction) {
      const of = points(data, narrow(c.maxSlopeFraction.of, r, data), c.over, c.metric, 2);
      const share = scaled(
        twoLines(p, of, stat, (a, b) => Math.abs(slopeOf(p.xs, a)) / Math.abs(slopeOf(of.xs, b))),
        1,
        ctx,
        'the slope share',
      );
      const siv = share.interval ?? { low: share.point, high: share.point };
      o = allOf([o, against(siv, [0, c.maxSlopeFraction.fraction])]);
      text += `, slope ${withInterval(share.point, share.interval, fmtPercent)} of ${describeSeries(c.maxSlopeFraction.of)}'s`;
      plainText += `, rising ${withInterval(share.point, share.interval, fmtPercent)} as steeply as ${plainSeries(c.maxSlopeFraction.of)}`;
    }
    outcomes.push(o);
    parts.push(`${text}${o === 'holds' ? '' : o === 'differs' ? ' ✗' : ' ?'}`);
    plainParts.push(`${plainText}${plainMark(o)}`);
  }
  const plainLimits = `flat: the whole interval of the change at most ${fmtPercent(c.maxRelativeChange)}${c.maxSlopeFraction ? `, and of the slope at most ${fmtPercent(c.maxSlopeFraction.fraction)} of ${plainSeries(c.maxSlopeFraction.of)}'s` : ''}`;
  const limits = `limits: change ≤ ${fmtPercent(c.maxRelativeChange)}${c.maxSlopeFraction ? `, slope ≤ ${fmtPercent(c.maxSlopeFraction.fraction)} of ${describeSeries(c.maxSlopeFraction.of)}'s` : ''}, whole interval inside`;
  return {
    outcome: allOf(outcomes),
    measured: worst,
    published: null,
    factor: null,
    detail: `${stat} per configuration; ${parts.join('; ')} (${limits})`,
    plain: `this machine: ${plainParts.join('; ')} (${plainLimits})`,
    minRepeats,
  };
}

/** ys of a line, minus another series' statistic at the same x where the check subtracts one. */
function minusPoints(data: ExperimentData, p: Points, minus: Series | undefined, over: string, metric: string | undefined, r: Record<string, unknown>): { q: Points; k: number } {
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
  return { q: { xs: p.xs, groups, keys }, k: p.groups.length };
}

export function judgeGrowsLinearly(c: GrowsLinearlyCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const minGrowth = c.minGrowthFactor ?? 1;
  const parts: string[] = [];
  const plainParts: string[] = [];
  const outcomes: Outcome[] = [];
  let lowest: number | null = null;
  let minRepeats = Infinity;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const base = points(data, sel, c.over, c.metric, 3);
    const { q, k } = minusPoints(data, base, c.minus, c.over, c.metric, r);
    const ysOf = (s: readonly number[]) => (k === s.length ? [...s] : s.slice(0, k).map((y, i) => y - s[k + i]!));
    const x0 = base.xs[0]!;
    const x1 = base.xs[base.xs.length - 1]!;
    const ends = (s: readonly number[]) => {
      const f = linearFit(base.xs, ysOf(s));
      return { y0: f.slope * x0 + f.intercept, y1: f.slope * x1 + f.intercept, r2: f.r2, slope: f.slope };
    };
    // The growth factor is measured, not fitted: the statistic at the largest x ÷ at the smallest. (A fitted
    // intercept is poorly determined when the slope dominates; it only decides whether the line starts above 0.)
    const growth = (s: readonly number[]) => {
      const ys = ysOf(s);
      return ys[0]! > 0 ? ys[ys.length - 1]! / ys[0]! : NaN;
    };
    const point = ends(q.groups.map((g) => pooledStatistic(g, stat)));
    const fit = scaled({ groups: q.groups, keys: q.keys, stat, combine: (s) => ends(s).r2 }, 1, ctx, 'R²');
    const riv = fit.interval ?? { low: fit.point, high: fit.point };
    let trend: { o: Outcome; text: string; plain: string; value: number; repeats: number };
    if (c.minGrowthFactor !== undefined) {
      // A growth factor means something only from a positive start: the fitted line's value at the smallest x, judged
      // with its interval like everything else (entirely ≤ 0: not measurable; reaching 0: undecided).
      const start = scaled({ groups: q.groups, keys: q.keys, stat, combine: (s) => ends(s).y0 }, 1, ctx, 'the fitted start');
      const siv = start.interval ?? { low: start.point, high: start.point };
      const at = `${c.over}=${x0}${x0 === 0 ? ' (its intercept)' : ''}`;
      if (siv.high <= 0)
        throw new NotMeasurable(
          `${where(r)}the line fitted through ${stat}(${describeSeries(sel)}) is ${withInterval(start.point, start.interval, (x) => fmtMetric(x, c.metric))} at ${at}: with a non-positive start a growth factor means nothing`,
        );
      const g = scaled({ groups: q.groups, keys: q.keys, stat, combine: growth }, 1, ctx, 'the growth factor');
      const giv = g.interval ?? { low: g.point, high: g.point };
      const b: [number, number] = [minGrowth, Infinity];
      const startsAbove: Outcome = siv.low > 0 ? 'holds' : 'inconclusive';
      const startText = startsAbove === 'holds' ? '' : `; the fitted start ${withInterval(start.point, start.interval, (x) => fmtMetric(x, c.metric))} at ${at} reaches 0`;
      trend = {
        o: allOf([against(giv, b), startsAbove]),
        value: g.point,
        repeats: g.minRepeats,
        text: `growth ${x1} ÷ ${x0} ${withInterval(g.point, g.interval, fmtFactor)}: ${placement(giv, b, fmtFactor)}${startText}`,
        plain: `${withInterval(g.point, g.interval, fmtFactor)} as much at ${plainPair(c.over, x1)} as at ${plainPair(c.over, x0)}${startsAbove === 'holds' ? '' : ', and the fitted line may start at 0 or below'}`,
      };
    } else {
      const sl = scaled({ groups: q.groups, keys: q.keys, stat, combine: (s) => ends(s).slope }, 1, ctx, 'the slope');
      const siv = sl.interval ?? { low: sl.point, high: sl.point };
      const b: [number, number] = [Number.MIN_VALUE, Infinity];
      const fmt = (x: number) => fmtSlope(x, c.metric, c.over);
      trend = {
        o: against(siv, b),
        value: sl.point,
        repeats: sl.minRepeats,
        text: `slope ${withInterval(sl.point, sl.interval, fmt)}: ${siv.low > 0 ? 'the whole interval above 0' : siv.high <= 0 ? 'not above 0' : 'the interval reaches 0'}`,
        plain: `rising ${withInterval(sl.point, sl.interval, fmt)}`,
      };
    }
    minRepeats = Math.min(minRepeats, trend.repeats);
    const o = allOf([trend.o, against(riv, [c.minR2, 1])]);
    outcomes.push(o);
    lowest = lowest === null ? trend.value : Math.min(lowest, trend.value);
    parts.push(
      `${where(r)}R² ${withInterval(fit.point, fit.interval, (x) => x.toFixed(3))}, fitted ${fmtMetric(point.y0, c.metric)} at ${x0} → ${fmtMetric(point.y1, c.metric)} at ${x1}` +
        ` (${trend.text})${o === 'holds' ? '' : o === 'differs' ? ' ✗' : ' ?'}`,
    );
    plainParts.push(
      `${plainWhere(r)}from ${fmtMetric(point.y0, c.metric)} to ${fmtMetric(point.y1, c.metric)} over ${plainSpan(c.over, x0, x1)}, ${trend.plain}; ` +
        `a straight line explains ${withInterval(fit.point, fit.interval, (x) => x.toFixed(3))} of it (R²)${plainMark(o)}`,
    );
  }
  const plainLimits = `the claim needs R² at least ${c.minR2} and ${c.minGrowthFactor !== undefined ? `growth at least ${fmtFactor(minGrowth)}` : 'a slope above 0'}, whole intervals`;
  const limits = `limits: R² ≥ ${c.minR2}, ${c.minGrowthFactor !== undefined ? `growth ≥ ${minGrowth}×` : 'slope > 0'}, whole intervals; ≥ 3 values of ${c.over}`;
  return {
    outcome: allOf(outcomes),
    measured: lowest,
    published: null,
    factor: null,
    detail: `${stat} per configuration; ${parts.join('; ')} (${limits})`,
    plain: `this machine: ${plainParts.join('; ')} (${plainLimits})`,
    minRepeats,
  };
}

export function judgeSlopeRatio(c: SlopeRatioCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const n = points(ctx.data, c.numerator, c.over, undefined, 2);
  const d = points(ctx.data, c.denominator, c.over, undefined, 2);
  const q = twoLines(n, d, stat, (a, b) => slopeOf(n.xs, a) / slopeOf(d.xs, b));
  const label = `slope over ${c.over} of ${stat}(${describeSeries(c.numerator)}) ÷ of ${stat}(${describeSeries(c.denominator)})`;
  return judgeExpectation(q, 1, c as Expectation, 'ratio', label, ctx);
}

export function judgePerEntry(c: PerEntryCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const p = points(ctx.data, c.series, c.over, undefined, 2);
  const q = lineQuantity(p, stat, (ys) => slopeOf(p.xs, ys) / c.entriesPerMb);
  const label = `slope over ${c.over} of ${stat}(${describeSeries(c.series)}) ÷ ${c.entriesPerMb} entries per MB`;
  return judgeExpectation(q, 1, c as Expectation, c.unit, label, ctx);
}
