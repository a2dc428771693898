// The rules of evidence every verdict obeys, in one place. Data that break one make the claims that use them
// not measurable, with a reason that names the rule:
// - timings: every sample above 0 ns (src/stats/evidence.ts, also refused at import); at least MIN_SAMPLES
//   samples per series ("one reading" for a single one); not all identical ("no spread: identical samples");
// - readings of a metric (kB, bytes, counts): at least one per repeat, and a single one overall is "one reading";
// - cells: a value the run's own parameters name (rss 256 MB, thp on) that a claim needs but whose
//   configurations are missing;
// - bounds: "greater" is strict (a tie never passes); a ratio or slope ratio needs two quantities of the same,
//   positive sign.
import type { Series, SeriesValue } from '../reference/published.js';
import { timingProblem } from '../stats/evidence.js';
import type { Outcome, Range } from './bands.js';
import { NotMeasurable, type Config, type ExperimentData } from './data.js';
import { fmtNum } from './format.js';
import { plainSeries } from './plain.js';

/** Fewest timing samples a series needs before an interval on it means anything. */
export const MIN_SAMPLES = 6;

const readings = (n: number) => (n === 1 ? 'one reading' : `${n} readings`);

/**
 * Throws NotMeasurable when a series (repeat by repeat) cannot be judged: `timed` series are timings in ns
 * (samplesNs), the others readings of a metric.
 */
export function checkSeries(data: ExperimentData, repeats: readonly (readonly number[])[], timed: boolean, what: string, perConfig: readonly number[] = []): void {
  const n = repeats.reduce((a, r) => a + r.length, 0);
  const oneEach = perConfig.length > 0 && perConfig.every((k) => k === 1);
  if (n === 1 || (!timed && repeats.length === 1 && oneEach))
    throw new NotMeasurable(
      `${data.experiment} ${what}: one reading${n > 1 ? ' per configuration, in one repeat' : ''}, so nothing shows how much it varies (rerun with more iterations or --repeats)`,
    );
  if (!timed) return;
  for (const r of repeats)
    for (const x of r) {
      const bad = timingProblem(x);
      if (bad) throw new NotMeasurable(`${data.experiment} ${what}: a sample of ${bad}`);
    }
  if (oneEach) throw new NotMeasurable(`${data.experiment} ${what}: one reading per probe, so no probe shows its own spread (rerun with more iterations)`);
  if (n < MIN_SAMPLES) throw new NotMeasurable(`${data.experiment} ${what}: ${readings(n)}, fewer than the ${MIN_SAMPLES} an interval needs`);
  const first = repeats.find((r) => r.length > 0)![0]!;
  if (repeats.every((r) => r.every((x) => x === first)))
    throw new NotMeasurable(`${data.experiment} ${what}: no spread: identical samples (${n} of ${first} ns), which no real clock gives`);
}

/**
 * Timings of one configuration in two repeats (two fresh probe processes) that are the same sample for sample: no
 * real clock gives that (a copy of one repeat's samples into another would). Throws NotMeasurable naming them.
 */
export function checkIdenticalRepeats(data: ExperimentData, configs: readonly Config[], what: string, identity: (c: Config) => string): void {
  const seen = new Map<string, { repeat: unknown; key: string }>();
  for (const c of configs) {
    const s = c['samplesNs'];
    if (!Array.isArray(s) || s.length < 2) continue;
    const key = `${identity(c)}\n${s.join(',')}`;
    const first = seen.get(key);
    if (first && first.repeat !== c['repeat'])
      throw new NotMeasurable(
        `${data.experiment} ${what}: identical repeats: repeat ${String(c['repeat'])}'s ${s.length} samples are repeat ${String(first.repeat)}'s, sample for sample, which no real machine produces (fresh probe processes never time alike to the nanosecond); copied data are not evidence`,
      );
    if (!first) seen.set(key, { repeat: c['repeat'], key });
  }
}

/**
 * The configurations of several runs of one experiment, each run's repeats numbered on after the previous run's:
 * two runs of three probes are six repeats, not three pooled pairwise (what reproduce --settle adds).
 */
export function probesOf(docs: readonly { configurations: Config[] }[]): Config[] {
  if (docs.length <= 1) return docs.flatMap((d) => d.configurations);
  let offset = 0;
  const out: Config[] = [];
  for (const d of docs) {
    let top = 0;
    for (const c of d.configurations) {
      const r = c.repeat;
      top = Math.max(top, r);
      out.push(offset === 0 ? c : { ...c, repeat: r + offset });
    }
    offset += top;
  }
  return out;
}

/** The spread across repeats needs two repeats, each with its own spread. */
export function checkRepeats(data: ExperimentData, repeats: readonly (readonly number[])[], timed: boolean, what: string): void {
  if (repeats.length < 2) throw new NotMeasurable(`${data.experiment} ${what}: a single repeat, and the claim is about how repeats agree (rerun with --repeats 2 or more)`);
  for (const r of repeats) checkSeries(data, [r], timed, `${what}, one repeat`);
}

