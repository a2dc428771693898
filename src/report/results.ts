// What a report shows of a run's results: the experiment's own view (the same blocks the terminal prints after
// a run), rebuilt from the document; for an experiment this forklab does not know, one row per configuration.
import { findExperiment } from '../experiments/index.js';
import { heading, note, table, type Block } from '../experiments/contract/view.js';
import { fieldsOf, runOfDocument, type RunDocument } from '../document/run.js';
import { eachConfiguration, timeUnit, type GroupStats } from './groups.js';
import { fmtNs, fmtUs } from '../text/format.js';

const fmtIn = (ns: number, perNs: number) => (perNs === 1 ? fmtNs(ns) : fmtUs(ns));

/** "412 [405–420]": a median with its 95 % interval, in µs (perNs 1000) or ns (perNs 1). */
export function fmtMedianCi(s: GroupStats | null, perNs: number): string {
  if (s === null) return 'failed';
  return `${fmtIn(s.medianNs, perNs)} [${fmtIn(s.ciLowNs, perNs)}–${fmtIn(s.ciHighNs, perNs)}]`;
}

const cell = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** One row per configuration object: its series, every scalar field, repeat, state, median and interval. */
function configurationBlocks(doc: RunDocument): Block[] {
  const keys = [...new Set(doc.configurations.flatMap((c) => Object.keys(fieldsOf(c))))];
  const groups = eachConfiguration(doc);
  const unit = timeUnit(doc.experiment);
  const rows = doc.configurations.map((c, i) => {
    const g = groups[i]!;
    return [
      cell(c.series),
      ...keys.map((k) => cell(fieldsOf(c)[k])),
      cell(c.repeat),
      c.state === 'failed' ? `failed: ${cell(c.failure)}` : cell(c.state),
      g.stats ? fmtMedianCi(g.stats, unit.perNs) : '—',
      g.stats ? String(g.stats.n) : '—',
    ];
  });
  return [
    heading(`${doc.experiment}: every configuration`),
    table(['series', ...keys, 'repeat', 'state', `median ${unit.label} [95 % CI]`, 'n'], rows, { leftAlign: [0, ...keys.map((_, i) => i + 1), keys.length + 2] }),
  ];
}

/** The results of a run as its experiment shows them; every configuration for an unknown experiment. */
export function resultsOf(doc: RunDocument): Block[] {
  const exp = findExperiment(doc.experiment);
  const run = runOfDocument(doc);
  if (!exp || !run) return configurationBlocks(doc);
  try {
    return exp.view(run);
  } catch (e) {
    // A summary this version cannot read (a document from another forklab): say so, show the raw configurations.
    return [note(`the run's summary could not be shown (${(e as Error).message}); every configuration instead:`), ...configurationBlocks(doc)];
  }
}
