// `forklab history`, `show`, `export`, `import` (and, from their own files, `compare` and `rm`): the run
// history in SQLite (docs/history.md). Every command takes --db PATH (default: $FORKLAB_DB,
// $XDG_DATA_HOME/forklab/forklab.db or ~/.local/share/forklab/forklab.db). Errors are thrown and printed by
// src/cli/errors.ts (exit code 2).
import type { Command } from 'commander';
import { readInputFile } from './input.js';
import { checkDocumentMeaning } from '../store/meaning.js';
import { EXPERIMENTS } from '../experiments/index.js';
import { StoreError, isReproductionRef, type RunFilter, type RunRow, type Store } from '../store/db.js';
import { asReproduceDocument } from '../claims/reproduction.js';
import { renderSummary } from '../report/summary.js';
import { dbArgument, dbLocation } from './database.js';
import { DocumentError, parseRunDocument } from '../document/validate.js';
import { identityGroups, groupMedian } from '../store/compare.js';
import type { RunDocument } from '../document/run.js';
import { isFileRef, namedRuns } from './named.js';
import { outputOf, planOutputs, writeOutputs, writeText, type OutputPlan } from './door.js';
import type { ReproduceDocument } from '../claims/reproduction.js';
import { renderTable } from '../text/table.js';
import { fmtInCi } from '../text/format.js';
import { unitOf } from '../report/formats.js';
import { resultsOf } from '../report/results.js';
import { renderView } from '../report/terminal.js';
import { findExperiment } from '../experiments/index.js';
import { witnessText } from '../report/markdown.js';
import { paramFlags } from '../report/labels.js';
import { fmtDuration } from './progress.js';
import { CliError } from './errors.js';
import { dbOption, fileOption, labelOption, noColorOption } from './options.js';
import { colors, guarded, localTime, out, RUN_HELP, statusText, withLazyStore, withStore, type Colors, type Opts, plain } from './history-common.js';
import { registerCompareCommand } from './compare-command.js';
import { registerRmCommand } from './rm.js';

function historyTable(rows: RunRow[], c: Colors): string {
  const labels = rows.some((r) => r.label !== null);
  return renderTable(
    ['id', 'uuid', 'experiment', ...(labels ? ['label'] : []), 'status', 'started', 'duration', 'host', 'measurements'],
    rows.map((r) => [
      String(r.id),
      r.uuid.slice(0, 8),
      r.experiment,
      ...(labels ? [r.label ?? ''] : []),
      statusText(r.status, c),
      localTime(r.startedAt),
      r.durationMs === null ? '—' : fmtDuration(r.durationMs),
      r.hostname,
      String(r.measurements),
    ]),
    { leftAlign: labels ? [1, 2, 3, 4, 5, 7] : [1, 2, 3, 4, 6] },
  );
}

/**
 * The figures of a stored run in its experiment's terms: medians of the pooled repeats in its unit (cow: ns per
 * page), or, for an experiment whose figures are outcomes (deadlock), its own view of the run.
 */
function resultLines(doc: RunDocument, c: Colors): string[] {
  if (findExperiment(doc.experiment)?.figures === 'outcomes') return [renderView(resultsOf(doc), { color: c !== plain })];
  const unit = unitOf(doc.experiment);
  const rows = identityGroups(doc).map((g) => {
    const med = groupMedian(g);
    return [
      g.label,
      String(g.okRepeats),
      String(g.samplesNs.length),
      med ? fmtInCi(med.medianNs, med.ciLowNs, med.ciHighNs, unit) : '—',
      g.failedRepeats ? c.yellow(String(g.failedRepeats)) : '0',
    ];
  });
  const per = unit.perNs === 1 ? unit.label : `${unit.label} per operation`;
  return [c.bold(`median ${per} [95 % CI], repeats pooled`), renderTable(['configuration', 'repeats', 'n', `median ${unit.label} [95 % CI]`, 'failed'], rows)];
}

function describeRun(shown: string, doc: RunDocument, c: Colors): string {
  const m = doc.machine;
  const lines = [
    c.bold(`${shown}  ${doc.runId ?? ''}  ${doc.experiment}${doc.label ? `  [${doc.label}]` : ''}  ${statusText(doc.complete ? 'complete' : 'incomplete', c)}`),
    `started ${localTime(doc.startedAt)}, took ${fmtDuration(doc.durationMs)}, forklab ${doc.forklabVersion}`,
    `machine: ${m.hostname}, kernel ${m.kernel} (${m.arch}), ${m.cpuModel ?? 'unknown CPU'} × ${m.cpuCount}, ` +
      `THP enabled ${m.thpEnabled ?? '?'} defrag ${m.thpDefrag ?? '?'}, ${m.virtualization ?? 'virtualization unknown'}, ` +
      `${m.pinnedCpu === null ? 'not pinned' : `pinned to CPU ${m.pinnedCpu}`}`,
    `params: ${
      paramFlags(doc)
        .map(([flag, value]) => `${flag} ${value}`)
        .join(' ') || 'none'
    }`,
    `noise during the run: ${witnessText(doc)}`,
    '',
  ];
  lines.push(...resultLines(doc, c));
  for (const w of doc.warnings) lines.push(`${c.yellow('warning')}: ${w.message}`);
  return lines.join('\n');
}

