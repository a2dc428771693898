// The checks that compare operands (ratio, value, greater, approx-equal), count faults (count-per), compare
// repeats (spread) or read a yes/no outcome (boolean). Lines over a key are in lines.ts. Each returns a
// Judgement whose outcome comes from an interval (docs/published-figures.md, "How a claim is judged"); missing
// data throws NotMeasurable.
import type { ApproxEqualCheck, BooleanCheck, Check, CountPerCheck, Expectation, GreaterCheck, Operand, Series, SpreadCheck } from '../reference/published.js';
import { allOf, against, placement, type Outcome } from './bands.js';
import { checkIdenticalRepeats, checkPositive, checkRepeats, positiveRatio, strictlyAbove } from './evidence.js';
import { fmtFactor, fmtMetric, fmtNum, fmtPercent } from './format.js';
import { eachOf, finite, judgeExpectation, scaled, statOf, where, withInterval, type JudgeContext, type Judgement } from './judgement.js';
import { combined } from './quantity.js';
import { pooledStatistic } from '../stats/resample.js';
import type { CheckStatistic } from '../reference/published.js';
import { plainMark, plainPair, plainSeries, plainWhere } from './plain.js';
import { NotMeasured } from './missing.js';
import { baseWords } from '../text/words.js';
import { NotMeasurable, configValues, describeRestriction, describeSeries, identityKey, keyOf, narrow, nsTo, operandGroups, select, type Config } from './select.js';
import type { Restriction } from './data.js';

function tryEachOf(data: JudgeContext['data'], sel: Series, keys: readonly string[]): Restriction[] {
  try {
    return eachOf(data, sel, keys);
  } catch (e) {
    if (e instanceof NotMeasurable) return [];
    throw e;
  }
}

/** An operand's value on the pooled data (what its sign is judged on). */
function operandPoint(o: ReturnType<typeof operandGroups>, stat: CheckStatistic): number {
  return o.combine(o.groups.map((g) => pooledStatistic(g, stat)));
}

function unionOf(rs: readonly Restriction[]): Restriction[] {
  const seen = new Map(rs.map((r) => [JSON.stringify(Object.entries(r).sort()), r]));
  return [...seen.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b), 'en', { numeric: true }));
}

/** An operand's value with its unit (a time in ns or the metric's); scaled by multiplyBy, a bare number. */
const operandFmt = (o: Operand) => (x: number) => (o.multiplyBy === undefined ? fmtMetric(x, o.metric) : fmtNum(x));

const mark = (o: Outcome) => (o === 'holds' ? '' : o === 'differs' ? ' ✗' : ' ?');

export function judgeOperandExpectation(c: Check & Expectation, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  switch (c.type) {
    case 'ratio': {
      const num = operandGroups(data, c.numerator, stat);
      const den = operandGroups(data, c.denominator, stat);
      // "Changes by at most X of …": a difference that falls is as much a change as one that rises, so an at-most
      // ratio of a difference is judged on its size. Every other ratio needs two positive quantities.
      const size = c.expect === 'at-most' && (c.numerator.minus !== undefined || c.numerator.minusMetric !== undefined);
      const label = size ? `|${num.label}| ÷ ${den.label}` : `${num.label} ÷ ${den.label}`;
      const a = operandPoint(num, stat);
      const b = operandPoint(den, stat);
      checkPositive(
        size
          ? [{ label: den.label, value: b, fmt: operandFmt(c.denominator) }]
          : [
              { label: num.label, value: a, fmt: operandFmt(c.numerator) },
              { label: den.label, value: b, fmt: operandFmt(c.denominator) },
            ],
        `${data.experiment}: ${label}`,
      );
      const q = {
        ...combined([num, den], stat, ([x, y]) => (size ? (y! > 0 ? Math.abs(x!) / y! : NaN) : positiveRatio(x!, y!))),
        multiplicative: !size,
        drift: size ? ('absolute' as const) : ('log' as const),
      };
      // A ratio of positive quantities is never below 0, however far few repeats widen its interval.
      return judgeExpectation(q, 1, c, 'ratio', label, ctx, 0);
    }
    case 'value': {
      const op = operandGroups(data, c.operand, stat);
      const scale = c.operand.metric ? 1 : nsTo(c.unit);
      // a time is many-fold noisy; a difference or a reading (page tables, Slab) is not
      const isTime = !c.operand.metric && c.operand.minus === undefined && c.operand.minusMetric === undefined;
      return judgeExpectation({ ...combined([op], stat, ([a]) => a!), multiplicative: isTime }, scale, c, c.unit, op.label, ctx);
    }
    default:
      throw new Error(`judgeOperandExpectation: ${c.type} is judged elsewhere`);
  }
}

