// From a probe's result to Measurements with their statistics: shared by every experiment.
import { describe } from '../../stats/descriptive.js';
import { bootstrapMedianCi } from '../../stats/bootstrap.js';
import { poolRepeats } from '../../stats/pool.js';
import { linearFit, type LinearFit } from '../../stats/regression.js';
import { describeFailure, type ProbeResult } from '../../runner/probe.js';
import type { ExperimentRun, FieldValues, Fields, Measurement, Scalar, SeriesStats, Warning } from '../contract/types.js';
import type { FieldsSpec } from '../contract/fields.js';

/** A number a probe reported in its info (or a measurement holds there), or null where it is absent or not a number. */
export function infoNumber(info: Readonly<Record<string, unknown>>, key: string): number | null {
  const v = info[key];
  return typeof v === 'number' ? v : null;
}

export function seriesStats(samplesNs: readonly number[], seed: number): SeriesStats | null {
  if (samplesNs.length === 0) return null;
  const ci = bootstrapMedianCi(samplesNs, { seed });
  return { ...describe(samplesNs), ciLowNs: ci.lowNs, ciHighNs: ci.highNs, ciConfidence: ci.confidence };
}

/** A value of a declared type with no key the declaration lacks (an object passed in, not only one written there). */
export type Exactly<T, Declared> = T & { [K in Exclude<keyof T, KeysOf<Declared>>]: never };
type KeysOf<T> = T extends unknown ? keyof T : never;

/** The fields that have a value (an optional field left undefined is not written). */
function written(fields: FieldValues): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * One Measurement per series the probe reported, with the fields its experiment's spec declares (its
 * configuration.ts): a field the spec does not declare, or of another type, does not compile. A failed probe yields
 * one failed Measurement per expected series, so the document shows what is missing and why.
 */
export function measurementsFrom<I extends FieldValues, O extends FieldValues, WI extends I, WO extends O>(
  _spec: FieldsSpec<I, O>,
  result: ProbeResult,
  identityFields: Exactly<WI, I>,
  observedFields: Exactly<WO, O>,
  repeat: number,
  expectedSeries: readonly string[],
  seed: number,
): Measurement[] {
  return measured(result, written(identityFields), written(observedFields), repeat, expectedSeries, seed);
}

/** Measurements of one probe result: one per series, each with its own fields as the spec declares them (a failed probe gives failed ones). */
export function measurementsPerSeries<I extends FieldValues, O extends FieldValues>(
  _spec: FieldsSpec<I, O>,
  result: ProbeResult,
  fieldsOf: NoInfer<Readonly<Record<string, Fields<I, O>>>>,
  repeat: number,
  seed: number,
): Measurement[] {
  return Object.entries(fieldsOf).flatMap(([name, f]) =>
    measured({ ...result, series: result.series.filter((s) => s.series === name) }, written(f.identity), written(f.observed), repeat, [name], seed),
  );
}

function measured(
  result: ProbeResult,
  identity: Record<string, Scalar>,
  observed: Record<string, Scalar>,
  repeat: number,
  expectedSeries: readonly string[],
  seed: number,
): Measurement[] {
  const failure = result.state === 'failed' ? describeFailure(result.reason) : null;
  const names = new Set<string>([...expectedSeries, ...result.series.map((s) => s.series)]);
  const out: Measurement[] = [];
  for (const name of names) {
    const s = result.series.find((x) => x.series === name);
    const ok = result.state === 'ok' && s !== undefined && s.samplesNs.length > 0;
    out.push({
      series: name,
      identity,
      observed,
      repeat,
      state: ok ? 'ok' : 'failed',
      failure: ok ? null : (failure ?? 'the probe reported no samples for this series'),
      info: result.info,
      samplesNs: ok ? s.samplesNs : [],
      columns: ok ? s.columns : {},
      stats: ok ? seriesStats(s.samplesNs, seed) : null,
    });
  }
  return out;
}

/** All samples of the ok measurements matching a predicate, pooled. */
export function pooled(ms: readonly Measurement[], pred: (m: Measurement) => boolean): number[] {
  const out: number[] = [];
  for (const m of ms) if (m.state === 'ok' && pred(m)) out.push(...m.samplesNs);
  return out;
}

/** The samples of the ok measurements matching a predicate, repeat by repeat (in repeat order). */
export function repeatsOf(ms: readonly Measurement[], pred: (m: Measurement) => boolean): number[][] {
  return ms
    .filter((m) => m.state === 'ok' && pred(m) && m.samplesNs.length > 0)
    .sort((a, b) => a.repeat - b.repeat)
    .map((m) => m.samplesNs);
}

/** A series' statistics over the ok measurements matching a predicate, their repeats pooled: the one pooling rule (src/stats/pool.ts). */
export function pooledSeriesStats(ms: readonly Measurement[], pred: (m: Measurement) => boolean, seed: number): SeriesStats | null {
  const p = poolRepeats(repeatsOf(ms, pred), seed);
  return p === null ? null : { ...p, ciConfidence: p.ciConfidence };
}

/** A configuration's figure pooled over its ok repeats: what cow's passes and vma's cells share. */
export interface CellFigure {
  n: number;
  /** Median over every sample of every repeat, with its bootstrap 95 % interval. */
  medianNs: number;
  ciLowNs: number;
  ciHighNs: number;
  cv: number;
  /** Each repeat's own median, in repeat order of `ok`. */
  repeatMediansNs: number[];
}

/** The pooled figure of these ok measurements (those with stats); null when none has samples. */
export function cellFigure(ok: readonly Measurement[], seed: number): CellFigure | null {
  const st = pooledSeriesStats(ok, () => true, seed);
  if (!st) return null;
  return { n: st.n, medianNs: st.medianNs, ciLowNs: st.ciLowNs, ciHighNs: st.ciHighNs, cv: st.cv, repeatMediansNs: ok.map((m) => m.stats!.medianNs) };
}

/**
 * The least-squares line through every repeat's median of the cells, against the cell's x (spawn: RSS, vma: VMA
 * count), the medians divided by `perUnitNs` (1000: µs).
 */
export function fitOverRepeats<C extends { repeatMediansNs: readonly number[] }>(cells: readonly C[], x: (c: C) => number, perUnitNs = 1): LinearFit {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const c of cells)
    for (const y of c.repeatMediansNs) {
      xs.push(x(c));
      ys.push(y / perUnitNs);
    }
  return linearFit(xs, ys);
}

/**
 * The last step of every experiment's run(): the run with the warnings its experiment reads off the finished run
 * (its summary, its measurements); the keys in the order a run always had them.
 */
export function finishRun<S, P>(parts: Omit<ExperimentRun<S, P>, 'warnings'>, warningsOf: (run: ExperimentRun<S, P>) => Warning[]): ExperimentRun<S, P> {
  const run: ExperimentRun<S, P> = {
    experiment: parts.experiment,
    params: parts.params,
    measurements: parts.measurements,
    summary: parts.summary,
    warnings: [],
    complete: parts.complete,
  };
  run.warnings = warningsOf(run);
  return run;
}
