// What a report shows of a run document: configurations grouped over repeats, the published figures beside
// them, and the vega-lite specifications of every chart (rendered to SVG by svg.ts). No rendering here.
import type { TopLevelSpec } from 'vega-lite';
import { fieldsOf, identityKeys, type RunDocument } from '../document/run.js';
import { findExperiment } from '../experiments/index.js';
import { MICROSECONDS_PER_CALL, type TimeUnit } from '../experiments/types.js';
import { describe } from '../stats/descriptive.js';
import { poolRepeats } from '../stats/pool.js';

export type Cell = string | number | boolean | null;

export interface GroupStats {
  n: number;
  minNs: number;
  medianNs: number;
  meanNs: number;
  ciLowNs: number;
  ciHighNs: number;
}

/** Configurations with the same series and identifying fields, their samples pooled over the repeats. */
export interface Group {
  series: string;
  fields: Record<string, Cell>;
  /** Repeats that measured; failed ones are counted in failedRepeats. */
  repeats: number[];
  failedRepeats: number;
  failures: string[];
  stats: GroupStats | null;
}

/** This machine beside one published figure, both in `unit`. */
export interface PublishedComparison {
  label: string;
  publishedValue: number;
  measuredValue: number;
  unit: string;
  article?: string;
  figureId?: string;
  statistic?: string;
  /** The article's own condition when forklab reproduces it with an equivalent one (e.g. THP default under "always"). */
  note?: string;
}

export interface ClaimVerdict {
  claimId: string;
  statement: string;
  verdict: 'holds' | 'differs' | 'inconclusive' | 'not-measurable';
  detail: string;
}

export interface ChartDef {
  id: string;
  title: string;
  caption: string;
  spec: TopLevelSpec;
}

/** The article an experiment reproduces ("000"...), from the registry; undefined for an unknown experiment. */
export const articleOf = (experiment: string): string | undefined => findExperiment(experiment)?.article;

/** The order tables and charts show a field's values in (series, or an identity field such as thp or method). */
export function orderOf(experiment: string, field: string): readonly string[] {
  const e = findExperiment(experiment);
  if (!e) return [];
  return field === 'series' ? e.series : (e.valueOrder[field] ?? []);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export { fieldsOf };

function statsOf(c: Record<string, unknown>): GroupStats | null {
  const s = c.stats;
  if (!isObj(s)) return null;
  const n = num(s.n);
  const minNs = num(s.minNs);
  const medianNs = num(s.medianNs);
  const meanNs = num(s.meanNs);
  if (n === null || minNs === null || medianNs === null || meanNs === null) return null;
  return { n, minNs, medianNs, meanNs, ciLowNs: num(s.ciLowNs) ?? medianNs, ciHighNs: num(s.ciHighNs) ?? medianNs };
}

const samplesOf = (c: Record<string, unknown>): number[] =>
  Array.isArray(c.samplesNs) ? c.samplesNs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)) : [];

const isOk = (c: Record<string, unknown>) => c.state !== 'failed' && statsOf(c) !== null;

/** Statistics of pooled samples: exact for one repeat (its own stats), pooled by src/stats/pool.ts for several. */
function pooledStats(ok: Record<string, unknown>[]): GroupStats | null {
  if (ok.length === 0) return null;
  if (ok.length === 1) return statsOf(ok[0]!);
  const p = poolRepeats(ok.map(samplesOf), 1);
  if (p === null) return statsOf(ok[0]!);
  return { n: p.n, minNs: p.minNs, medianNs: p.medianNs, meanNs: p.meanNs, ciLowNs: p.ciLowNs, ciHighNs: p.ciHighNs };
}

/**
 * Configurations grouped by series and the given identifying fields (those present), in first-seen order.
 * keys = null: one group per configuration object (unknown experiments: nothing is assumed about their fields).
 */
