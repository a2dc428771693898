// One judge per check type (docs/published-figures.md, "Check types"). Shape checks are judged on the
// point estimates (medians or means per configuration, least-squares lines); checks with an expectation
// (ratio, value, slope-ratio, per-entry) compute a bootstrap interval, and a magnitude claim holds when that
// interval reaches the published tolerance band. Missing data throws NotMeasurable.
import type {
  ApproxEqualCheck,
  BooleanCheck,
  Check,
  CheckStatistic,
  CountPerCheck,
  Expectation,
  FlatCheck,
  GreaterCheck,
  GrowsLinearlyCheck,
  Operand,
  Series,
  SpreadCheck,
} from '../reference/published.js';
import { linearFit } from '../stats/regression.js';
import { intervalOf, pointOf, type Quantity, type QuantityInterval } from './interval.js';
import { fmtFactor, fmtInUnit, fmtMetric, fmtNum, fmtPercent, fmtSlope } from './format.js';
import {
  NotMeasurable,
  combinations,
  configValues,
  describeRestriction,
  describeSeries,
  narrow,
  nsTo,
  operandGroups,
  pooledValues,
  select,
  statistic,
  type Config,
  type ExperimentData,
  type Restriction,
} from './select.js';

export interface Judgement {
  holds: boolean;
  measured: number | null;
  published: number | null;
  factor: number | null;
  interval?: QuantityInterval;
  detail: string;
}

export interface JudgeContext {
  data: ExperimentData;
  kind: 'shape' | 'magnitude';
  seed: number;
}

const statOf = (c: Check): CheckStatistic => c.statistic ?? 'median';

// ------------------------------------------------------------------ lines over a key

interface Points {
  xs: number[];
  groups: number[][];
}

function points(data: ExperimentData, sel: Series, over: string, metric: string | undefined): Points {
  const byX = new Map<number, Config[]>();
  for (const c of select(data, sel)) {
    const x = c[over];
    if (typeof x !== 'number') throw new NotMeasurable(`${data.experiment}: the configurations with ${describeSeries(sel)} have no numeric ${over}`);
    byX.set(x, [...(byX.get(x) ?? []), c]);
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  if (xs.length < 2)
    throw new NotMeasurable(`${data.experiment}: ${describeSeries(sel)} was measured at one ${over} only (${xs.join(', ')}); a line needs two`);
  return { xs, groups: xs.map((x) => pooledValues(data, byX.get(x)!, metric, sel)) };
}

function fit(xs: readonly number[], ys: readonly number[]) {
  return linearFit(xs, ys);
}

/** The key values to evaluate separately (eachOf), from the configurations a selector picks. */
function eachOf(data: ExperimentData, sel: Series, keys: readonly string[] | undefined): Restriction[] {
  if (!keys || keys.length === 0) return [{}];
  return combinations(select(data, sel), keys, data);
}

const where = (r: Restriction) => (Object.keys(r).length ? `${describeRestriction(r)}: ` : '');

export function judgeFlat(c: FlatCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const parts: string[] = [];
  let worst = 0;
  let holds = true;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const p = points(data, sel, c.over, c.metric);
    const ys = p.groups.map((g) => statistic(g, stat));
    const f = fit(p.xs, ys);
    const range = p.xs[p.xs.length - 1]! - p.xs[0]!;
    const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
    const change = Math.abs(f.slope * range) / Math.abs(meanY);
    worst = Math.max(worst, change);
    let ok = change <= c.maxRelativeChange;
    let text = `${where(r)}fitted change ${fmtPercent(change)} over ${c.over} ${p.xs[0]}–${p.xs[p.xs.length - 1]} (slope ${fmtSlope(f.slope, c.metric, c.over)})`;
    if (c.maxSlopeFraction) {
      const ofSel = narrow(c.maxSlopeFraction.of, r, data);
      const q = points(data, ofSel, c.over, c.metric);
      const fo = fit(q.xs, q.groups.map((g) => statistic(g, stat)));
      const share = Math.abs(f.slope) / Math.abs(fo.slope);
      ok &&= Math.abs(f.slope) <= c.maxSlopeFraction.fraction * Math.abs(fo.slope);
      text += `, ${fmtPercent(share)} of ${describeSeries(ofSel)}'s ${fmtSlope(fo.slope, c.metric, c.over)}`;
    }
    holds &&= ok;
    parts.push(`${text}${ok ? '' : ' ✗'}`);
  }
  const limits = `limits: change ≤ ${fmtPercent(c.maxRelativeChange)}${c.maxSlopeFraction ? `, slope ≤ ${fmtPercent(c.maxSlopeFraction.fraction)} of ${describeSeries(c.maxSlopeFraction.of)}'s` : ''}`;
  return { holds, measured: worst, published: null, factor: null, detail: `${stat} per configuration; ${parts.join('; ')} (${limits})` };
}

