// What judging one claim's check produces, and the judge shared by every check with a published expectation:
// the quantity's 95 % interval against the claim's band (holds inside, differs outside, inconclusive across an
// edge; a single reading with no interval is judged on its value and says so).
import type { Check, CheckStatistic, Expectation, Series, SeriesValue } from '../reference/published.js';
import { checkCells } from './evidence.js';
import { against, band, describeBand, placement, type Outcome, type PublishedBy, type Range } from './bands.js';
import { fmtInUnit } from './format.js';
import { measureQuantity, type Measured, type Quantity } from './quantity.js';
import { driftClass, quantityKey, widenByDrift, type DriftOptions, type QuantityLog } from './drift.js';
import { NotMeasurable, combinations, describeRestriction, describeSeries, probeOf, select, type ExperimentData } from './select.js';
import type { Restriction } from './data.js';
import { poolOf } from './repeat-pool.js';

export interface Judgement {
  outcome: Outcome;
  measured: number | null;
  published: number | null;
  /** measured ÷ published where the check has a published value. */
  factor: number | null;
  /** The measured quantity's 95 % bootstrap interval, where there is one. */
  interval?: Range;
  /** One line: what was compared, with the numbers. */
  detail: string;
  /** The same in plain words, without the formula (what `reproduce` prints unless --verbose). */
  plain?: string;
  /** Things the reader must know (pairs measured on one side only, repeats that could not count…). */
  notes?: string[];
  /** Fewest repeats behind the judged series (null when not applicable). */
  minRepeats?: number | null;
}

export interface JudgeContext {
  data: ExperimentData;
  kind: 'shape' | 'magnitude';
  seed: number;
  /** Of every interval (default 0.95). */
  confidence?: number;
  /** The claim's quantities as they are measured: their keys, within-run figures and drift (src/claims/drift.ts). */
  log?: QuantityLog;
  /** How the machine's drift between runs widens every interval; absent or withinRun: not at all. */
  drift?: DriftOptions;
  /** Whose value the claim is judged against, in the verdict's words (default: the article). */
  by?: PublishedBy;
}

export const statOf = (c: Check): CheckStatistic => c.statistic ?? 'median';

export const where = (r: Restriction) => (Object.keys(r).length ? `${describeRestriction(r)}: ` : '');

/** The key values to evaluate separately (eachOf), from the configurations a selector picks. */
export function eachOf(data: ExperimentData, sel: Series, keys: readonly string[] | undefined): Restriction[] {
  if (!keys || keys.length === 0) return [{}];
  const configs = select(data, sel);
  // Every value the run set out to measure must be there: a claim "for each thp" does not hold on thp off alone.
  for (const k of keys)
    if (!(k in sel))
      checkCells(
        data,
        sel,
        k,
        configs.map((c) => c[k] as SeriesValue),
        describeSeries,
      );
  return combinations(configs, keys, data);
}

/** A quantity as this run alone measures it (its bootstrap interval, no drift between runs), in the claim's context. */
export function measureWithinRun(q: Quantity, ctx: JudgeContext): Measured {
  return measureQuantity(q, {
    seed: ctx.seed,
    paired: ctx.data.paired,
    confidence: ctx.confidence ?? 0.95,
    probeOf: (k) => probeOf(ctx.data, k),
    repeatPool: (stat) => poolOf(ctx.data, stat),
  });
}

/**
 * A measured quantity scaled to the claim's unit: its value and its interval (null: single readings). With a log,
 * its within-run figures are recorded under its key, and with drift options the interval is widened by this
 * machine's drift between runs of it before anything is compared with a band (src/claims/drift.ts).
 */
