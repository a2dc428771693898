// A run document's configurations grouped over their repeats (by the identity the experiment declares), with
// the vocabulary the reports take from the registry: article, value order, unit, labels.
import { fieldsOf, identityKeys, type RunDocument } from '../document/run.js';
import { keyValueWords } from '../text/words.js';
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

const samplesOf = (c: Record<string, unknown>): number[] => (Array.isArray(c.samplesNs) ? c.samplesNs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)) : []);

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

export const PHASE_METRICS = ['parentVmPteKb', 'childVmPteKb', 'pageTablesKb'] as const;

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
    else parts.push(keyValueWords(k, v));
  }
  return parts.join(' · ');
}

/** Unit of the medians of an experiment, as it declares it (ns per page for cow); µs for an unknown one. */
export const timeUnit = (experiment: string): TimeUnit => findExperiment(experiment)?.unit ?? MICROSECONDS_PER_CALL;