export function judgeGreater(c: GreaterCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const need = (c.minFactor ?? 1) * (1 - (c.slack ?? 0));
  // Pairs from both sides, so that a combination measured for one side only is seen (and said), not skipped.
  const pairs = c.pairBy?.length ? unionOf([...eachOf(data, c.greater.series, c.pairBy), ...tryEachOf(data, c.lesser.series, c.pairBy)]) : [{}];
  const parts: string[] = [];
  const plainParts: string[] = [];
  const notes: string[] = [];
  const outcomes: Outcome[] = [];
  let lowest = Infinity;
  let minRepeats = Infinity;
  for (const r of pairs) {
    let g: ReturnType<typeof operandGroups>;
    let l: ReturnType<typeof operandGroups>;
    try {
      g = operandGroups(data, c.greater, stat, r);
      l = operandGroups(data, c.lesser, stat, r);
    } catch (e) {
      // A pair measured on one side only is a hole in the evidence: "at every x" cannot hold on the rest.
      if (e instanceof NotMeasured && pairs.length > 1)
        throw new NotMeasurable(`${plainSeries(r)} was measured on one side only (${e.message}); the claim is about every ${c.pairBy!.join(',')}`);
      throw e;
    }
    checkPositive(
      [
        { label: g.label, value: operandPoint(g, stat), fmt: operandFmt(c.greater) },
        { label: l.label, value: operandPoint(l, stat), fmt: operandFmt(c.lesser) },
      ],
      `${data.experiment}: ${where(r)}${g.label} ÷ ${l.label}`,
    );
    const q = { ...combined([g, l], stat, ([a, b]) => positiveRatio(a!, b!)), multiplicative: true };
    const m = scaled(q, 1, ctx, `${g.label} ÷ ${l.label}`, 0);
    minRepeats = Math.min(minRepeats, m.minRepeats);
    const iv = m.interval ?? { low: m.point, high: m.point };
    const o = strictlyAbove(iv, need);
    outcomes.push(o);
    lowest = Math.min(lowest, m.point);
    if (o !== 'holds' || pairs.length <= 3) {
      parts.push(`${where(r)}${withInterval(m.point, m.interval, fmtFactor)}${mark(o)}`);
      plainParts.push(`${plainWhere(r)}${withInterval(m.point, m.interval, fmtFactor)}${plainMark(o)}`);
    }
  }
  if (outcomes.length === 0) throw new NotMeasurable(`${data.experiment}: no ${c.pairBy?.join(',')} combination was measured on both sides`);
  const g0 = operandGroups(data, c.greater, stat);
  const l0 = operandGroups(data, c.lesser, stat);
  const head = `${g0.label} ÷ ${l0.label} > ${fmtNum(need)}${c.pairBy?.length ? ` for each ${c.pairBy.join(',')}` : ''} (whole interval above, strictly)`;
  const outcome = allOf(outcomes);
  const tail = outcome === 'holds' && pairs.length > 3 ? `; all ${outcomes.length} pairs hold, lowest ratio ${fmtFactor(lowest)}` : `; ${parts.join('; ')}`;
  const ratio = `${plainSeries(c.greater.series)} ÷ ${plainSeries(c.lesser.series)}`;
  const plain = `this machine: ${outcome === 'holds' && pairs.length > 3 ? `all ${outcomes.length} ratios above ${fmtFactor(need)}, the lowest ${fmtFactor(lowest)}` : plainParts.join('; ')} (${ratio}; the claim needs the whole interval strictly above ${fmtFactor(need)})`;
  return { outcome, measured: lowest, published: null, factor: null, detail: `${head}${tail}`, plain, notes, minRepeats };
}

