// The shapes of a line over a key, each judged by a test that answers its question, with its interval:
// - flat: the least-squares line through the statistics over x ends within ×/÷ (1 + maxRelativeChange) of where it
//   starts (the trend the article's own flat figures are read by), no bump shown above that (largest ÷ smallest,
//   its whole interval above), and optionally a slope at most a fraction of another series' slope where that series
//   itself rises beyond the band (where it does not, a share of its slope cannot tell the two apart);
// - grows linearly: at least 3 x values; rising (growth factor, or a slope above 0); and straight: the bow of the
//   least-squares parabola (its largest gap from the chord, as a share of the rise: src/stats/curvature.ts) within
//   ±maxBow. A pure x² has bow 0.25; noise widens the interval instead of failing a line, as R² did.
import type { FlatCheck, GrowsLinearlyCheck, Series } from '../reference/published.js';
import { bowShare, parabolaFit } from '../stats/curvature.js';
import { fittedChange, linearFit } from '../stats/regression.js';
import { pooledStatistic } from '../stats/resample.js';
import { allOf, against, placement, type Outcome } from './bands.js';
import { checkPositive } from './evidence.js';
import { fmtFactor, fmtMetric, fmtPercent, fmtSlope } from './format.js';
import { eachOf, scaled, statOf, where, withInterval, type JudgeContext, type Judgement } from './judgement.js';
import { lineQuantity, minusPoints, points, slopeOf, twoLines, unitOfKey, type Points } from './lines.js';
import { plainMark, plainPair, plainSeries, plainSpan, plainWhere } from './plain.js';
import { NotMeasurable, describeSeries, narrow } from './select.js';

/** A line's growth: its statistic at the largest x ÷ at the smallest (NaN from a start at or below 0). */
const endGrowth = (ys: readonly number[]) => (ys[0]! > 0 ? ys[ys.length - 1]! / ys[0]! : NaN);

const mark = (o: Outcome) => (o === 'holds' ? '' : o === 'differs' ? ' ✗' : ' ?');

