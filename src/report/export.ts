// A run's raw data for other tools: every sample as a CSV row, and the per-configuration summary as a
// Markdown table (pooled repeats) in the experiment's unit, for `forklab export RUN --csv | --markdown`.
import type { RunDocument } from '../document/run.js';
import { CONFIGURATION_KEYS } from '../document/run.js';
import { identityGroups, groupMedian } from '../store/compare.js';
import { describe } from '../stats/descriptive.js';
import { mdTable } from './markdown.js';
import { mdText } from './escape.js';
import { fmtIn, fmtInCi } from '../text/format.js';
import type { TimeUnit } from '../experiments/contract/types.js';

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; numbers as plain decimals. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isInteger(v) ? v.toFixed(0) : String(v)) : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Every raw sample as one row: series, the configuration's fields (the union over the run, in the order they
 * first appear), repeat (0-based probe process), state, iteration (0-based within that process), ns, and any
 * per-iteration columns the experiment records (minor faults, say). A failed repeat keeps the samples it has.
 */
export function samplesCsv(doc: RunDocument): string {
  return csvOf([doc], false);
}

/** The runs of a reproduction in one CSV: samplesCsv's rows of every run, led by the run's uuid and experiment (fields the union over the runs). */
export function runsSamplesCsv(docs: readonly RunDocument[]): string {
  return csvOf(docs, true);
}

function csvOf(docs: readonly RunDocument[], byRun: boolean): string {
  const fieldKeys: string[] = [];
  const columnKeys: string[] = [];
  for (const c of docs.flatMap((d) => d.configurations)) {
    for (const k of Object.keys(c)) if (!(CONFIGURATION_KEYS as readonly string[]).includes(k) && !fieldKeys.includes(k)) fieldKeys.push(k);
    for (const k of Object.keys(c.columns ?? {})) if (!columnKeys.includes(k)) columnKeys.push(k);
  }
  const lead = byRun ? ['run', 'experiment'] : [];
  const clash = (k: string) => (['series', 'repeat', 'state', 'iteration', 'ns', ...lead, ...fieldKeys].includes(k) ? `column_${k}` : k);
  const lines = [[...lead, 'series', ...fieldKeys, 'repeat', 'state', 'iteration', 'ns', ...columnKeys.map(clash)].map(csvField).join(',')];
  for (const doc of docs)
    for (const c of doc.configurations) {
      const fixed = [...(byRun ? [doc.runId ?? '', doc.experiment] : []), c.series, ...fieldKeys.map((k) => c[k])].map(csvField).join(',');
      const samples = c.samplesNs;
      const columns = c.columns ?? {};
      for (let i = 0; i < samples.length; i++) {
        const extra = columnKeys.map((k) => csvField(columns[k]?.[i]));
        lines.push([fixed, csvField(c.repeat), csvField(c.state), String(i), csvField(samples[i]), ...extra].join(','));
      }
    }
  return `${lines.join('\n')}\n`;
}

/**
 * Per configuration (repeats pooled): samples, median with its 95 % interval, mean ± σ, min, max (in the
 * experiment's unit: µs per call, ns per page), and ÷ the fastest median.
 */
export function summaryMarkdown(doc: RunDocument, unit: TimeUnit): string {
  const groups = identityGroups(doc).filter((g) => g.samplesNs.length > 0);
  const stats = groups.map((g) => ({ g, d: describe(g.samplesNs), m: groupMedian(g)! }));
  const fastest = Math.min(...stats.map((s) => s.m.medianNs));
  const rows = stats.map(({ g, d, m }) => [
    g.label,
    String(g.okRepeats),
    String(d.n),
    fmtInCi(m.medianNs, m.ciLowNs, m.ciHighNs, unit),
    `${fmtIn(d.meanNs, unit)} ± ${fmtIn(d.stdevNs, unit)}`,
    fmtIn(d.minNs, unit),
    fmtIn(d.maxNs, unit),
    fastest > 0 ? `${(m.medianNs / fastest).toFixed(2)}` : '—',
  ]);
  const head = `**${mdText(doc.experiment)}**${doc.label ? ` (${mdText(doc.label)})` : ''}, run ${mdText(doc.runId ?? 'not stored')}, started ${mdText(doc.startedAt)}`;
  if (rows.length === 0) return `${head}\n\nNo configuration has a successful sample.\n`;
  const table = mdTable({
    header: ['configuration', 'repeats', 'samples', `median ${unit.label} [95 % CI]`, `mean ± σ ${unit.label}`, `min ${unit.label}`, `max ${unit.label}`, 'median ÷ fastest'],
    rows,
    leftAlign: [0],
  });
  return `${head}\n\n${table}\n`;
}
