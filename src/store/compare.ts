// Comparing two runs figure by figure (pure: documents in, a Comparison out). This file matches
// configurations by what was chosen (series and the identity its experiment declares: src/document/groups.ts) and keeps each one's repeats apart; the
// statistics (pooled medians, intervals, the test and VERDICT_RULE: a difference is marked only when it is both
// statistically clear and large enough to matter, docs/history.md) are src/stats/compare.ts's.
import { compareSeries, VERDICT_RULE, type ComparisonVerdict } from '../stats/compare.js';
import { keyValueWords } from '../text/words.js';
import { poolRepeats } from '../stats/pool.js';
import type { RunDocument } from '../document/run.js';
import { groupConfigurations } from '../document/groups.js';
import type { Scalar } from '../experiments/contract/types.js';

export type Verdict = ComparisonVerdict;

/** One configuration of a run, its repeats pooled. */
export interface ConfigGroup {
  key: string;
  /** e.g. "fork-exec rssMb=512 thp=off" (fields equal to the series name left out). */
  label: string;
  series: string;
  identity: Record<string, Scalar>;
  /** Raw samples of the repeats that succeeded, pooled, in ns (none for a configuration of fields only). */
  samplesNs: number[];
  /** The same samples, repeat by repeat (what the hierarchical bootstrap resamples). */
  repeatsNs: number[][];
  okRepeats: number;
  failedRepeats: number;
}

export interface SideFigure {
  n: number;
  repeats: number;
  medianNs: number;
}

export interface FigureComparison {
  key: string;
  label: string;
  series: string;
  identity: Record<string, Scalar>;
  a: SideFigure;
  b: SideFigure;
  /** median(B) / median(A); null when A's median is 0. */
  ratio: number | null;
  /** Percentile-bootstrap interval of the ratio; null when some sample of A is 0 (no ratio can be resampled). */
  ratioLow: number | null;
  ratioHigh: number | null;
  /** Two-sided Mann–Whitney U p-value on the pooled raw samples. */
  pValue: number;
  /** What B is relative to A: 'slower' = B takes longer. */
  verdict: Verdict;
}

export interface RunRef {
  runId: string | null;
  experiment: string;
  startedAt: string;
  hostname: string;
}

export interface Difference {
  name: string;
  a: unknown;
  b: unknown;
}

export interface Comparison {
  a: RunRef;
  b: RunRef;
  experimentsDiffer: boolean;
  /** Machine record fields that differ (hostname, kernel, cpuModel, cpuCount, thpEnabled, pinnedCpu). */
  machineDifferences: Difference[];
  paramDifferences: Difference[];
  figures: FigureComparison[];
  onlyInA: string[];
  onlyInB: string[];
  /** The configurations one run alone measured, as onlyInA and onlyInB name them, with their series and identity. */
  onlyIn: { side: 'A' | 'B'; label: string; series: string; identity: Record<string, Scalar> }[];
  /** Configurations in both runs without a successful sample on one side (or both). */
  noSamples: { label: string; side: 'A' | 'B' | 'both' }[];
  rule: typeof VERDICT_RULE;
}

const COMPARED_MACHINE_FIELDS = ['hostname', 'kernel', 'cpuModel', 'cpuCount', 'thpEnabled', 'pinnedCpu'] as const;

/** "fork-exec (rss 512 MB, thp off)": the series and its identity in words, as a reader says them. */
function identityGroupLabel(series: string, identity: Record<string, Scalar>): string {
  const parts = Object.entries(identity)
    .filter(([, v]) => v !== series)
    .map(([k, v]) => keyValueWords(k, v === null ? 'none' : v));
  return parts.length ? `${series} (${parts.join(', ')})` : series;
}