/** The values of a configuration key that the run's parameters name (rssMb ← rssMb, method ← methods), or null. */
function namedValues(data: ExperimentData, key: string): SeriesValue[] | null {
  let out: SeriesValue[] | null = null;
  for (const p of data.params ?? []) {
    const v = p[key] ?? p[`${key}s`];
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean')) continue;
    out = [...new Set([...(out ?? []), ...(v as SeriesValue[])])];
  }
  return out;
}

/**
 * The values of `key` a selection must have been measured at: those the run's parameters name (when they name
 * the key), else those any configuration of the experiment was measured at.
 */
function expectedValues(data: ExperimentData, key: string, all: readonly Config[] = data.allConfigs ?? data.configs): SeriesValue[] {
  const named = namedValues(data, key);
  if (named) return named;
  const seen = all.map((c) => c[key]).filter((v): v is SeriesValue => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean');
  return [...new Set(seen)];
}

/** Throws NotMeasurable when a selection lacks a value of `key` that the run names (or measured for others). */
export function checkCells(data: ExperimentData, sel: Series, key: string, have: readonly SeriesValue[], describe: (s: Series) => string): void {
  const missing = expectedValues(data, key).filter((v) => !have.includes(v));
  if (missing.length === 0) return;
  const why = namedValues(data, key) !== null ? "the run's parameters name" : 'the run measured for other series';
  throw new NotMeasurable(
    `${data.experiment}: ${describe(sel)} has no successful configuration at ${key} ${missing.map(String).join(', ')}, which ${why}; the claim is not judged on the rest`,
  );
}

/**
 * A selection pools every cell the run's parameters name for the keys it leaves free (posix-spawn over every rss
 * and thp): throws NotMeasurable naming the first named combination none of its configurations has.
 */
export function checkSelection(data: ExperimentData, sel: Series, configs: readonly Config[]): void {
  const all = data.allConfigs ?? data.configs;
  const fixed = Object.keys(sel).filter((k) => all.some((c) => c[k] !== undefined));
  const alongside = (c: Config) => fixed.every((k) => c[k] !== undefined);
  // A named value is expected where the run crosses the key with the selection's keys: a value measured (or
  // attempted) alongside them, or one the run named but never measured at all.
  const expected = (k: string): SeriesValue[] => (namedValues(data, k) ?? []).filter((v) => all.some((c) => c[k] === v && alongside(c)) || !all.some((c) => c[k] === v));
  const free = [...new Set(configs.flatMap((c) => Object.keys(c)))].filter((k) => !(k in sel) && namedValues(data, k) !== null && expected(k).length > 0);
  if (free.length === 0) return;
  const have = new Set(configs.map((c) => JSON.stringify(free.map((k) => c[k]))));
  let combos: SeriesValue[][] = [[]];
  for (const k of free) combos = combos.flatMap((combo) => expected(k).map((v) => [...combo, v]));
  const missing = combos.find((combo) => !have.has(JSON.stringify(combo)));
  if (!missing) return;
  const cell = Object.fromEntries(free.map((k, i) => [k, missing[i]!]));
  const picked = plainSeries(sel);
  const what = picked === 'every configuration' ? '' : `${picked} at `;
  throw new NotMeasurable(
    `this run of ${data.experiment} set out to measure ${what}${plainSeries(cell)} (its parameters name it) but has no successful configuration there; the claim is not judged on the rest`,
  );
}

/** "Greater than": strict. Holds when the whole interval lies above `need`, differs when none of it does (a tie is not greater). */
export function strictlyAbove(iv: Range, need: number): Outcome {
  if (iv.low > need) return 'holds';
  if (iv.high <= need) return 'differs';
  return 'inconclusive';
}

/**
 * A ratio of two quantities means something only when both are above 0: throws NotMeasurable otherwise, naming
 * which, its value in `fmt` (default: a few significant digits) and, where given, what `why` adds (its interval).
 */
export function checkPositive(values: readonly { label: string; value: number; fmt?: (x: number) => string; why?: string }[], what: string): void {
  for (const { label, value, fmt, why } of values)
    if (!(value > 0))
      throw new NotMeasurable(
        `${what}: ${label} is ${value === 0 ? '0' : Number.isFinite(value) ? 'negative' : 'not a number'} (${Number.isFinite(value) ? (fmt ?? fmtNum)(value) : String(value)}${why ? `; ${why}` : ''}), and a ratio of quantities of differing or non-positive sign means nothing`,
      );
}

/** What a ratio combines to in one resample: NaN (no value) unless both are positive. */
export const positiveRatio = (a: number, b: number): number => (a > 0 && b > 0 ? a / b : NaN);