export function judgeApproxEqual(c: ApproxEqualCheck, ctx: JudgeContext): Judgement {
  const stat = statOf(c);
  const ops = c.operands.map((op) => operandGroups(ctx.data, op, stat));
  checkPositive(
    ops.map((o, i) => ({ label: o.label, value: operandPoint(o, stat), fmt: operandFmt(c.operands[i]!) })),
    `${ctx.data.experiment}: max ÷ min`,
  );
  const q = { ...combined(ops, stat, (v) => (Math.min(...v) > 0 ? Math.max(...v) / Math.min(...v) : NaN)), multiplicative: true };
  const m = scaled(q, 1, ctx, 'max ÷ min', 1);
  const iv = m.interval ?? { low: m.point, high: m.point };
  const operandValue = (o: (typeof ops)[number], i: number) => fmtMetric(o.combine(o.groups.map((g) => pooledStatistic(g, stat))), c.operands[i]!.metric);
  const values = ops.map((o, i) => `${o.label} = ${operandValue(o, i)}`);
  const plainValues = ops.map((o, i) => {
    const op = c.operands[i]!;
    return `${plainSeries(op.series)}${op.metric ? ` (${baseWords(op.metric)})` : ''}: ${operandValue(o, i)}`;
  });
  return {
    // max ÷ min is never below 1: only the limit is an edge (a widened interval reaching below 1 decides nothing).
    outcome: against(iv, [-Infinity, c.maxFactor]),
    measured: m.point,
    published: null,
    factor: null,
    ...finite(m.interval),
    detail: `${values.join(', ')}: max ÷ min = ${withInterval(m.point, m.interval, fmtFactor)} (limit ${c.maxFactor}×: ${placement(iv, [-Infinity, c.maxFactor], fmtFactor)})`,
    plain: `this machine: ${plainValues.join('; ')}; the largest is ${withInterval(m.point, m.interval, fmtFactor)} the smallest (about equal: the whole interval at most ${fmtFactor(c.maxFactor)})`,
    minRepeats: m.minRepeats,
  };
}