/** A document's configurations grouped by identity (as compare and show match them, src/document/groups.ts), repeats pooled; sorted by label, numbers by value. */
export function identityGroups(doc: RunDocument): ConfigGroup[] {
  const groups = groupConfigurations(doc).map(({ key, series, identity, configurations }): ConfigGroup => {
    const ok = configurations.filter((c) => c.state === 'ok');
    return {
      key,
      label: identityGroupLabel(series, identity),
      series,
      identity,
      samplesNs: ok.flatMap((c) => c.samplesNs),
      repeatsNs: ok.filter((c) => c.samplesNs.length > 0).map((c) => [...c.samplesNs]),
      okRepeats: ok.length,
      failedRepeats: configurations.length - ok.length,
    };
  });
  return groups.sort((x, y) => x.label.localeCompare(y.label, 'en', { numeric: true }));
}

/** The pooled median of a group with its hierarchical bootstrap interval (for `forklab show`). */
export function groupMedian(g: ConfigGroup, seed = 1): { medianNs: number; ciLowNs: number; ciHighNs: number } | null {
  const p = poolRepeats(g.repeatsNs, seed, VERDICT_RULE.confidence);
  return p === null ? null : { medianNs: p.medianNs, ciLowNs: p.ciLowNs, ciHighNs: p.ciHighNs };
}

function figure(ga: ConfigGroup, gb: ConfigGroup, seed: number): FigureComparison {
  const s = compareSeries(ga.repeatsNs, gb.repeatsNs, seed);
  return {
    key: ga.key,
    label: ga.label,
    series: ga.series,
    identity: ga.identity,
    a: { n: ga.samplesNs.length, repeats: ga.okRepeats, medianNs: s.medianANs },
    b: { n: gb.samplesNs.length, repeats: gb.okRepeats, medianNs: s.medianBNs },
    ratio: s.ratio,
    ratioLow: s.ratioLow,
    ratioHigh: s.ratioHigh,
    pValue: s.pValue,
    verdict: s.verdict,
  };
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

function ref(d: RunDocument): RunRef {
  return { runId: d.runId, experiment: d.experiment, startedAt: d.startedAt, hostname: d.machine.hostname };
}

/** Compares run B against run A. Seeded: the same documents give the same intervals. */
export function compareRuns(a: RunDocument, b: RunDocument, opts: { seed?: number } = {}): Comparison {
  const seed = opts.seed ?? 1;
  const ga = identityGroups(a);
  const gb = new Map(identityGroups(b).map((g) => [g.key, g]));
  const figures: FigureComparison[] = [];
  const noSamples: Comparison['noSamples'] = [];
  const onlyIn: Comparison['onlyIn'] = [];
  const one = (side: 'A' | 'B', g: ConfigGroup) => onlyIn.push({ side, label: g.label, series: g.series, identity: g.identity });
  for (const x of ga) {
    const y = gb.get(x.key);
    if (!y) {
      one('A', x);
      continue;
    }
    const emptyA = x.samplesNs.length === 0;
    const emptyB = y.samplesNs.length === 0;
    if (!emptyA && !emptyB) figures.push(figure(x, y, seed));
    else if (emptyA && emptyB && x.failedRepeats + y.failedRepeats === 0)
      continue; // fields only, no figure
    else noSamples.push({ label: x.label, side: emptyA && emptyB ? 'both' : emptyA ? 'A' : 'B' });
  }
  const keysA = new Set(ga.map((g) => g.key));
  for (const g of gb.values()) if (!keysA.has(g.key)) one('B', g);

  const machineDifferences: Difference[] = [];
  for (const f of COMPARED_MACHINE_FIELDS) if (!same(a.machine[f], b.machine[f])) machineDifferences.push({ name: f, a: a.machine[f], b: b.machine[f] });
  const paramDifferences: Difference[] = [];
  for (const k of new Set([...Object.keys(a.params), ...Object.keys(b.params)]))
    if (!same(a.params[k], b.params[k])) paramDifferences.push({ name: k, a: a.params[k], b: b.params[k] });

  return {
    a: ref(a),
    b: ref(b),
    experimentsDiffer: a.experiment !== b.experiment,
    machineDifferences,
    paramDifferences,
    figures,
    onlyInA: onlyIn.filter((o) => o.side === 'A').map((o) => o.label),
    onlyInB: onlyIn.filter((o) => o.side === 'B').map((o) => o.label),
    onlyIn,
    noSamples,
    rule: VERDICT_RULE,
  };
}
