// From run documents to the numbers a claim or a figure is judged on: which configurations a selector
// (a published `Series`) picks, what values they hold for a metric, statistics and units. Anything missing
// throws NotMeasurable with a sentence that says what is missing, which becomes the verdict's reason.
import type { RunDocument } from '../document/run.js';
import { findExperiment } from '../experiments/index.js';
import type { CheckStatistic, Operand, Series, SeriesValue } from '../reference/published.js';
import { mean, median } from '../stats/descriptive.js';
import { verifyConditions } from './conditions.js';
import { checkIdenticalRepeats, checkSelection, checkSeries, probesOf } from './evidence.js';
import { CONTEXT_KEYS, NotMeasurable, type Config, type ExperimentData, type Restriction } from './data.js';
import { notMeasuredTogether, notMeasuredValue } from './missing.js';

export { NotMeasurable, type Config, type ExperimentData };

/** Groups the documents by experiment; `absent` says why an experiment has no document (e.g. "did not run"). */
export function dataFor(docs: readonly RunDocument[], experiment: string, absent?: string): ExperimentData {
  const mine = docs.filter((d) => d.experiment === experiment);
  if (mine.length === 0) throw new NotMeasurable(absent ?? `${experiment} did not run`);
  const all = probesOf(mine);
  const configs = all.filter((c) => c['state'] === 'ok');
  if (configs.length === 0) throw new NotMeasurable(`${experiment} ran but no configuration succeeded`);
  const notes: string[] = [];
  if (mine.some((d) => d.complete === false)) notes.push(`the ${experiment} run is incomplete (interrupted, or a probe failed): judged on what finished`);
  const failed = all.length - configs.length;
  if (failed > 0) notes.push(`${failed} of ${all.length} ${experiment} configurations failed and are left out`);
  for (const w of new Set(mine.flatMap((d) => (d.warnings ?? []).map((x) => `${x.code}: ${x.message}`)))) notes.push(`warning ${w}`);
  const pinned = mine.every((d) => typeof d.machine?.pinnedCpu === 'number');
  const exp = findExperiment(experiment);
  // Where one probe measures several configurations round by round, every run must say which fields it fixes alike.
  const probeSets = new Set(mine.map((d) => JSON.stringify(exp?.probeKeys?.(d.params ?? {}) ?? null)));
  const probeKeys = probeSets.size === 1 ? (JSON.parse([...probeSets][0]!) as string[] | null) : null;
  const startedAt = earliestStart(mine);
  return {
    experiment,
    configs,
    notes,
    paired: exp?.paired === true,
    ...(probeKeys ? { probeKeys } : {}),
    pinned,
    params: mine.map((d) => d.params ?? {}),
    allConfigs: all,
    runIds: mine.map((d) => d.runId).filter((id): id is string => typeof id === 'string'),
    sessions: Math.max(1, mine.filter((d) => typeof d.params?.['settleOf'] !== 'string').length),
    ...(startedAt !== undefined ? { startedAt } : {}),
  };
}

/** When the earliest of the documents started (ISO), where they say: the runs before it are their earlier ones. */
export function earliestStart(docs: readonly { startedAt?: unknown }[]): string | undefined {
  return docs
    .map((d) => d.startedAt)
    .filter((x): x is string => typeof x === 'string')
    .sort()[0];
}

/** The probes a group's configurations (a keyOf key) come from: their probe fields and repeats, or the key itself. */
export function probeOf(data: ExperimentData, key: string): string {
  if (!data.probeKeys) return key;
  const probes = new Set<string>();
  for (const part of key.replace(/−$/, '').split(',')) {
    const c = data.configs[Number(part)];
    if (c) probes.add(JSON.stringify([...data.probeKeys.map((k) => c[k] ?? null), c['repeat'] ?? null]));
  }
  return [...probes].sort().join('');
}

/** A configuration's identity (its series and the experiment's identity fields), without its repeat. */
export function identityKey(data: ExperimentData, c: Config): string {
  const fields = ['series', ...(findExperiment(data.experiment)?.identity ?? [])];
  return JSON.stringify(fields.map((f) => c[f] ?? null));
}

export function matches(c: Config, sel: Series): boolean {
  for (const [k, v] of Object.entries(sel)) if (!CONTEXT_KEYS.includes(k) && c[k] !== v) return false;
  return true;
}

export function describeSeries(sel: Series): string {
  const parts = Object.entries(sel)
    .filter(([k]) => !CONTEXT_KEYS.includes(k))
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(',') : 'all';
}

/** What values of `key` the data has (for "this run measured …" in reasons). */
function valuesOf(data: ExperimentData, key: string): string[] {
  return [
    ...new Set(
      data.configs
        .map((c) => c[key])
        .filter((v) => v !== undefined && v !== null)
        .map(String),
    ),
  ];
}