export function scaled(q: Quantity, scale: number, ctx: JudgeContext, label: string, floor = -Infinity): { point: number; interval: Range | null; minRepeats: number } {
  const confidence = ctx.confidence ?? 0.95;
  const measure = () => measureWithinRun(q, ctx);
  const log = ctx.log;
  // The same quantity of the same data (its label names what it computes, its keys which configurations, in order)
  // is measured once for every claim that judges it.
  const what = `${label}|${q.keys.join(';')}|${q.stat}|${q.multiplicative === true}|${ctx.data.paired}|${confidence}|${ctx.seed}`;
  const m = log ? log.remembered(log.next(), measure, what) : measure();
  let point = m.point * scale;
  if (!Number.isFinite(point)) throw new NotMeasurable(`${label} is not a finite number (a denominator of 0?)`);
  // The interval always holds its own point (a percentile interval of a median of tied readings may not).
  let iv = m.interval ? { low: Math.min(m.interval.low * scale, m.interval.high * scale, point), high: Math.max(m.interval.low * scale, m.interval.high * scale, point) } : null;
  if (iv && Number.isNaN(iv.low)) return { point, interval: { low: -Infinity, high: Infinity }, minRepeats: m.minRepeats };
  if (log && iv && Number.isFinite(iv.low) && Number.isFinite(iv.high)) {
    const driftScale = q.drift ?? (q.multiplicative ? 'log' : 'relative');
    const key = log.unique(quantityKey(log.claimId, label, ctx.data, q.keys));
    const est = { point, low: iv.low, high: iv.high, confidence, scale: driftScale, class: driftClass(q.readings === true, driftScale) };
    log.estimates[key] = est;
    const widened = ctx.drift && !ctx.drift.withinRun ? widenByDrift(est, key, label, ctx.data, ctx.drift) : null;
    if (widened) {
      // pooled with the machine's earlier runs: the machine's value and its interval stand for this run's
      point = widened.point;
      iv = { low: Math.min(widened.interval.low, point), high: Math.max(widened.interval.high, point) };
      log.used.push(widened.used);
    }
  }
  // `floor`: the least value the quantity can take (max ÷ min is never below 1), where a widened interval stops.
  return { point, interval: iv ? { low: Math.max(floor, iv.low), high: iv.high } : null, minRepeats: m.minRepeats };
}

/** "= 2.1× [95 % CI 1.9×–2.3×]" or "= 16940 kB (one reading per repeat, no spread to resample)". */
export function withInterval(point: number, iv: Range | null, fmt: (x: number) => string): string {
  if (!iv) return `${fmt(point)} (a single reading: no interval)`;
  if (!Number.isFinite(iv.low) || !Number.isFinite(iv.high)) return `${fmt(point)} [95 % CI unbounded: too many resamples give no finite value]`;
  return `${fmt(point)} [95 % CI ${fmt(iv.low)}–${fmt(iv.high)}]`;
}

/** The interval as a verdict carries it: only when it is a finite one. */
export function finite(iv: Range | null): { interval?: Range } {
  return iv && Number.isFinite(iv.low) && Number.isFinite(iv.high) ? { interval: iv } : {};
}

/**
 * Judges a quantity against a published expectation with its interval. `noUpperEnd`: why the quantity has no upper
 * end (a ratio whose denominator is not told from 0): the interval runs from its lower end to unbounded, and is
 * judged and said so, never with the resamples' arbitrary largest value.
 */
export function judgeExpectation(q: Quantity, scale: number, e: Expectation, unit: string, label: string, ctx: JudgeContext, floor = -Infinity, noUpperEnd?: string): Judgement {
  const m = scaled(q, scale, ctx, label, floor);
  const b = band(e);
  const fmt = (x: number) => fmtInUnit(x, unit);
  const open = noUpperEnd !== undefined && m.interval !== null && Number.isFinite(m.interval.low);
  const iv = open ? { low: m.interval!.low, high: Infinity } : (m.interval ?? { low: m.point, high: m.point });
  const shown = open ? `${fmt(m.point)} [95 % CI ${fmt(iv.low)}–unbounded: ${noUpperEnd}]` : withInterval(m.point, m.interval, fmt);
  const published = e.published ?? null;
  return {
    outcome: against(iv, b),
    measured: m.point,
    published,
    factor: published !== null && published > 0 ? m.point / published : null,
    ...(open ? {} : finite(m.interval)),
    detail: `${label} = ${shown}; ${describeBand(e, unit)}: ${placement(iv, b, fmt)}`,
    plain: `this machine: ${shown}; ${describeBand(e, unit, true, ctx.by)}: ${placement(iv, b, fmt)}`,
    minRepeats: m.minRepeats,
  };
}
