// `forklab history`, `show`, `compare`, `export`, `import`: the run history in SQLite (docs/history.md).
// Every command takes --db PATH (default: $FORKLAB_DB, $XDG_DATA_HOME/forklab/forklab.db or
// ~/.local/share/forklab/forklab.db). Errors are printed and give exit code 2; nothing is thrown.
import type { Command } from 'commander';
import pc from 'picocolors';
import { readFileSync } from 'node:fs';
import { Store, StoreError, type RunRow } from '../store/db.js';
import { resolveDbPath } from '../store/location.js';
import { DocumentError, parseRunDocument } from '../store/validate.js';
import { compareRuns, groupConfigurations, groupMedian, type Comparison, type FigureComparison } from '../store/compare.js';
import type { RunDocument } from '../report/document.js';
import { fmtUs, fmtUsCi, renderTable } from '../report/table.js';
import { witnessText } from '../report/markdown.js';
import { fmtDuration } from './progress.js';
import { CliError } from './run.js';
import { DB_HELP } from './options.js';

interface Opts {
  db?: string;
  json?: boolean;
  color?: boolean;
}

type Paint = (s: string) => string;
interface Colors {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}
const plain: Colors = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

function colors(o: Opts): Colors {
  return o.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR ? pc : plain;
}

const out = (s: string) => void process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

/** Runs a command body; an error it throws is printed by the CLI's one error printer (src/cli/errors.ts). */
async function guarded(_command: string, body: () => void | Promise<void>): Promise<void> {
  await body();
}

function withStore<T>(o: Opts, create: boolean, fn: (s: Store) => T): T {
  const store = Store.open(resolveDbPath(o.db), { create });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function statusText(status: string, c: Colors): string {
  return status === 'complete' ? c.green(status) : status === 'incomplete' ? c.yellow(status) : c.cyan(status);
}

function historyTable(rows: RunRow[], c: Colors): string {
  return renderTable(
    ['id', 'uuid', 'experiment', 'status', 'started', 'duration', 'host', 'measurements'],
    rows.map((r) => [
      String(r.id),
      r.uuid.slice(0, 8),
      r.experiment,
      statusText(r.status, c),
      localTime(r.startedAt),
      r.durationMs === null ? '—' : fmtDuration(r.durationMs),
      r.hostname,
      String(r.measurements),
    ]),
    { leftAlign: [1, 2, 3, 4, 6] },
  );
}

const show = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(show).join(',') : JSON.stringify(v));

function describeRun(id: number, doc: RunDocument, c: Colors): string {
  const m = doc.machine;
  const lines = [
    c.bold(`run ${id}  ${doc.runId ?? ''}  ${doc.experiment}  ${statusText(doc.complete ? 'complete' : 'incomplete', c)}`),
    `started ${localTime(doc.startedAt)}, took ${fmtDuration(doc.durationMs)}, forklab ${doc.forklabVersion}`,
    `machine: ${m.hostname}, kernel ${m.kernel} (${m.arch}), ${m.cpuModel ?? 'unknown CPU'} × ${m.cpuCount}, ` +
      `THP enabled ${m.thpEnabled ?? '?'} defrag ${m.thpDefrag ?? '?'}, ${m.virtualization ?? 'virtualization unknown'}, ` +
      `${m.pinnedCpu === null ? 'not pinned' : `pinned to CPU ${m.pinnedCpu}`}`,
    `params: ${Object.entries(doc.params).map(([k, v]) => `${k}=${show(v)}`).join(' ')}`,
    `noise during the run: ${witnessText(doc)}`,
    '',
  ];
  const rows = groupConfigurations(doc).map((g) => {
    const med = groupMedian(g);
    return [
      g.label,
      String(g.okRepeats),
      String(g.samplesNs.length),
      med ? fmtUsCi(med.medianNs, med.ciLowNs, med.ciHighNs) : '—',
      g.failedRepeats ? c.yellow(String(g.failedRepeats)) : '0',
    ];
  });
  lines.push(c.bold('median µs per operation [95 % CI], repeats pooled'));
  lines.push(renderTable(['configuration', 'repeats', 'n', 'median µs [95 % CI]', 'failed'], rows));
  for (const w of doc.warnings) lines.push(`${c.yellow('warning')}: ${w.message}`);
  return lines.join('\n');
}