function readDocumentFile(file: string): RunDocument {
  const text = readInputFile(file);
  try {
    const doc = parseRunDocument(text);
    checkDocumentMeaning(
      doc,
      EXPERIMENTS.map((x) => x.name),
    );
    return doc;
  } catch (e) {
    if (e instanceof DocumentError) throw new CliError(`${file}: ${e.message}; nothing was imported`);
    throw e;
  }
}

/** --since: a date (2026-11-30, local midnight), a date and time (2026-11-30T14:00), or an age (12h, 7d, 2w). */
export function parseSince(raw: string, now = new Date()): Date {
  const s = raw.trim();
  const age = /^(\d+)\s*([hdw])$/.exec(s);
  if (age) return new Date(now.getTime() - Number(age[1]) * { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[age[2] as 'h' | 'd' | 'w']);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const d = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(s) ? new Date(s) : new Date(NaN);
  if (Number.isNaN(d.getTime()))
    throw new CliError(`--since: expected a date (2026-11-30), a date and time (2026-11-30T14:00) or an age (12h, 7d, 2w), got ${JSON.stringify(raw)}`);
  return d;
}

interface HistoryOpts extends Opts {
  experiment?: string;
  label?: string;
  since?: string;
  limit?: string;
}

function filterOf(o: HistoryOpts): RunFilter {
  const f: RunFilter = {};
  if (o.experiment !== undefined) f.experiment = o.experiment;
  if (o.label !== undefined) f.label = o.label;
  if (o.since !== undefined) f.since = parseSince(o.since);
  if (o.limit !== undefined) {
    if (!/^\d+$/.test(o.limit.trim()) || Number(o.limit) < 1) throw new CliError(`--limit: expected a whole number of runs, at least 1, got ${JSON.stringify(o.limit)}`);
    f.limit = Number(o.limit);
  }
  return f;
}

/** The reproductions the filter selects (label, since; the most recent N), with their verdict counts. */
function reproductionRows(s: Store, f: RunFilter): string[][] {
  let rows = s.listReproductions().filter((r) => (f.label === undefined || r.label === f.label) && (f.since === undefined || Date.parse(r.startedAt) >= f.since.getTime()));
  if (f.limit !== undefined) rows = rows.slice(-f.limit);
  return rows.map((r) => {
    const doc = s.getReproduction(r.id).document as { verdicts?: { verdict: string }[] };
    const n = (k: string) => String((doc.verdicts ?? []).filter((v) => v.verdict === k).length);
    return [`R${r.id}`, localTime(r.startedAt), r.preset, r.label ?? '', String(r.runUuids.length), n('holds'), n('differs'), n('inconclusive'), n('not-measurable')];
  });
}

function registerHistory(program: Command): void {
  program
    .command('history')
    .description('list the recorded runs (oldest first), all of them or those the filters select')
    .option('--experiment <name>', 'only runs of this experiment (spawn, cow, ...)')
    .addOption(labelOption())
    .option('--since <when>', 'only runs started since: a date (2026-11-30), a date and time, or an age (12h, 7d, 2w)')
    .option('--limit <n>', 'only the N most recent of the runs selected')
    .addOption(dbOption())
    .addOption(fileOption('--json', 'write the list as a JSON array'))
    .addOption(noColorOption())
    .exitOverride()
    .action((o: HistoryOpts) =>
      guarded('history', () => {
        const filter = filterOf(o); // before the database is opened
        const json = outputOf(planOutputs({ json: o.json }), 'json');
        let rows: RunRow[];
        try {
          rows = withStore(o, false, (s) => s.listRuns(filter));
        } catch (e) {
          if (!(e instanceof StoreError && e.kind === 'missing')) throw e;
          if (json) writeText('history', json, '[]\n');
          else process.stderr.write(`forklab history: ${e.message}\n`);
          return;
        }
        const filtered = Object.keys(filter).length > 0;
        if (json) return writeText('history', json, `${JSON.stringify(rows, null, 1)}\n`);
        if (rows.length === 0) out(`no runs${filtered ? ' match' : ''} in ${dbLocation(o.db).path}`);
        else out(`${historyTable(rows, colors(o))}\n${rows.length} run${rows.length === 1 ? '' : 's'}${filtered ? ' selected' : ''} in ${dbLocation(o.db).path}`);
        const repros = filter.experiment === undefined ? withStore(o, false, (s) => reproductionRows(s, filter)) : [];
        if (repros.length)
          out(
            `\n${renderTable(['reproduction', 'started', 'preset', 'label', 'runs', 'hold', 'differ', 'inconclusive', 'not measurable'], repros, { leftAlign: [0, 1, 2, 3] })}\n(forklab report R<n>${dbArgument(dbLocation(o.db))} --html report.html)`,
          );
      }),
    );
}

/** A reproduction's summary (show R1, show repro.json), or its document with --json. */
async function showReproduction(doc: ReproduceDocument, shown: string, o: Opts, plan: OutputPlan): Promise<void> {
  if (plan.outputs.length) return writeOutputs('show', plan, 'reproduction', { doc, runs: [] });
  const footer = `reproduction ${shown}: ${doc.preset === 'quick' ? 'quick preset (--quick)' : 'the articles’ settings'}, started ${localTime(doc.startedAt)}, seed ${doc.seed} (forklab report ${shown}${/^R\d+$/.test(shown) ? dbArgument(dbLocation(o.db)) : ''} --html report.html)`;
  out(renderSummary({ articles: doc.articles, verdicts: doc.verdicts, figures: doc.figures }, doc.experiments, colors(o), footer).trimEnd());
}

function registerShow(program: Command): void {
  program
    .command('show')
    .description("one run's record: machine, parameters, warnings, medians with their intervals; or a reproduction's verdicts (R<n>)")
    .argument('<run>', `${RUN_HELP}; a reproduction, R and its number; or a file: a run document or a forklab reproduce --json file`)
    .addOption(dbOption())
    .addOption(fileOption('--json', 'write the versioned run document'))
    .addOption(noColorOption())
    .exitOverride()
    .action((ref: string, o: Opts) =>
      guarded('show', async () => {
        const plan = planOutputs({ json: o.json });
        if (isFileRef(ref)) {
          const named = withLazyStore(o, (open) => namedRuns(ref, open));
          if (named.reproduction) return showReproduction(named.reproduction.doc, ref, o, plan);
          if (plan.outputs.length) return writeOutputs('show', plan, 'run', named.docs[0]!);
          return out(describeRun(ref, named.docs[0]!, colors(o)));
        }
        const repro = withStore(o, false, (s) => {
          const made = ref.trim().toLowerCase() === 'latest' ? s.latestMade() : null;
          const r = isReproductionRef(ref) ? s.resolveReproduction(ref) : made?.kind === 'reproduction' ? made.id : null;
          return r === null ? null : { id: r, stored: s.getReproduction(r) };
        });
        if (repro) return showReproduction(asReproduceDocument(repro.stored.document, `reproduction R${repro.id}`), `R${repro.id}`, o, plan);
        const [id, doc] = withStore(o, false, (s) => {
          const id = s.resolveRun(ref);
          return [id, s.getDocument(id)] as const;
        });
        if (plan.outputs.length) await writeOutputs('show', plan, 'run', doc);
        else out(describeRun(`run ${id}`, doc, colors(o)));
      }),
    );
}

function registerExport(program: Command): void {
  program
    .command('export')
    .description('print a run: its versioned JSON document (default), every raw sample as CSV, or its summary as a Markdown table')
    .argument('<run>', `${RUN_HELP}; a reproduction (R1: every run it rests on); or a run document file`)
    .addOption(fileOption('--json', 'write the versioned run document (the default, on standard output)'))
    .addOption(fileOption('--csv', 'write every sample, one row each: series, configuration fields, repeat, state, iteration, ns (and per-iteration columns)'))
    .addOption(fileOption('--markdown', 'write one row per configuration: samples, median with its 95 % interval, mean ± σ, min, max, ÷ fastest'))
    .addOption(dbOption())
    .exitOverride()
    .action((ref: string, o: Opts & { csv?: string | boolean; markdown?: string | boolean }) =>
      guarded('export', async () => {
        // The run's JSON document on standard output unless another format is asked for; several can go to files.
        const plan = planOutputs({ json: o.json, csv: o.csv, markdown: o.markdown }, 'json');
        const named = withLazyStore(o, (open) => namedRuns(ref, open));
        if (named.reproduction) {
          // Every run of the reproduction: one CSV (led by run and experiment), one Markdown table per run, or
          // the reproduction's document with its runs whole (judge and report --input read it).
          if (named.reproduction.missing)
            process.stderr.write(`forklab export: ${named.reproduction.missing} of ${named.shown}'s runs are no longer in the history (forklab rm)\n`);
          return writeOutputs('export', plan, 'runs', { reproduction: named.reproduction.doc, runs: named.docs });
        }
        await writeOutputs('export', plan, 'run', named.docs[0]!);
      }),
    );
}

function registerImport(program: Command): void {
  program
    .command('import')
    .description('check a run document (from export or --json) and add it to the history; prints the new run id')
    .argument('<file>', 'the JSON document, or - for standard input')
    .addOption(dbOption())
    .exitOverride()
    .action((file: string, o: Opts) =>
      guarded('import', () => {
        const doc = readDocumentFile(file); // checked before the database is opened or created
        const [id, uuid] = withStore(o, true, (s) => {
          const id = s.importDocument(doc);
          return [id, s.uuidOf(id)] as const;
        });
        out(String(id));
        process.stderr.write(`forklab import: ${file} is run ${id} (${uuid}) in ${dbLocation(o.db).path}\n`);
      }),
    );
}

export function registerHistoryCommands(program: Command): void {
  registerHistory(program);
  registerShow(program);
  registerCompareCommand(program);
  registerExport(program);
  registerImport(program);
  registerRmCommand(program);
}