export function judgeCountPer(c: CountPerCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const byRepeat = new Map<number, number[]>();
  const configs = select(data, c.series);
  for (const cfg of configs) {
    const v = configValues(cfg, c.field);
    const field = cfg['pages'];
    const info = cfg.info['pages'];
    const pages = typeof field === 'number' ? field : typeof info === 'number' ? info : null;
    if (!v) continue;
    if (pages === null || pages <= 0) throw new NotMeasurable(`${data.experiment} does not record how many pages ${describeSeries(c.series)} touched`);
    const r = cfg.repeat;
    byRepeat.set(r, [...(byRepeat.get(r) ?? []), ...v.map((x) => x / pages)]);
  }
  if (byRepeat.size === 0) throw new NotMeasurable(`${data.experiment} does not record ${c.field} for ${describeSeries(c.series)}`);
  const groups = [...byRepeat.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
  const m = scaled({ groups: [groups], keys: [keyOf(data, configs)], stat: 'mean', combine: (s) => s[0]!, drift: 'absolute', readings: true }, 1, ctx, `${c.field} per page`);
  const b: [number, number] = [c.expected - c.maxAbsDeviation, c.expected + c.maxAbsDeviation];
  const iv = m.interval ?? { low: m.point, high: m.point };
  const fmt = (x: number) => x.toFixed(4);
  return {
    outcome: against(iv, b),
    measured: m.point,
    published: c.expected,
    factor: null,
    ...finite(m.interval),
    detail: `mean ${c.field} per page of ${describeSeries(c.series)} = ${withInterval(m.point, m.interval, fmt)} over ${groups.flat().length} passes (expected ${c.expected} ± ${c.maxAbsDeviation}: ${placement(iv, b, fmt)})`,
    plain: `this machine: ${withInterval(m.point, m.interval, fmt)} ${baseWords(c.field)} per page of ${plainSeries(c.series)}, on average over ${groups.flat().length} passes (the claim: ${c.expected} ± ${c.maxAbsDeviation}; ${placement(iv, b, fmt)})`,
    minRepeats: groups.length,
  };
}

export function judgeSpread(c: SpreadCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const stat = statOf(c);
  const outcomes: Outcome[] = [];
  let worst: { spread: number; r: Restriction; n: number; text: string } | null = null;
  for (const r of eachOf(data, c.series, c.eachOf)) {
    const configs = select(data, narrow(c.series, r, data)).filter((cfg) => configValues(cfg) !== null);
    checkRepeats(
      data,
      configs.map((cfg) => configValues(cfg)!),
      true,
      plainSeries(r),
    );
    checkIdenticalRepeats(data, configs, plainSeries(r), (cfg) => identityKey(data, cfg));
    // Each repeat is its own series, resampled within itself: the interval says whether the repeats' statistics
    // differ by more than their own sampling noise explains.
    const groups = configs.map((cfg) => [configValues(cfg)!]);
    const spread = (s: readonly number[]) => (Math.max(...s) - Math.min(...s)) / (s.reduce((a, b) => a + b, 0) / s.length);
    const m = scaled(
      { groups, keys: configs.map((cfg) => keyOf(data, [cfg])), stat, combine: spread, drift: 'absolute' },
      1,
      { ...ctx, data: { ...data, paired: false } },
      'the spread',
      0,
    );
    const iv = m.interval ?? { low: m.point, high: m.point };
    const o = against(iv, [-Infinity, c.maxRelativeSpread]);
    outcomes.push(o);
    if (!worst || m.point > worst.spread) worst = { spread: m.point, r, n: configs.length, text: withInterval(m.point, m.interval, fmtPercent) };
  }
  if (!worst) throw new NotMeasurable(`${data.experiment}: no configuration has samples; a spread across repeats needs at least two repeats (--repeats 2)`);
  const published = c.published ?? null;
  const count = (o: Outcome) => outcomes.filter((x) => x === o).length;
  return {
    outcome: allOf(outcomes),
    measured: worst.spread,
    published,
    factor: published ? worst.spread / published : null,
    detail:
      `(max − min) ÷ mean of the per-repeat ${stat}, each with its interval: ${count('holds')} of ${outcomes.length} configurations within ${fmtPercent(c.maxRelativeSpread)}, ` +
      `${count('differs')} beyond, ${count('inconclusive')} undecided; worst ${worst.text} at ${describeRestriction(worst.r) || 'all'} (${worst.n} repeats)`,
    plain:
      `this machine: the repeats of ${count('holds')} of ${outcomes.length} configurations agree within ${fmtPercent(c.maxRelativeSpread)}` +
      `${count('differs') ? `, ${count('differs')} differ by more` : ''}${count('inconclusive') ? `, ${count('inconclusive')} undecided` : ''}; ` +
      `the widest spread ${worst.text}, at ${plainSeries(worst.r)} (${worst.n} repeats)`,
    minRepeats: worst.n,
  };
}

/**
 * A repeat's yes/no outcome, or why it cannot count. A field may be top-level or in the probe's info. A deadlock child counts as deadlocked only when it reported
 * ETIMEDOUT from its bounded lock attempt; a child that was killed or never reported proves nothing.
 */
function repeatOutcome(cfg: Config, field: string): { value: boolean } | { excluded: string } {
  const v = cfg[field] ?? cfg.info[field];
  if (typeof v !== 'boolean') return { excluded: `recorded no ${field}` };
  if (field !== 'childAcquired') return { value: v };
  if (!('childReported' in cfg)) return v ? { value: v } : { excluded: 'did not record whether the child reported' };
  if (cfg['childKilled'] === true) return { excluded: 'its child was killed' };
  if (cfg['childReported'] !== true) return { excluded: 'its child never reported' };
  if (!v && cfg['childResult'] !== 'ETIMEDOUT') return { excluded: `its child reported ${String(cfg['childResult'] ?? 'nothing')}, not ETIMEDOUT` };
  return { value: v };
}

export function judgeBoolean(c: BooleanCheck, ctx: JudgeContext): Judgement {
  const { data } = ctx;
  const configs = select(data, c.series ?? { variant: c.variant! });
  const what = c.variant ?? describeSeries(c.series ?? {});
  const counted: boolean[] = [];
  const excluded = new Map<string, number>();
  for (const cfg of configs) {
    const o = repeatOutcome(cfg, c.field);
    if ('value' in o) counted.push(o.value);
    else excluded.set(o.excluded, (excluded.get(o.excluded) ?? 0) + 1);
  }
  const why = [...excluded].map(([w, n]) => `${n} repeat${n > 1 ? 's' : ''}: ${w}`);
  if (counted.length === 0) throw new NotMeasurable(`${data.experiment} ${what}: no repeat can count (${why.join('; ') || 'none ran'})`);
  const matching = counted.filter((v) => v === c.expected).length;
  const outcome: Outcome = matching === counted.length ? 'holds' : matching === 0 ? 'differs' : 'inconclusive';
  return {
    outcome,
    measured: counted.filter((v) => v).length / counted.length,
    published: c.expected ? 1 : 0,
    factor: null,
    detail: `${c.field} was ${c.expected} in ${matching} of ${counted.length} ${c.variant ? `repeats of ${c.variant}` : `probes of ${what}`} that count (expected in all)`,
    plain: `this machine: as ${ctx.by ?? 'the article'} says in ${matching} of ${counted.length} ${c.variant ? `repeats of ${plainPair('variant', c.variant)}` : `probes${c.series && Object.keys(c.series).length ? ` of ${plainSeries(c.series)}` : ''}`} that count (the claim needs every one)`,
    notes: why.map((w) => `left out of ${what}: ${w}`),
    minRepeats: counted.length,
  };
}