function fmtP(p: number): string {
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

function ratioCell(f: FigureComparison): string {
  if (f.ratio === null) return '—';
  const ci = f.ratioLow === null || f.ratioHigh === null ? '' : ` [${f.ratioLow.toFixed(3)}–${f.ratioHigh.toFixed(3)}]`;
  return `${f.ratio.toFixed(3)}${ci}`;
}

function verdictCell(f: FigureComparison, c: Colors): string {
  if (f.verdict === 'slower') return c.red('▲ slower');
  if (f.verdict === 'faster') return c.green('▼ faster');
  return c.dim('same');
}

function renderComparison(cmp: Comparison, ids: [number, number], c: Colors): string {
  const side = (name: string, id: number, r: Comparison['a']) =>
    `${name}: run ${id} (${(r.runId ?? '').slice(0, 8)}) ${r.experiment}, started ${localTime(r.startedAt)}, host ${r.hostname}`;
  const lines = [side('A', ids[0], cmp.a), side('B', ids[1], cmp.b)];
  if (cmp.experimentsDiffer) lines.push(c.yellow(`different experiments: ${cmp.a.experiment} vs ${cmp.b.experiment}`));
  if (cmp.machineDifferences.length)
    lines.push(c.yellow(`machines differ: ${cmp.machineDifferences.map((d) => `${d.name} ${show(d.a)} → ${show(d.b)}`).join('; ')}`));
  else lines.push('same machine (hostname, kernel, CPU model and count, THP, pinning)');
  if (cmp.paramDifferences.length)
    lines.push(`parameters differ: ${cmp.paramDifferences.map((d) => `${d.name} ${show(d.a)} → ${show(d.b)}`).join('; ')}`);
  lines.push('');
  const rows = cmp.figures.map((f) => [
    f.label,
    fmtUs(f.a.medianNs),
    fmtUs(f.b.medianNs),
    ratioCell(f),
    fmtP(f.pValue),
    verdictCell(f, c),
  ]);
  lines.push(renderTable(['configuration', 'A µs', 'B µs', 'B/A [95 % CI]', 'p', 'B vs A'], rows));
  const r = cmp.rule;
  lines.push(
    c.dim(
      `marked only when p < ${r.maxP}, the ${r.confidence * 100} % interval of B/A excludes 1 and B/A is at least ` +
        `${r.minEffect * 100} % away from 1 (medians of pooled repeats; Mann–Whitney U on the raw samples)`,
    ),
  );
  if (cmp.onlyInA.length) lines.push(`only in A: ${cmp.onlyInA.join(', ')}`);
  if (cmp.onlyInB.length) lines.push(`only in B: ${cmp.onlyInB.join(', ')}`);
  for (const n of cmp.noSamples) lines.push(c.yellow(`no successful samples ${n.side === 'both' ? 'in either run' : `in ${n.side}`}: ${n.label}`));
  return lines.join('\n');
}

function readDocumentFile(file: string): RunDocument {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parseRunDocument(text);
  } catch (e) {
    if (e instanceof DocumentError) throw new CliError(`${file}: ${e.message}; nothing was imported`);
    throw e;
  }
}

const RUN_HELP = 'a run id, a uuid or its first characters, latest or latest~N';

export function registerHistoryCommands(program: Command): void {
  program
    .command('history')
    .description('list the recorded runs')
    .option('--db <path>', DB_HELP)
    .option('--json', 'print the list as a JSON array')
    .option('--no-color', 'no ANSI colours')
    .exitOverride()
    .action((o: Opts) =>
      guarded('history', () => {
        let rows: RunRow[];
        try {
          rows = withStore(o, false, (s) => s.listRuns());
        } catch (e) {
          if (!(e instanceof StoreError && e.kind === 'missing')) throw e;
          if (o.json) out('[]');
          else process.stderr.write(`forklab history: ${e.message}\n`);
          return;
        }
        if (o.json) out(JSON.stringify(rows, null, 1));
        else if (rows.length === 0) out(`no runs in ${resolveDbPath(o.db)}`);
        else out(`${historyTable(rows, colors(o))}\n${rows.length} run${rows.length === 1 ? '' : 's'} in ${resolveDbPath(o.db)}`);
      }),
    );

  program
    .command('show')
    .description("one run's record: machine, parameters, warnings, medians with their intervals")
    .argument('<run>', RUN_HELP)
    .option('--db <path>', DB_HELP)
    .option('--json', 'print the versioned run document')
    .option('--no-color', 'no ANSI colours')
    .exitOverride()
    .action((ref: string, o: Opts) =>
      guarded('show', () => {
        const [id, doc] = withStore(o, false, (s) => {
          const id = s.resolveRun(ref);
          return [id, s.getDocument(id)] as const;
        });
        out(o.json ? JSON.stringify(doc, null, 1) : describeRun(id, doc, colors(o)));
      }),
    );

  program
    .command('compare')
    .description('compare two runs figure by figure: medians, B/A with its interval, p-value; only real differences marked')
    .argument('<runA>', RUN_HELP)
    .argument('<runB>', RUN_HELP)
    .option('--db <path>', DB_HELP)
    .option('--json', 'print the comparison as JSON')
    .option('--no-color', 'no ANSI colours')
    .exitOverride()
    .action((refA: string, refB: string, o: Opts) =>
      guarded('compare', () => {
        const [ids, docs] = withStore(o, false, (s) => {
          const ids: [number, number] = [s.resolveRun(refA), s.resolveRun(refB)];
          return [ids, [s.getDocument(ids[0]), s.getDocument(ids[1])] as const] as const;
        });
        const cmp = compareRuns(docs[0], docs[1]);
        out(o.json ? JSON.stringify(cmp, null, 1) : renderComparison(cmp, ids, colors(o)));
      }),
    );

  program
    .command('export')
    .description('print a run as its versioned JSON document (forklab export 3 > run.json)')
    .argument('<run>', RUN_HELP)
    .option('--db <path>', DB_HELP)
    .exitOverride()
    .action((ref: string, o: Opts) =>
      guarded('export', () => {
        const doc = withStore(o, false, (s) => s.getDocument(s.resolveRun(ref)));
        out(JSON.stringify(doc, null, 1));
      }),
    );

  program
    .command('import')
    .description('check a run document (from export or --json) and add it to the history; prints the new run id')
    .argument('<file>', 'the JSON document, or - for standard input')
    .option('--db <path>', DB_HELP)
    .exitOverride()
    .action((file: string, o: Opts) =>
      guarded('import', () => {
        const doc = readDocumentFile(file); // checked before the database is opened or created
        const [id, uuid] = withStore(o, true, (s) => {
          const id = s.importDocument(doc);
          return [id, s.uuidOf(id)] as const;
        });
        out(String(id));
        process.stderr.write(`forklab import: ${file} is run ${id} (${uuid}) in ${resolveDbPath(o.db)}\n`);
      }),
    );
}