export function judgeGrowsLinearly(c: GrowsLinearlyCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const parts: string[] = [];
  let holds = true;
  let lowest: number | null = null;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const p = points(data, sel, c.over, c.metric);
    let ys = p.groups.map((g) => statistic(g, stat));
    if (c.minus) {
      const mSel = narrow(c.minus, r, data);
      const m = points(data, mSel, c.over, c.metric);
      ys = p.xs.map((x, i) => {
        const j = m.xs.indexOf(x);
        if (j < 0) throw new NotMeasurable(`${data.experiment}: ${describeSeries(mSel)} was not measured at ${c.over}=${x}`);
        return ys[i]! - statistic(m.groups[j]!, stat);
      });
    }
    const f = fit(p.xs, ys);
    const x0 = p.xs[0]!;
    const x1 = p.xs[p.xs.length - 1]!;
    const y0 = f.slope * x0 + f.intercept;
    const y1 = f.slope * x1 + f.intercept;
    const growth = y0 > 0 ? y1 / y0 : y1 > 0 ? Infinity : 0;
    const ok = f.r2 >= c.minR2 && f.slope > 0 && growth >= (c.minGrowthFactor ?? 1);
    holds &&= ok;
    if (Number.isFinite(growth)) lowest = lowest === null ? growth : Math.min(lowest, growth);
    parts.push(
      `${where(r)}R² ${f.r2.toFixed(3)}, slope ${fmtSlope(f.slope, c.metric, c.over)}, fitted ${fmtMetric(y0, c.metric)} at ${x0} → ${fmtMetric(y1, c.metric)} at ${x1}` +
        ` (${Number.isFinite(growth) ? fmtFactor(growth) : 'from ≤ 0'})${ok ? '' : ' ✗'}`,
    );
  }
  const limits = `limits: R² ≥ ${c.minR2}, growth ≥ ${c.minGrowthFactor ?? 1}×`;
  return { holds, measured: lowest, published: null, factor: null, detail: `${stat} per configuration; ${parts.join('; ')} (${limits})` };
}

// ------------------------------------------------------------------ expectations (with intervals)

function band(e: Expectation): [number, number] {
  switch (e.expect) {
    case 'approx':
      return [e.published / e.tolerance.factor, e.published * e.tolerance.factor];
    case 'at-least':
      return [e.limit, Infinity];
    case 'at-most':
      return [-Infinity, e.limit];
    case 'between':
      return [e.min, e.max];
  }
}

function describeBand(e: Expectation, unit: string): string {
  const u = (x: number) => fmtInUnit(x, unit);
  switch (e.expect) {
    case 'approx': {
      const [lo, hi] = band(e);
      return `published ${u(e.published)} ×/÷ ${e.tolerance.factor} = ${u(lo)}–${u(hi)}`;
    }
    case 'at-least':
      return `at least ${u(e.limit)}${e.published !== undefined ? ` (published ${u(e.published)})` : ''}`;
    case 'at-most':
      return `at most ${u(e.limit)}${e.published !== undefined ? ` (published ${u(e.published)})` : ''}`;
    case 'between':
      return `between ${u(e.min)} and ${u(e.max)}${e.published !== undefined ? ` (published ${u(e.published)})` : ''}`;
  }
}

/** Judges a quantity against an expectation: the interval for a magnitude claim, the point for a shape claim. */
function judgeExpectation(q: Quantity, scale: number, e: Expectation, unit: string, label: string, ctx: JudgeContext): Judgement {
  const point = pointOf(q) * scale;
  if (!Number.isFinite(point)) throw new NotMeasurable(`${label} is not a finite number (a denominator of 0?)`);
  const raw = intervalOf(q, { seed: ctx.seed });
  const interval = raw ? { low: Math.min(raw.low, raw.high) * scale, high: Math.max(raw.low, raw.high) * scale } : undefined;
  const [lo, hi] = band(e);
  const inBand = point >= lo && point <= hi;
  const useInterval = ctx.kind === 'magnitude' && interval !== undefined;
  const holds = useInterval ? interval.high >= lo && interval.low <= hi : inBand;
  const published = e.published ?? null;
  const factor = published !== null && published > 0 ? point / published : null;
  let how: string;
  if (useInterval) {
    if (holds) how = inBand ? 'inside the band' : 'the interval reaches the band';
    else how = interval.low > hi ? 'the whole interval lies above the band' : 'the whole interval lies below the band';
  } else how = inBand ? 'inside the band' : point > hi ? 'above the band' : 'below the band';
  const ci = interval ? ` [95 % CI ${fmtInUnit(interval.low, unit)}–${fmtInUnit(interval.high, unit)}]` : '';
  return {
    holds,
    measured: point,
    published,
    factor,
    ...(interval ? { interval } : {}),
    detail: `${label} = ${fmtInUnit(point, unit)}${ci}; ${describeBand(e, unit)}: ${how}`,
  };
}

