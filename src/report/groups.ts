// A run document's configurations grouped over their repeats (src/document/groups.ts), their samples pooled, with
// the vocabulary the reports take from the registry: article, value order, unit, labels.
import { fieldsOf, identityKeys, type RunDocument } from '../document/run.js';
import { groupConfigurations, type ConfigurationGroup } from '../document/groups.js';
import { keyValueWords } from '../text/words.js';
import { findExperiment } from '../experiments/index.js';
import { MICROSECONDS_PER_CALL, type Configuration, type Scalar, type TimeUnit } from '../experiments/contract/types.js';
import type { ReadingsChartSpec } from '../experiments/contract/chart.js';
import { median } from '../stats/descriptive.js';
import { poolRepeats } from '../stats/pool.js';

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
  fields: Record<string, Scalar>;
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

function statsOf(c: Configuration): GroupStats | null {
  const s = c.stats;
  if (s === null) return null;
  const { n, minNs, medianNs, meanNs } = s;
  return { n, minNs, medianNs, meanNs, ciLowNs: s.ciLowNs ?? medianNs, ciHighNs: s.ciHighNs ?? medianNs };
}

const isOk = (c: Configuration) => c.state !== 'failed' && c.stats !== null;

/** The statistics a group shows: one repeat's own stored statistics, several repeats' samples pooled by src/stats/pool.ts. */
function groupStatsOf(ok: Configuration[]): GroupStats | null {
  if (ok.length === 0) return null;
  if (ok.length === 1) return statsOf(ok[0]!);
  const p = poolRepeats(
    ok.map((c) => c.samplesNs),
    1,
  );
  if (p === null) return statsOf(ok[0]!);
  return { n: p.n, minNs: p.minNs, medianNs: p.medianNs, meanNs: p.meanNs, ciLowNs: p.ciLowNs, ciHighNs: p.ciHighNs };
}

/**
 * A group of configurations (src/document/groups.ts) with its samples pooled over its ok repeats. keys: the
 * identifying fields it shows (those present); null: every field of its first configuration.
 */
function groupOf(g: ConfigurationGroup, keys: readonly string[] | null): Group {
  const cs = g.configurations;
  const ok = cs.filter(isOk);
  const fields = keys === null ? fieldsOf(cs[0]!) : Object.fromEntries(keys.filter((k) => k in g.identity).map((k) => [k, g.identity[k]!]));
  return {
    series: g.series,
    fields,
    repeats: ok.map((c) => c.repeat),
    failedRepeats: cs.length - ok.length,
    failures: cs.filter((c) => !isOk(c)).map((c) => c.failure ?? 'no statistics'),
    stats: groupStatsOf(ok),
  };
}

/** One group per configuration object, in document order, with every field (what a report shows of a run it cannot summarise). */
export function eachConfiguration(doc: RunDocument): Group[] {
  return groupConfigurations(doc, 'configuration').map((g) => groupOf(g, null));
}

/** Groups of a document by the identity its experiment declares (one per configuration when unknown). */
export function groupsOf(doc: RunDocument): Group[] {
  const keys = identityKeys(doc.experiment);
  return keys === null ? eachConfiguration(doc) : groupConfigurations(doc).map((g) => groupOf(g, keys));
}

/** One bar group of a readings chart: its panel, its place on x, and the median of each reading over the repeats. */
export interface ReadingRecord {
  facet: string;
  x: string;
  readings: Record<string, number | null>;
}

/** The readings a chart draws, by panel and x: from the configurations first, else from the summary; medians over repeats. */
export function readingRecords(doc: RunDocument, spec: ReadingsChartSpec): ReadingRecord[] {
  const looks = (o: unknown): o is Record<string, unknown> => isObj(o) && spec.x in o && spec.readings.some((m) => m in o);
  // The configurations hold the readings as fields (pagetables' phase rows); older runs keep them in the summary.
  let raw: Readonly<Record<string, unknown>>[] = doc.configurations.filter(looks);
  if (raw.length === 0 && spec.summaryKey !== undefined && isObj(doc.summary)) {
    const a = doc.summary[spec.summaryKey];
    raw = Array.isArray(a) ? a.filter(looks) : [];
  }
  const by = new Map<string, Readonly<Record<string, unknown>>[]>();
  for (const r of raw) {
    const id = JSON.stringify([String(r[spec.facet] ?? ''), String(r[spec.x])]);
    by.set(id, [...(by.get(id) ?? []), r]);
  }
  const med = (xs: number[]) => (xs.length === 0 ? null : median(xs));
  return [...by.values()].map((rs) => ({
    facet: String(rs[0]![spec.facet] ?? ''),
    x: String(rs[0]![spec.x]),
    readings: Object.fromEntries(spec.readings.map((m) => [m, med(rs.map((r) => num(r[m])).filter((x): x is number => x !== null))])),
  }));
}

/** "fork-exec · 64 MB · THP on": the series and its identifying fields, each as the experiment says it (else "key value"). */
export function configLabel(experiment: string, series: string, fields: Record<string, Scalar>): string {
  const labels = findExperiment(experiment)?.fieldLabels ?? {};
  const parts = series === '' ? [] : [series];
  for (const [k, v] of Object.entries(fields)) {
    if (v === series) continue;
    const l = labels[k];
    parts.push(l ? [l.prefix, String(v), l.suffix].filter((w) => w !== undefined).join(' ') : keyValueWords(k, v));
  }
  return parts.join(' · ');
}

/** Unit of the medians of an experiment, as it declares it (ns per page for cow); µs for an unknown one. */
export const timeUnit = (experiment: string): TimeUnit => findExperiment(experiment)?.unit ?? MICROSECONDS_PER_CALL;