export function judgeFlat(c: FlatCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const parts: string[] = [];
  const plainParts: string[] = [];
  const outcomes: Outcome[] = [];
  let worst = 1;
  let minRepeats = Infinity;
  // The line's change over the span, either way; a bump (largest ÷ smallest, never below 1) only where it is shown.
  const top = 1 + c.maxRelativeChange;
  const b: [number, number] = [1 / top, top];
  const change = (p: Points, sel: Series) =>
    scaled({ ...lineQuantity(p, stat, (ys) => fittedChange(p.xs, ys)), multiplicative: true }, 1, ctx, `the fitted change of ${describeSeries(sel)}`, 0);
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const p = points(data, sel, c.over, c.metric, 2);
    const ys = p.groups.map((g) => pooledStatistic(g, stat));
    checkPositive([{ label: `the smallest ${stat} of ${describeSeries(sel)}`, value: Math.min(...ys) }], `${data.experiment}: a flat line`);
    const m = change(p, sel);
    minRepeats = Math.min(minRepeats, m.minRepeats);
    const iv = m.interval ?? { low: m.point, high: m.point };
    const outcomesHere: Outcome[] = [against(iv, b)];
    if (Math.abs(Math.log(m.point)) > Math.abs(Math.log(worst))) worst = m.point;
    const span = `${c.over} ${p.xs[0]}–${p.xs[p.xs.length - 1]}`;
    let text = `${where(r)}the fitted line of the ${stat}s over ${span} (${p.xs.length} values) ends ${withInterval(m.point, m.interval, fmtFactor)} its start: ${placement(iv, b, fmtFactor)}`;
    let plainText = `${plainWhere(r)}over ${plainSpan(c.over, p.xs[0]!, p.xs[p.xs.length - 1]!)} the line through the points ends ${withInterval(m.point, m.interval, fmtFactor)} where it starts`;
    // A bump the line does not follow: the dearest point ÷ the cheapest, which differs only where it is shown above the band.
    if (p.xs.length > 2) {
      const spread = (v: readonly number[]) => (Math.min(...v) > 0 ? Math.max(...v) / Math.min(...v) : NaN);
      const bump = scaled({ ...lineQuantity(p, stat, spread), multiplicative: true, spread: true }, 1, ctx, `largest ÷ smallest of ${describeSeries(sel)}`, 1);
      if (bump.interval && bump.interval.low > top) {
        outcomesHere.push('differs');
        text += `; largest ÷ smallest ${withInterval(bump.point, bump.interval, fmtFactor)}: a bump above the band`;
        plainText += `; the dearest point is ${withInterval(bump.point, bump.interval, fmtFactor)} the cheapest: a bump above the band`;
      }
    }
    if (c.maxSlopeFraction) {
      const ofSel = narrow(c.maxSlopeFraction.of, r, data);
      const of = points(data, ofSel, c.over, c.metric, 2);
      // The share tells the series from the reference only where the reference itself leaves the band: where its
      // growth (its statistic at the largest x ÷ at the smallest, which a steep line fitted from near 0 keeps) is
      // not shown above the band, both may be flat and the band alone decides.
      const ref = scaled({ ...lineQuantity(of, stat, endGrowth), multiplicative: true }, 1, ctx, `the growth of ${describeSeries(ofSel)}`, 0);
      const riv = ref.interval ?? { low: ref.point, high: ref.point };
      if (riv.low > top) {
        // a ratio of two slopes, positive by its absolute values: its drift is many-fold, as the slope ratio's is
        const share = scaled(
          { ...twoLines(p, of, stat, (a, bb) => Math.abs(slopeOf(p.xs, a)) / Math.abs(slopeOf(of.xs, bb))), multiplicative: true },
          1,
          ctx,
          'the slope share',
          0,
        );
        const siv = share.interval ?? { low: share.point, high: share.point };
        outcomesHere.push(against(siv, [-Infinity, c.maxSlopeFraction.fraction]));
        text += `, slope ${withInterval(share.point, share.interval, fmtPercent)} of ${describeSeries(c.maxSlopeFraction.of)}'s`;
        plainText += `, rising ${withInterval(share.point, share.interval, fmtPercent)} as steeply as ${plainSeries(c.maxSlopeFraction.of)}`;
      } else {
        text += `; ${describeSeries(c.maxSlopeFraction.of)} itself grows ${withInterval(ref.point, ref.interval, fmtFactor)} over the span, not shown above ${fmtFactor(top)}: no slope share, the band decides`;
        plainText += `; ${plainSeries(c.maxSlopeFraction.of)} itself grows ${withInterval(ref.point, ref.interval, fmtFactor)} over the span, not shown beyond the band, so the slope is not compared with it`;
      }
    }
    const o = allOf(outcomesHere);
    outcomes.push(o);
    parts.push(`${text}${mark(o)}`);
    plainParts.push(`${plainText}${plainMark(o)}`);
  }
  const share = c.maxSlopeFraction;
  const plainLimits = `flat: the whole interval of the line's end ÷ its start within ${fmtFactor(b[0])}–${fmtFactor(top)}, no bump shown above ${fmtFactor(top)}${share ? `, and the slope at most ${fmtPercent(share.fraction)} of ${plainSeries(share.of)}'s where that one rises beyond the band` : ''}`;
  const limits = `limits: fitted end ÷ start ${fmtFactor(b[0])}–${fmtFactor(top)}, whole interval inside; largest ÷ smallest not shown above ${fmtFactor(top)}${share ? `; slope ≤ ${fmtPercent(share.fraction)} of ${describeSeries(share.of)}'s where its own growth is above the band` : ''}`;
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

