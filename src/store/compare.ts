// Comparing two runs figure by figure (pure: documents in, a Comparison out). Configurations are matched
// by what was chosen (series and identifying fields), their repeats pooled; a difference is marked only
// when it is both statistically clear and large enough to matter (VERDICT_RULE, docs/history.md).
import { bootstrapMedianCi, bootstrapRatioCi } from '../stats/bootstrap.js';
import { median } from '../stats/descriptive.js';
import { mannWhitneyU } from '../stats/mannwhitney.js';
import type { RunDocument } from '../report/document.js';
import type { Scalar } from '../experiments/types.js';
import { CONFIGURATION_KEYS } from './validate.js';

/**
 * Fields that are measured or reported rather than chosen: they do not identify a configuration. An
 * experiment that writes a new such field must add it here (any field ending in "Pid" counts too).
 */
export const MEASURED_FIELDS: ReadonlySet<string> = new Set([
  // spawn, cow: what the kernel gave; adaptive plans: why sampling stopped
  'hugePagesKb',
  'stopReason',
  // deadlock: what the child did
  'childAcquired',
  'childHung',
  'childKilled',
  'childReported',
  'childResult',
  'childWaitNs',
  'forkWaitNs',
  // vma: what /proc/self/maps and /proc/meminfo showed
  'vmasInRegion',
  'slabGrowthKb',
  'sUnreclaimGrowthKb',
  'slabBuildKb',
  'slabBeforeKb',
  'slabBeforeForkKb',
  'slabAfterForkKb',
  'slabAfterReapKb',
  // pagetables: page-table sizes read from /proc
  'parentVmPteKb',
  'childVmPteKb',
  'pageTablesKb',
  'settleMs',
  'mappingsInRange',
  'builtVmPteKb',
  // exec: size of the target binary (changes with the build); create: glibc's default thread stack
  'fileBytes',
  'threadStackKb',
]);

export function isMeasuredField(name: string): boolean {
  return MEASURED_FIELDS.has(name) || /Pid$/.test(name);
}

/**
 * When a difference is marked: two-sided Mann–Whitney p below maxP, the bootstrap interval of the ratio of
 * medians (at `confidence`) excluding 1, and the ratio at least minEffect away from 1.
 */
export const VERDICT_RULE = { maxP: 0.01, confidence: 0.95, minEffect: 0.05 } as const;

export type Verdict = 'faster' | 'slower' | 'same';

/** One configuration of a run, its repeats pooled. */
export interface ConfigGroup {
  key: string;
  /** e.g. "fork-exec rssMb=512 thp=off" (fields equal to the series name left out). */
  label: string;
  series: string;
  identity: Record<string, Scalar>;
  /** Raw samples of the repeats that succeeded, pooled, in ns (none for a configuration of fields only). */
  samplesNs: number[];
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
  /** Configurations in both runs without a successful sample on one side (or both). */
  noSamples: { label: string; side: 'A' | 'B' | 'both' }[];
  rule: typeof VERDICT_RULE;
}

export const COMPARED_MACHINE_FIELDS = ['hostname', 'kernel', 'cpuModel', 'cpuCount', 'thpEnabled', 'pinnedCpu'] as const;

function labelOf(series: string, identity: Record<string, Scalar>): string {
  const parts = Object.entries(identity)
    .filter(([, v]) => v !== series)
    .map(([k, v]) => `${k}=${v === null ? 'null' : String(v)}`);
  return [series, ...parts].join(' ');
}

/** Groups a document's configurations by identity, pooling repeats; sorted by label, numbers by value. */
export function groupConfigurations(doc: RunDocument): ConfigGroup[] {
  const groups = new Map<string, ConfigGroup>();
  for (const c of doc.configurations) {
    const series = String(c.series);
    const identity: Record<string, Scalar> = {};
    for (const [k, v] of Object.entries(c)) {
      if ((CONFIGURATION_KEYS as readonly string[]).includes(k) || isMeasuredField(k)) continue;
      identity[k] = v as Scalar;
    }
    const key = JSON.stringify([series, Object.entries(identity).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))]);
    let g = groups.get(key);
    if (!g) {
      g = { key, label: labelOf(series, identity), series, identity, samplesNs: [], okRepeats: 0, failedRepeats: 0 };
      groups.set(key, g);
    }
    if (c.state === 'ok') {
      g.okRepeats++;
      for (const x of c.samplesNs as number[]) g.samplesNs.push(x);
    } else g.failedRepeats++;
  }
  return [...groups.values()].sort((x, y) => x.label.localeCompare(y.label, 'en', { numeric: true }));
}