export function groupConfigurations(doc: RunDocument, keys: readonly string[] | null): Group[] {
  const groups = new Map<string, Record<string, unknown>[]>();
  doc.configurations.forEach((c, i) => {
    const f = fieldsOf(c);
    const id = keys === null ? String(i) : JSON.stringify([c.series, ...keys.map((k) => f[k] ?? null)]);
    groups.set(id, [...(groups.get(id) ?? []), c]);
  });
  return [...groups.values()].map((cs) => {
    const ok = cs.filter(isOk);
    const first = cs[0]!;
    const all = fieldsOf(first);
    const fields = keys === null ? all : Object.fromEntries(keys.filter((k) => k in all).map((k) => [k, all[k]!]));
    return {
      series: String(first.series ?? ''),
      fields,
      repeats: ok.map((c) => num(c.repeat) ?? 0),
      failedRepeats: cs.length - ok.length,
      failures: cs.filter((c) => !isOk(c)).map((c) => String(c.failure ?? 'no statistics')),
      stats: pooledStats(ok),
    };
  });
}

/** Mean, median and minimum of the pooled samples of the measured configurations whose fields equal `where`; null if none. */
export function statsWhere(doc: RunDocument, where: Record<string, Cell>): GroupStats | null {
  const match = doc.configurations.filter((c) => isOk(c) && Object.entries(where).every(([k, v]) => c[k] === v));
  if (match.length === 0) return null;
  const samples = match.flatMap(samplesOf);
  if (samples.length === 0) return statsOf(match[0]!);
  const d = describe(samples);
  return { n: d.n, minNs: d.minNs, medianNs: d.medianNs, meanNs: d.meanNs, ciLowNs: d.medianNs, ciHighNs: d.medianNs };
}

/** Groups of a document by the identity its experiment declares (one per configuration when unknown). */
export function groupsOf(doc: RunDocument): Group[] {
  return groupConfigurations(doc, identityKeys(doc.experiment));
}

export interface PhaseRecord {
  layout: string;
  phase: string;
  parentVmPteKb: number | null;
  childVmPteKb: number | null;
  pageTablesKb: number | null;
}

const PHASE_METRICS = ['parentVmPteKb', 'childVmPteKb', 'pageTablesKb'] as const;

/** Page-table readings by layout and phase: from the configurations first, else from the summary; medians over repeats. */
export function phaseRecords(doc: RunDocument): PhaseRecord[] {
  const looks = (o: unknown): o is Record<string, unknown> => isObj(o) && 'phase' in o && PHASE_METRICS.some((m) => m in o);
  let raw: Record<string, unknown>[] = doc.configurations.filter(looks);
  if (raw.length === 0) {
    const s = doc.summary;
    const arrays = Array.isArray(s) ? [s] : isObj(s) ? Object.values(s).filter(Array.isArray) : [];
    raw = arrays.map((a) => (a as unknown[]).filter(looks)).find((a) => a.length > 0) ?? [];
  }
  const by = new Map<string, Record<string, unknown>[]>();
  for (const r of raw) {
    const id = JSON.stringify([String(r.layout ?? ''), String(r.phase)]);
    by.set(id, [...(by.get(id) ?? []), r]);
  }
  const med = (xs: number[]) => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    const h = (s.length - 1) / 2;
    return (s[Math.floor(h)]! + s[Math.ceil(h)]!) / 2;
  };
  return [...by.values()].map((rs) => ({
    layout: String(rs[0]!.layout ?? ''),
    phase: String(rs[0]!.phase),
    parentVmPteKb: med(rs.map((r) => num(r.parentVmPteKb)).filter((x): x is number => x !== null)),
    childVmPteKb: med(rs.map((r) => num(r.childVmPteKb)).filter((x): x is number => x !== null)),
    pageTablesKb: med(rs.map((r) => num(r.pageTablesKb)).filter((x): x is number => x !== null)),
  }));
}

/** "fork-exec · 64 MB · THP on": the series and its identifying fields, with units. */
export function configLabel(series: string, fields: Record<string, Cell>): string {
  const parts = series === '' ? [] : [series];
  for (const [k, v] of Object.entries(fields)) {
    if (v === series) continue;
    if (k === 'rssMb' || k === 'sizeMb') parts.push(`${v} MB`);
    else if (k === 'thp') parts.push(`THP ${v}`);
    else if (k === 'vmas') parts.push(`${v} VMAs`);
    else if (k === 'thpSystem') parts.push(`system THP ${v}`);
    else parts.push(`${k}=${v}`);
  }
  return parts.join(' · ');
}