export function judgeGrowsLinearly(c: GrowsLinearlyCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const minGrowth = c.minGrowthFactor ?? 1;
  const parts: string[] = [];
  const plainParts: string[] = [];
  const outcomes: Outcome[] = [];
  let lowest: number | null = null;
  let minRepeats = Infinity;
  const bowBand: [number, number] = [-c.maxBow, c.maxBow];
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const base = points(data, sel, c.over, c.metric, 3);
    const { q, k } = minusPoints(data, base, c.minus, c.over, c.metric, r);
    const ysOf = (s: readonly number[]) => (k === s.length ? [...s] : s.slice(0, k).map((y, i) => y - s[k + i]!));
    const x0 = base.xs[0]!;
    const x1 = base.xs[base.xs.length - 1]!;
    const fmtY = (x: number) => fmtMetric(x, c.metric);
    const line = (s: readonly number[]) => linearFit(base.xs, ysOf(s));
    const pointYs = ysOf(q.groups.map((g) => pooledStatistic(g, stat)));
    let trend: { o: Outcome; text: string; plain: string; value: number; repeats: number };
    if (c.minGrowthFactor !== undefined) {
      // A growth factor means something only from a positive start: the statistic at the smallest x, judged with
      // its interval like everything else (entirely ≤ 0: not measurable; reaching 0: undecided). Measured, not
      // fitted: a curve's fitted line can start below 0 when the curve does not.
      const startOf = (s: readonly number[]) => ysOf(s)[0]!;
      const start = scaled({ ...q, stat, combine: startOf }, 1, ctx, 'the start');
      const siv = start.interval ?? { low: start.point, high: start.point };
      const at = `${c.over}=${x0}`;
      if (siv.high <= 0)
        throw new NotMeasurable(
          `${where(r)}${stat}(${describeSeries(sel)}) is ${withInterval(start.point, start.interval, fmtY)} at ${at}: with a non-positive start a growth factor means nothing`,
        );
      const growth = (s: readonly number[]) => endGrowth(ysOf(s));
      const g = scaled({ ...q, stat, combine: growth, multiplicative: true }, 1, ctx, 'the growth factor', 0);
      const giv = g.interval ?? { low: g.point, high: g.point };
      const gb: [number, number] = [minGrowth, Infinity];
      const startsAbove: Outcome = siv.low > 0 ? 'holds' : 'inconclusive';
      const startText = startsAbove === 'holds' ? '' : `; the start ${withInterval(start.point, start.interval, fmtY)} at ${at} reaches 0`;
      trend = {
        o: allOf([against(giv, gb), startsAbove]),
        value: g.point,
        repeats: g.minRepeats,
        text: `growth ${x1} ÷ ${x0} ${withInterval(g.point, g.interval, fmtFactor)}: ${placement(giv, gb, fmtFactor)}${startText}`,
        plain: `${withInterval(g.point, g.interval, fmtFactor)} as much at ${plainPair(c.over, x1)} as at ${plainPair(c.over, x0)}${startsAbove === 'holds' ? '' : `, and the start may be 0 or below`}`,
      };
    } else {
      const sl = scaled({ ...q, stat, combine: (s) => line(s).slope }, 1, ctx, 'the slope');
      const siv = sl.interval ?? { low: sl.point, high: sl.point };
      const fmt = (x: number) => fmtSlope(x, c.metric, unitOfKey(data, c.over));
      trend = {
        o: siv.low > 0 ? 'holds' : siv.high <= 0 ? 'differs' : 'inconclusive',
        value: sl.point,
        repeats: sl.minRepeats,
        text: `slope ${withInterval(sl.point, sl.interval, fmt)}: ${siv.low > 0 ? 'the whole interval above 0' : siv.high <= 0 ? 'not above 0' : 'the interval reaches 0'}`,
        plain: `rising ${withInterval(sl.point, sl.interval, fmt)}`,
      };
    }
    // Straightness: the bow of the parabola through the points, as a share of the rise (NaN where it does not rise).
    const bowOf = (s: readonly number[]) => bowShare(parabolaFit(base.xs, ysOf(s)));
    let straight: Outcome = 'differs';
    let bowWords = 'the fitted parabola does not rise, so it has no bow';
    let bowPlain = 'it does not rise';
    if (Number.isFinite(bowOf(q.groups.map((g) => pooledStatistic(g, stat))))) {
      const bow = scaled({ ...q, stat, combine: bowOf, drift: 'absolute' }, 1, ctx, 'the bow');
      const biv = bow.interval ?? { low: bow.point, high: bow.point };
      straight = against(biv, bowBand);
      minRepeats = Math.min(minRepeats, bow.minRepeats);
      bowWords = `bow ${withInterval(bow.point, bow.interval, fmtPercent)} of the rise: ${placement(biv, bowBand, fmtPercent)}`;
      bowPlain = `the curve bends ${withInterval(bow.point, bow.interval, fmtPercent)} of its rise away from a straight line`;
    }
    minRepeats = Math.min(minRepeats, trend.repeats);
    const o = allOf([trend.o, straight]);
    outcomes.push(o);
    lowest = lowest === null ? trend.value : Math.min(lowest, trend.value);
    parts.push(`${where(r)}${fmtY(pointYs[0]!)} at ${x0} → ${fmtY(pointYs[pointYs.length - 1]!)} at ${x1} over ${base.xs.length} values (${trend.text}; ${bowWords})${mark(o)}`);
    plainParts.push(
      `${plainWhere(r)}from ${fmtY(pointYs[0]!)} to ${fmtY(pointYs[pointYs.length - 1]!)} over ${plainSpan(c.over, x0, x1)}, ${trend.plain}; ` + `${bowPlain}${plainMark(o)}`,
    );
  }
  const growthWords = c.minGrowthFactor !== undefined ? `growth at least ${fmtFactor(minGrowth)}` : 'a slope above 0';
  const plainLimits = `the claim needs ${growthWords} and a bend within ±${fmtPercent(c.maxBow)} of the rise, whole intervals`;
  const limits = `limits: ${c.minGrowthFactor !== undefined ? `growth ≥ ${minGrowth}×` : 'slope > 0'}, |bow| ≤ ${fmtPercent(c.maxBow)} of the rise (parabola through the points), whole intervals; ≥ 3 values of ${c.over}`;
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