/** A quantity built from several operands: their groups side by side, combined from their values. */
function combined(parts: ReturnType<typeof operandGroups>[], stat: CheckStatistic, f: (values: number[]) => number): Quantity {
  const offsets: number[] = [];
  let n = 0;
  for (const p of parts) offsets.push(n), (n += p.groups.length);
  return {
    groups: parts.flatMap((p) => p.groups),
    stat,
    combine: (s) => f(parts.map((p, i) => p.combine(s.slice(offsets[i], offsets[i]! + p.groups.length)))),
  };
}

function slopeQuantity(data: ExperimentData, sel: Series, over: string, stat: CheckStatistic): { q: Quantity; xs: number[] } {
  const p = points(data, sel, over, undefined);
  return { q: { groups: p.groups, stat, combine: (s) => fit(p.xs, s).slope }, xs: p.xs };
}

export function judgeExpectationCheck(c: Check & Expectation, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  switch (c.type) {
    case 'slope-ratio': {
      const n = slopeQuantity(data, c.numerator, c.over, stat);
      const d = slopeQuantity(data, c.denominator, c.over, stat);
      const k = n.q.groups.length;
      const q: Quantity = { groups: [...n.q.groups, ...d.q.groups], stat, combine: (s) => n.q.combine(s.slice(0, k)) / d.q.combine(s.slice(k)) };
      const label = `slope over ${c.over} of ${stat}(${describeSeries(c.numerator)}) ÷ of ${stat}(${describeSeries(c.denominator)})`;
      return judgeExpectation(q, 1, c, 'ratio', label, ctx);
    }
    case 'per-entry': {
      const s = slopeQuantity(data, c.series, c.over, stat);
      const q: Quantity = { ...s.q, combine: (v) => s.q.combine(v) / c.entriesPerMb };
      const label = `slope over rssMb of ${stat}(${describeSeries(c.series)}) ÷ ${c.entriesPerMb} entries per MB`;
      return judgeExpectation(q, 1, c, c.unit, label, ctx);
    }
    case 'ratio': {
      const num = operandGroups(data, c.numerator, stat);
      const den = operandGroups(data, c.denominator, stat);
      const q = combined([num, den], stat, ([a, b]) => a! / b!);
      return judgeExpectation(q, 1, c, 'ratio', `${num.label} ÷ ${den.label}`, ctx);
    }
    case 'value': {
      const op = operandGroups(data, c.operand, stat);
      const scale = c.operand.metric ? 1 : nsTo(c.unit);
      return judgeExpectation({ groups: op.groups, stat, combine: op.combine }, scale, c, c.unit, op.label, ctx);
    }
    default:
      throw new Error(`judgeExpectationCheck: ${c.type} has no expectation`);
  }
}

// ------------------------------------------------------------------ comparisons

function operandValue(data: ExperimentData, op: Operand, stat: CheckStatistic, r?: Restriction): { value: number; label: string } {
  const g = operandGroups(data, op, stat, r);
  return { value: g.combine(g.groups.map((x) => statistic(x, stat))), label: g.label };
}

const fmtOperand = (v: number, op: Operand) => fmtMetric(v, op.metric);

export function judgeGreater(c: GreaterCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const minFactor = c.minFactor ?? 1;
  const slack = c.slack ?? 0;
  const need = minFactor * (1 - slack);
  const pairs = c.pairBy?.length ? eachOf(data, c.greater.series, c.pairBy) : [{}];
  const parts: string[] = [];
  let holds = true;
  let lowest = Infinity;
  let compared = 0;
  for (const r of pairs) {
    let g, l;
    try {
      g = operandValue(data, c.greater, stat, r);
      l = operandValue(data, c.lesser, stat, r);
    } catch (e) {
      if (e instanceof NotMeasurable && pairs.length > 1) continue; // a pair measured on one side only
      throw e;
    }
    compared++;
    const ratio = g.value / l.value;
    const ok = l.value > 0 ? ratio >= need : g.value >= need * l.value;
    holds &&= ok;
    lowest = Math.min(lowest, ratio);
    if (!ok || pairs.length <= 3) parts.push(`${where(r)}${fmtOperand(g.value, c.greater)} vs ${fmtOperand(l.value, c.lesser)} (${fmtFactor(ratio)})${ok ? '' : ' ✗'}`);
  }
  if (compared === 0) throw new NotMeasurable(`${data.experiment}: no ${c.pairBy?.join(',')} combination was measured for both sides`);
  const g0 = operandGroups(data, c.greater, stat);
  const l0 = operandGroups(data, c.lesser, stat);
  const head = `${g0.label} ≥ ${need === 1 ? '' : `${fmtNum(need)} × `}${l0.label}${c.pairBy?.length ? ` for each ${c.pairBy.join(',')}` : ''}`;
  const tail = holds && pairs.length > 3 ? `; all ${compared} pairs hold, lowest ratio ${fmtFactor(lowest)}` : `; ${parts.join('; ')}`;
  return { holds, measured: Number.isFinite(lowest) ? lowest : null, published: null, factor: null, detail: `${head}${tail}` };
}