/** The configurations a selector picks; throws NotMeasurable naming the first key that matches nothing. */
export function select(data: ExperimentData, sel: Series, atMax?: string, verify = true): Config[] {
  let out = data.configs.filter((c) => matches(c, sel));
  if (out.length === 0) {
    let narrowed = data.configs;
    for (const [k, v] of Object.entries(sel)) {
      if (CONTEXT_KEYS.includes(k)) continue;
      const next = narrowed.filter((c) => c[k] === v);
      if (next.length === 0) throw notMeasuredValue(data.experiment, k, v, valuesOf({ ...data, configs: narrowed }, k));
      narrowed = next;
    }
    throw notMeasuredTogether(data.experiment, sel);
  }
  checkSelection(data, sel, out);
  if (atMax !== undefined) {
    const xs = out.map((c) => c[atMax]).filter((x): x is number => typeof x === 'number');
    if (xs.length === 0) throw new NotMeasurable(`${data.experiment}: no configuration with ${describeSeries(sel)} has a numeric ${atMax}`);
    const top = Math.max(...xs);
    out = out.filter((c) => c[atMax] === top);
  }
  if (verify) verifyConditions(data, out);
  return out;
}

/**
 * A configuration's values of a metric: its raw samples (ns) without a metric; else the per-iteration column,
 * the top-level field or the info field of that name (one value). Null when the configuration has none.
 */
export function configValues(c: Config, metric?: string): number[] | null {
  if (metric === undefined) return c.samplesNs.length > 0 ? c.samplesNs : null;
  const col = c.columns?.[metric];
  if (col && col.length > 0) return col;
  const field = c[metric];
  if (typeof field === 'number') return [field];
  const info = c.info[metric];
  if (typeof info === 'number') return [info];
  return null;
}

const repeatOf = (c: Config): number => c.repeat;

/**
 * Values of a metric over configurations, repeat by repeat (the configurations of one repeat number pooled,
 * in repeat order): what the hierarchical bootstrap resamples. Throws NotMeasurable when none has the metric.
 */