/** The pooled median of a group with its bootstrap interval (for `forklab show`). */
export function groupMedian(g: ConfigGroup, seed = 1): { medianNs: number; ciLowNs: number; ciHighNs: number } | null {
  if (g.samplesNs.length === 0) return null;
  const ci = bootstrapMedianCi(g.samplesNs, { seed, confidence: VERDICT_RULE.confidence });
  return { medianNs: median(g.samplesNs), ciLowNs: ci.lowNs, ciHighNs: ci.highNs };
}

/** The verdict for B relative to A, by VERDICT_RULE. */
export function verdictOf(ratio: number | null, low: number | null, high: number | null, pValue: number): Verdict {
  if (ratio === null || low === null || high === null) return 'same';
  const clear = pValue < VERDICT_RULE.maxP && (low > 1 || high < 1);
  if (!clear || Math.abs(ratio - 1) < VERDICT_RULE.minEffect) return 'same';
  return ratio > 1 ? 'slower' : 'faster';
}

function figure(ga: ConfigGroup, gb: ConfigGroup, seed: number): FigureComparison {
  const a = ga.samplesNs;
  const b = gb.samplesNs;
  const ma = median(a);
  const mb = median(b);
  const ratio = ma > 0 ? mb / ma : null;
  let low: number | null = null;
  let high: number | null = null;
  if (ratio !== null && a.every((x) => x > 0)) {
    const ci = bootstrapRatioCi(b, a, { seed, confidence: VERDICT_RULE.confidence });
    low = ci.low;
    high = ci.high;
  }
  const pValue = mannWhitneyU(a, b).pValue;
  return {
    key: ga.key,
    label: ga.label,
    series: ga.series,
    identity: ga.identity,
    a: { n: a.length, repeats: ga.okRepeats, medianNs: ma },
    b: { n: b.length, repeats: gb.okRepeats, medianNs: mb },
    ratio,
    ratioLow: low,
    ratioHigh: high,
    pValue,
    verdict: verdictOf(ratio, low, high, pValue),
  };
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

function ref(d: RunDocument): RunRef {
  return { runId: d.runId, experiment: d.experiment, startedAt: d.startedAt, hostname: d.machine.hostname };
}

/** Compares run B against run A. Seeded: the same documents give the same intervals. */
export function compareRuns(a: RunDocument, b: RunDocument, opts: { seed?: number } = {}): Comparison {
  const seed = opts.seed ?? 1;
  const ga = groupConfigurations(a);
  const gb = new Map(groupConfigurations(b).map((g) => [g.key, g]));
  const figures: FigureComparison[] = [];
  const noSamples: Comparison['noSamples'] = [];
  const onlyInA: string[] = [];
  for (const x of ga) {
    const y = gb.get(x.key);
    if (!y) {
      onlyInA.push(x.label);
      continue;
    }
    const emptyA = x.samplesNs.length === 0;
    const emptyB = y.samplesNs.length === 0;
    if (!emptyA && !emptyB) figures.push(figure(x, y, seed));
    else if (emptyA && emptyB && x.failedRepeats + y.failedRepeats === 0) continue; // fields only, no figure
    else noSamples.push({ label: x.label, side: emptyA && emptyB ? 'both' : emptyA ? 'A' : 'B' });
  }
  const keysA = new Set(ga.map((g) => g.key));
  const onlyInB = [...gb.values()].filter((g) => !keysA.has(g.key)).map((g) => g.label);

  const machineDifferences: Difference[] = [];
  for (const f of COMPARED_MACHINE_FIELDS)
    if (!same(a.machine[f], b.machine[f])) machineDifferences.push({ name: f, a: a.machine[f], b: b.machine[f] });
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
    onlyInA,
    onlyInB,
    noSamples,
    rule: VERDICT_RULE,
  };
}