export function judgeApproxEqual(c: ApproxEqualCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const vals = c.operands.map((op) => ({ op, ...operandValue(ctx.data, op, stat) }));
  const values = vals.map((v) => v.value);
  const max = Math.max(...values);
  const min = Math.min(...values);
  const ratio = min > 0 ? max / min : Infinity;
  const holds = ratio <= c.maxFactor;
  const list = vals.map((v) => `${v.label} = ${fmtOperand(v.value, v.op)}`).join(', ');
  return {
    holds,
    measured: Number.isFinite(ratio) ? ratio : null,
    published: null,
    factor: null,
    detail: `${list}: max ÷ min = ${Number.isFinite(ratio) ? fmtFactor(ratio) : '∞'} (limit ${c.maxFactor}×)`,
  };
}

export function judgeCountPer(c: CountPerCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  let total = 0;
  let touched = 0;
  let iterations = 0;
  for (const cfg of select(data, c.series)) {
    const v = configValues(cfg, c.field);
    const info = cfg['info'] as Record<string, unknown> | undefined;
    const pages = typeof cfg['pages'] === 'number' ? cfg['pages'] : typeof info?.['pages'] === 'number' ? info['pages'] : null;
    if (!v) continue;
    if (pages === null || pages <= 0) throw new NotMeasurable(`${data.experiment} does not record how many pages ${describeSeries(c.series)} touched`);
    for (const x of v) total += x;
    touched += v.length * pages;
    iterations += v.length;
  }
  if (iterations === 0) throw new NotMeasurable(`${data.experiment} does not record ${c.field} for ${describeSeries(c.series)}`);
  const perPage = total / touched;
  const holds = Math.abs(perPage - c.expected) <= c.maxAbsDeviation;
  return {
    holds,
    measured: perPage,
    published: c.expected,
    factor: null,
    detail: `${c.field} per page of ${describeSeries(c.series)}: ${perPage.toFixed(4)} over ${iterations} passes (expected ${c.expected} ± ${c.maxAbsDeviation})`,
  };
}

export function judgeSpread(c: SpreadCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  let worst: { spread: number; r: Restriction; n: number } | null = null;
  let over = 0;
  let groups = 0;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const sel = narrow(c.series, r, data);
    const perRepeat = select(data, sel)
      .map((cfg) => configValues(cfg))
      .filter((v): v is number[] => v !== null)
      .map((v) => statistic(v, stat));
    if (perRepeat.length < 2) continue;
    groups++;
    const m = perRepeat.reduce((a, b) => a + b, 0) / perRepeat.length;
    const spread = (Math.max(...perRepeat) - Math.min(...perRepeat)) / m;
    if (spread > c.maxRelativeSpread) over++;
    if (!worst || spread > worst.spread) worst = { spread, r, n: perRepeat.length };
  }
  if (!worst) throw new NotMeasurable(`${data.experiment}: every configuration ran once; a spread across repeats needs at least two (--repeats 2)`);
  const published = c.published ?? null;
  return {
    holds: over === 0,
    measured: worst.spread,
    published,
    factor: published ? worst.spread / published : null,
    detail:
      `(max − min) ÷ mean of the per-repeat ${stat}: ${over} of ${groups} configurations exceed ${fmtPercent(c.maxRelativeSpread)}; ` +
      `worst ${fmtPercent(worst.spread)} at ${describeRestriction(worst.r) || 'all'} (${worst.n} repeats)`,
  };
}

export function judgeBoolean(c: BooleanCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const configs = select(data, { variant: c.variant });
  const values = configs.map((cfg) => cfg[c.field]).filter((v): v is boolean => typeof v === 'boolean');
  if (values.length === 0) throw new NotMeasurable(`${data.experiment} recorded no ${c.field} for variant ${c.variant}`);
  const yes = values.filter((v) => v).length;
  const matching = values.filter((v) => v === c.expected).length;
  return {
    holds: matching === values.length,
    measured: yes / values.length,
    published: c.expected ? 1 : 0,
    factor: null,
    detail: `${c.field} was ${c.expected} in ${matching} of ${values.length} repeats of ${c.variant} (expected ${c.expected} in all)`,
  };
}