export function repeatValues(data: ExperimentData, configs: readonly Config[], metric: string | undefined, sel: Series): number[][] {
  const byRepeat = new Map<number, number[]>();
  for (const c of configs) {
    const v = configValues(c, metric);
    if (!v) continue;
    const r = byRepeat.get(repeatOf(c)) ?? [];
    for (const x of v) if (Number.isFinite(x)) r.push(x);
    if (r.length) byRepeat.set(repeatOf(c), r);
  }
  if (byRepeat.size === 0)
    throw new NotMeasurable(
      metric === undefined
        ? `${data.experiment}: the configurations with ${describeSeries(sel)} have no samples`
        : `${data.experiment} does not record ${metric} for ${describeSeries(sel)}`,
    );
  const out = [...byRepeat.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
  const perConfig = configs.map((c) => configValues(c, metric)?.length ?? 0).filter((k) => k > 0);
  checkSeries(data, out, metric === undefined, describeSeries(sel) + (metric ? ` [${metric}]` : ''), perConfig);
  if (metric === undefined) checkIdenticalRepeats(data, configs, describeSeries(sel), (c) => identityKey(data, c));
  return out;
}

/** Pooled values of a metric over configurations; throws NotMeasurable when none has it. */
export function pooledValues(data: ExperimentData, configs: readonly Config[], metric: string | undefined, sel: Series): number[] {
  return repeatValues(data, configs, metric, sel).flat();
}

/** Differences metric − minusMetric within each configuration (the same probe), repeat by repeat. */
function pairedDifferences(data: ExperimentData, configs: readonly Config[], metric: string | undefined, minusMetric: string, sel: Series): number[][] {
  const byRepeat = new Map<number, number[]>();
  let missing: string | null = null;
  for (const c of configs) {
    const a = configValues(c, metric);
    const b = configValues(c, minusMetric);
    if (!a) missing ??= metric ?? 'samples';
    if (!b) missing ??= minusMetric;
    if (!a || !b) continue;
    const r = byRepeat.get(repeatOf(c)) ?? [];
    if (a.length === b.length) for (const [i, x] of a.entries()) r.push(x - b[i]!);
    else r.push(median(a) - median(b));
    byRepeat.set(repeatOf(c), r);
  }
  if (byRepeat.size === 0) throw new NotMeasurable(`${data.experiment} does not record ${missing ?? minusMetric} for ${describeSeries(sel)}`);
  const out = [...byRepeat.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
  const perConfig = configs.map((c) => configValues(c, minusMetric)?.length ?? 0).filter((k) => k > 0);
  checkSeries(data, out, false, `${describeSeries(sel)} [${metric ?? 'time'} − ${minusMetric}]`, perConfig);
  return out;
}

export function statistic(values: readonly number[], stat: CheckStatistic): number {
  switch (stat) {
    case 'mean':
      return mean(values);
    case 'median':
      return median(values);
    case 'min':
      return values.reduce((a, b) => Math.min(b, a), Infinity);
  }
}

/** The series an operand is computed from (each repeat by repeat), and how: (stat(g0) − stat(g1)) × multiplyBy. */
export interface OperandGroups {
  groups: number[][][];
  /** Which configurations each group comes from (the same configurations are resampled together). */
  keys: string[];
  /** 1 when the operand is a single group, 2 with a subtracted group. */
  combine: (stats: readonly number[]) => number;
  label: string;
  /** Read from a metric (kB, faults, bytes), not timed. */
  readings: boolean;
}

/** The selector narrowed by a restriction, on the keys the selected configurations have. */
export function narrow(sel: Series, r: Restriction | undefined, data: ExperimentData): Series {
  if (!r) return sel;
  const out: Record<string, SeriesValue> = { ...sel };
  for (const [k, v] of Object.entries(r)) if (data.configs.some((c) => matches(c, sel) && c[k] !== undefined)) out[k] = v;
  return out;
}

export function operandGroups(data: ExperimentData, op: Operand, stat: CheckStatistic, r?: Restriction): OperandGroups {
  const sel = narrow(op.series, r, data);
  const mult = op.multiplyBy ?? 1;
  const metricLabel = op.metric ? ` [${op.metric}]` : '';
  // An operand that reads the region's own pages is what the THP condition is verified with: not gated by it.
  const readings = findExperiment(data.experiment)?.thpCondition?.readings ?? [];
  const verify = !(op.metric !== undefined && readings.includes(op.metric));
  const configs = select(data, sel, op.atMax, verify);
  const key = keyOf(data, configs);
  if (op.minusMetric !== undefined && op.minus === undefined) {
    const d = pairedDifferences(data, configs, op.metric, op.minusMetric, sel);
    return {
      readings: true,
      groups: [d],
      keys: [`${key}−`],
      combine: (s) => s[0]! * mult,
      label: `${stat}(${describeSeries(sel)} [${op.metric ?? 'time'} − ${op.minusMetric}])${mult !== 1 ? ` × ${mult}` : ''}`,
    };
  }
  const a = repeatValues(data, configs, op.metric, sel);
  if (op.minus === undefined)
    return {
      readings: op.metric !== undefined,
      groups: [a],
      keys: [key],
      combine: (s) => s[0]! * mult,
      label: `${stat}(${describeSeries(sel)}${metricLabel})${mult !== 1 ? ` × ${mult}` : ''}`,
    };
  const minusSel = narrow(op.minus, r, data);
  const minusConfigs = select(data, minusSel, op.atMax, verify);
  const b = repeatValues(data, minusConfigs, op.minusMetric ?? op.metric, minusSel);
  const minusLabel = op.minusMetric ? ` [${op.minusMetric}]` : metricLabel;
  return {
    readings: op.metric !== undefined,
    groups: [a, b],
    keys: [key, keyOf(data, minusConfigs)],
    combine: (s) => (s[0]! - s[1]!) * mult,
    label: `(${stat}(${describeSeries(sel)}${metricLabel}) − ${stat}(${describeSeries(minusSel)}${minusLabel}))${mult !== 1 ? ` × ${mult}` : ''}`,
  };
}

/** Names a set of configurations (their positions in the data), so that the same set is resampled once. */
export function keyOf(data: ExperimentData, configs: readonly Config[]): string {
  return configs.map((c) => data.configs.indexOf(c)).join(',');
}

/** Factor from nanoseconds to a published time unit; 1 for units that are not times or already per-ns. */
export function nsTo(unit: string): number {
  switch (unit) {
    case 'us':
      return 1e-3;
    case 'ms':
      return 1e-6;
    case 'us/MB':
      return 1e-3;
    default:
      return 1;
  }
}

/** Distinct values of keys among configurations, as restriction objects (the eachOf / pairBy combinations). */
export function combinations(configs: readonly Config[], keys: readonly string[], data: ExperimentData): Restriction[] {
  const seen = new Map<string, Restriction>();
  for (const c of configs) {
    const r: Record<string, SeriesValue> = {};
    for (const k of keys) {
      const v = c[k];
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new NotMeasurable(`${data.experiment}: configurations have no ${k}`);
      r[k] = v;
    }
    seen.set(JSON.stringify(r), r);
  }
  return [...seen.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b), 'en', { numeric: true }));
}

export function describeRestriction(r: Restriction): string {
  const parts = Object.entries(r).map(([k, v]) => `${k}=${String(v)}`);
  return parts.join(',');
}