// ---------------------------------------------------------------------------------------------- chart specs

const CONFIG = {
  font: 'sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12 },
  header: { labelFontSize: 12, titleFontSize: 12 },
  view: { stroke: '#cccccc' },
};

/** A chart of `values` (none: no chart), its vega-lite specification titled like the figure. */
function chart(id: string, title: string, caption: string, values: Record<string, unknown>[], body: Record<string, unknown>): ChartDef | null {
  if (values.length === 0) return null;
  return { id, title, caption, spec: { title, background: 'white', config: CONFIG, data: { values }, ...body } as TopLevelSpec };
}

const byThp = (values: Record<string, unknown>[], experiment: string) => ({
  column: { field: 'thp', type: 'nominal', title: 'THP', sort: present(values, 'thp', orderOf(experiment, 'thp')) },
});

const present = (values: Record<string, unknown>[], field: string, order: readonly string[] = []) => {
  const seen = [...new Set(values.map((v) => String(v[field])))];
  return [...order.filter((x) => seen.includes(x)), ...seen.filter((x) => !order.includes(x))];
};

/** Point, line and 95 % interval rule layers over x; y, ciLow and ciHigh fields in the plotted unit. */
function pointsWithCi(x: Record<string, unknown>, y: Record<string, unknown>, color: Record<string, unknown>, line: boolean, extra: Record<string, unknown> = {}) {
  return [
    { mark: line ? { type: 'line', point: { filled: true, size: 50 } } : { type: 'point', filled: true, size: 60 }, encoding: { x, y, color, ...extra } },
    { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { ...y, field: 'ciLow' }, y2: { field: 'ciHigh' }, color, ...extra } },
  ];
}

interface TimeValue extends Record<string, unknown> {
  series: string;
  label: string;
  median: number;
  min: number;
  ciLow: number;
  ciHigh: number;
}

const timeValues = (groups: Group[], perNs: number): TimeValue[] =>
  groups
    .filter((g) => g.stats !== null && g.stats.medianNs > 0)
    .map((g) => ({
      series: g.series,
      ...g.fields,
      label: configLabel(g.series, g.fields),
      median: g.stats!.medianNs / perNs,
      min: g.stats!.minNs / perNs,
      ciLow: Math.max(g.stats!.ciLowNs, g.stats!.medianNs / 1e3) / perNs,
      ciHigh: g.stats!.ciHighNs / perNs,
    }));

/** A log y scale fitted to the data (not widened to whole decades), with some room above and below. */
const LOG_Y = { type: 'log', nice: false, padding: 12 };

/** Log when the medians span more than 20×, else linear without zero. */
const autoScale = (vs: { median: number }[]) => {
  const m = vs.map((v) => v.median);
  return m.length && Math.max(...m) / Math.min(...m) > 20 ? LOG_Y : { type: 'linear', zero: false, padding: 12 };
};

function spawnChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000);
  const rss = [...new Set(values.map((v) => Number(v.rssMb)))].sort((a, b) => a - b);
  const x = { field: 'rssMb', type: 'quantitative', scale: { type: 'symlog', constant: 1 }, axis: { values: rss }, title: 'parent RSS (MB, symlog scale)' };
  const y = { field: 'median', type: 'quantitative', scale: LOG_Y, title: 'median µs per spawn+wait' };
  const color = { field: 'method', type: 'nominal', scale: { domain: present(values, 'method', orderOf('spawn', 'method')) }, title: 'method' };
  return chart('spawn-latency', 'Spawn latency against parent RSS',
    'Median µs per spawn+wait (log scale) with its 95 % interval, against parent RSS on a symlog scale (linear near 0, so 0 MB is plotted), one panel per THP mode.',
    values, { facet: byThp(values, 'spawn'), spec: { width: 260, height: 220, layer: pointsWithCi(x, y, color, true) } });
}

function cowChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1);
  const x = { field: 'series', type: 'ordinal', sort: present(values, 'series', orderOf('cow', 'series')), title: 'pass', axis: { labelAngle: -30 } };
  const y = { field: 'median', type: 'quantitative', scale: LOG_Y, title: 'median ns per page' };
  const layer = pointsWithCi(x, y, { field: 'sizeMb', type: 'nominal', title: 'region MB' }, false, { xOffset: { field: 'sizeMb', type: 'nominal' } });
  return chart('cow-passes', 'Copy-on-write: ns per page by pass',
    'Median ns per page for each pass (log scale) with its 95 % interval, one panel per THP mode.',
    values, { facet: byThp(values, 'cow'), spec: { width: 220, height: 220, layer } });
}

function createChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000).flatMap((v) => [
    { series: v.series, statistic: 'median', us: v.median },
    { series: v.series, statistic: 'min', us: v.min },
  ]);
  return chart('create-thread-vs-process', 'Thread against process creation',
    'Median and minimum µs to create and join a thread, and to fork and reap a process.', values, {
      width: 320, height: 220, mark: { type: 'bar' },
      encoding: {
        x: { field: 'series', type: 'nominal', sort: present(values, 'series', orderOf('create', 'series')), title: null, axis: { labelAngle: 0 } },
        xOffset: { field: 'statistic', type: 'nominal', sort: ['min', 'median'] },
        y: { field: 'us', type: 'quantitative', title: 'µs' },
        color: { field: 'statistic', type: 'nominal', sort: ['min', 'median'], title: 'statistic' },
      },
    });
}

function execChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000);
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series', orderOf('exec', 'series')), title: null, axis: { labelAngle: 0 } };
  return chart('exec-static-dynamic', 'Static against dynamic exec',
    'Median µs of fork+_exit, and of fork+exec of a static and of a dynamic target, with 95 % intervals.', values, {
      width: 320, height: 220,
      layer: [
        { mark: { type: 'bar' }, encoding: { x, y: { field: 'median', type: 'quantitative', title: 'median µs' }, color: { field: 'series', type: 'nominal', legend: null } } },
        { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'ciLow', type: 'quantitative' }, y2: { field: 'ciHigh' } } },
      ],
    });
}

function pagetablesChart(doc: RunDocument): ChartDef | null {
  const values = phaseRecords(doc).flatMap((r) =>
    PHASE_METRICS.filter((m) => r[m] !== null).map((m) => ({ layout: r.layout, phase: r.phase, metric: m, kB: r[m] })),
  );
  return chart('pagetables-phases', 'Page-table memory by phase',
    'Page-table memory in kB by phase: VmPTE of parent and child, and PageTables of /proc/meminfo, one panel per layout.', values, {
      facet: { column: { field: 'layout', type: 'nominal', title: 'layout', sort: present(values, 'layout') } },
      spec: {
        width: 260, height: 220, mark: { type: 'bar' },
        encoding: {
          x: { field: 'phase', type: 'nominal', sort: present(values, 'phase'), title: 'phase', axis: { labelAngle: -30 } },
          xOffset: { field: 'metric', type: 'nominal', sort: [...PHASE_METRICS] },
          y: { field: 'kB', type: 'quantitative', title: 'kB' },
          color: { field: 'metric', type: 'nominal', sort: [...PHASE_METRICS], title: 'reading' },
        },
      },
    });
}

function vmaChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000).filter((v) => Number(v.vmas) > 0);
  const x = { field: 'vmas', type: 'quantitative', scale: { type: 'log' }, title: 'VMAs in the parent (log scale)' };
  const y = { field: 'median', type: 'quantitative', scale: LOG_Y, title: 'median µs' };
  const color = { field: 'method', type: 'nominal', scale: { domain: present(values, 'method', orderOf('vma', 'method')) }, title: 'method' };
  return chart('vma-fork', 'Fork time against VMA count',
    'Median µs per spawn (log scale) with its 95 % interval, against the number of mappings in the parent (log scale).',
    values, { width: 360, height: 240, layer: pointsWithCi(x, y, color, true) });
}

function genericChart(doc: RunDocument, groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000);
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series'), title: 'series', axis: { labelAngle: -30 } };
  const y = { field: 'median', type: 'quantitative', scale: autoScale(values), title: 'median µs' };
  const layer = pointsWithCi(x, y, { field: 'series', type: 'nominal', legend: null }, false, { tooltip: { field: 'label' } });
  return chart(`${doc.experiment}-medians`, `${doc.experiment}: medians per series`,
    'The median µs of every configuration with its 95 % interval, by series (one point per configuration).',
    values, { width: { step: 60 }, height: 220, layer });
}

/** The charts of one run, by experiment; unknown experiments get a chart of medians per series. */
export function chartsFor(doc: RunDocument): ChartDef[] {
  const groups = groupsOf(doc);
  const charts: (ChartDef | null)[] = (() => {
    switch (doc.experiment) {
      case 'spawn': return [spawnChart(groups)];
      case 'cow': return [cowChart(groups)];
      case 'create': return [createChart(groups)];
      case 'exec': return [execChart(groups)];
      case 'pagetables': return [pagetablesChart(doc)];
      case 'vma': return [vmaChart(groups)];
      case 'deadlock': return [];
      default: return [genericChart(doc, groups)];
    }
  })();
  return charts.filter((c): c is ChartDef => c !== null);
}

/** Unit of the medians of an experiment, as it declares it (ns per page for cow); µs for an unknown one. */
export const timeUnit = (experiment: string): TimeUnit => findExperiment(experiment)?.unit ?? MICROSECONDS_PER_CALL;

/** Both runs' medians per configuration in one chart, the run as colour. */
export function compareChart(a: RunDocument, b: RunDocument, labels: [string, string]): ChartDef | null {
  const unit = timeUnit(a.experiment);
  const values = [
    ...timeValues(groupsOf(a), unit.perNs).map((v) => ({ ...v, run: labels[0] })),
    ...timeValues(groupsOf(b), unit.perNs).map((v) => ({ ...v, run: labels[1] })),
  ];
  const x = { field: 'label', type: 'nominal', sort: present(values, 'label'), title: 'configuration', axis: { labelAngle: -40, labelLimit: 0 } };
  const y = { field: 'median', type: 'quantitative', scale: autoScale(values), title: `median ${unit.label}` };
  const color = { field: 'run', type: 'nominal', scale: { domain: labels }, title: 'run' };
  const layer = pointsWithCi(x, y, color, false, { xOffset: { field: 'run', type: 'nominal', scale: { domain: labels } } });
  return chart('compare-runs', 'Both runs, configuration by configuration',
    `Median ${unit.label} of every configuration in both runs, with 95 % intervals.`, values, { width: { step: 36 }, height: 240, layer });
}

/** This machine beside the published figures: one chart per unit, the source as colour. */
export function publishedCharts(comparisons: readonly PublishedComparison[]): ChartDef[] {
  const units = [...new Set(comparisons.map((c) => c.unit))];
  return units.flatMap((unit, i) => {
    const values = comparisons.filter((c) => c.unit === unit).flatMap((c) => [
      { label: c.label, source: c.article ? `article ${c.article}` : 'published', value: c.publishedValue },
      { label: c.label, source: 'this machine', value: c.measuredValue },
    ]).filter((v) => v.value > 0);
    const u = unit.replace(/^us\b/, 'µs');
    const source = { field: 'source', type: 'nominal', scale: { domain: present(values, 'source') } };
    const c = chart(`published-${i}`, `This machine beside the published figures (${u})`,
      `Each published figure and the same statistic measured here, in ${u} (log scale).`, values, {
        width: { step: 34 }, height: 240, mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: { field: 'label', type: 'nominal', sort: present(values, 'label'), title: null, axis: { labelAngle: -40, labelLimit: 0 } },
          xOffset: source,
          y: { field: 'value', type: 'quantitative', scale: LOG_Y, title: u },
          color: { ...source, title: null },
          shape: { ...source, title: null },
        },
      });
    return c ? [c] : [];
  });
}
