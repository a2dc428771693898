// `forklab reproduce [--quick] [--only 000,001] [--db PATH] [--json FILE]`: runs every experiment at the
// articles' settings (or a quick preset), then prints per article its headline figures beside this
// machine's and a verdict on every published claim. This file parses the options, calls the reproduction's life
// (src/lab/reproduce.ts) and prints and writes what it returns. docs/reproduce.md.
import type { Command } from 'commander';
import type { Warning } from '../experiments/contract/types.js';
import { UsageError } from '../errors.js';
import type { RunDocument } from '../document/run.js';
import { loadPublished, type Published } from '../reference/published.js';
import type { ReproduceDocument } from '../claims/reproduction.js';
import { renderSummary } from '../report/summary.js';
import { StoreError, type Store } from '../store/db.js';
import { parseOnly, parseOnlySources, planSteps, reproduce, stepWords, type ReproductionPlan } from '../lab/reproduce.js';
import { requireProbe } from '../lab/experiment.js';
import { colors } from './history-common.js';
import { fitText } from '../text/fit.js';
import { onInterrupt, openHistory, parseCommon } from './run.js';
import { doctorSummaryLine } from './doctor.js';
import { createProgress } from './progress.js';
import { planOutputs, writeOutputs, type OutputPlan } from './door.js';
import { dbArgument, dbLocation, openDatabase } from './database.js';
import {
  dbOption,
  fileOption,
  labelOption,
  noColorOption,
  noStoreOption,
  onlyOption,
  pinOption,
  quickOption,
  seedOption,
  verboseOption,
  noPoolOption,
  withinRunOption,
} from './options.js';

export interface ReproduceOptions {
  quick?: boolean;
  only?: string;
  db?: string;
  /** false with --no-store. */
  store?: boolean;
  json?: string | boolean;
  html?: string | boolean;
  markdown?: string | boolean;
  label?: string;
  pin?: string;
  seed?: string;
  color?: boolean;
  /** --verbose: claim ids, kinds and formulas in the summary. */
  verbose?: boolean;
  /** --settle SECONDS: measure again what the inconclusive verdicts rest on, within this budget. */
  settle?: string;
  /** --within-run: today's intervals alone, without this machine's drift between runs. */
  withinRun?: boolean;
  /** false with --no-pool: each run judged alone, not pooled with the machine's earlier runs. */
  pool?: boolean;
}

/** Where the summary goes when no document owns standard output (fleet run sends it to stderr). */
export interface ReproduceIo {
  summaryTo?: NodeJS.WritableStream;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Everything the user typed, checked before anything is measured: the plan, where the outputs go, the history. */
function prepare(o: ReproduceOptions, published: Published): { plan: ReproductionPlan; outputs: OutputPlan; history: Store | null } {
  const articles = parseOnly(o.only, published);
  const sources = parseOnlySources(o.only, published);
  const { pinCpu, seed, label } = parseCommon({ ...o, json: undefined });
  const outputs = planOutputs({ json: o.json, html: o.html, markdown: o.markdown });
  const quick = o.quick === true;
  const settleS = o.settle === undefined ? null : Number(o.settle);
  if (settleS !== null && !(Number.isFinite(settleS) && settleS > 0 && settleS <= 86_400))
    throw new UsageError('--settle', `needs a budget in seconds, above 0 and at most 86400 (a day), got ${JSON.stringify(o.settle)}`);
  const steps = planSteps(articles, quick, sources);
  requireProbe();
  const plan: ReproductionPlan = {
    articles,
    sources,
    steps,
    quick,
    pinCpu,
    seed,
    label,
    settleS,
    withinRun: o.withinRun === true,
    pool: o.pool !== false,
    keep: o.store !== false,
  };
  return { plan, outputs, history: openHistory(o)?.store ?? null };
}

/** The history the verdicts learn this machine's drift from, and keep their estimates in: read, and written unless --no-store (null: none). */
function driftStore(o: ReproduceOptions): Store | null {
  if (o.withinRun && o.store === false) return null;
  try {
    return o.store === false ? openDatabase(o.db, { create: false, write: false }).store : (openHistory(o)?.store ?? null);
  } catch (e) {
    if (e instanceof StoreError && e.kind === 'missing') return null;
    throw e;
  }
}

/** --json, --html FILE and --markdown FILE: the document, and the reproduction as a report, summary first; a failed write says how to get the runs out of the history. */
async function writeReproduction(
  outputs: OutputPlan,
  doc: ReproduceDocument,
  runs: readonly RunDocument[],
  stored: number | null,
  published: Published,
  db: string,
): Promise<void> {
  const ids = doc.runs.filter((r): r is string => typeof r === 'string').map((r) => r.slice(0, 8));
  const hint = (flag: string) =>
    stored !== null
      ? `the reproduction is stored as R${stored}: forklab report R${stored}${db} ${flag} FILE writes it again`
      : ids.length
        ? `the runs are stored (${ids.join(', ')}): forklab export RUN${db} writes each`
        : undefined;
  await writeOutputs('reproduce', outputs, 'reproduction', { doc, runs }, { hint, published });
}

/** Runs a phase of the reproduction with Ctrl-C and SIGTERM turned into an abort (a second one leaves at once). */
async function interruptible<T>(phase: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; signal: AbortSignal }> {
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  try {
    return { value: await phase(controller.signal), signal: controller.signal };
  } finally {
    stopSignals();
  }
}

/** `forklab reproduce`: the exit status, and the run documents it measured (fleet run frames them). */
export async function reproduceCommand(o: ReproduceOptions, io: ReproduceIo = {}): Promise<{ status: number; docs: RunDocument[] }> {
  const published = loadPublished();
  const { plan, outputs, history } = prepare(o, published);
  const c = colors(o);
  const warn = (name: string, w: Warning) => process.stderr.write(`${fitText(`${c.yellow('warning')} (${name}): ${w.message}`)}\n`);
  const note = (line: string) => process.stderr.write(`${fitText(line)}\n`);
  process.stderr.write(`${fitText(await doctorSummaryLine())}\n`);
  const r = await reproduce(plan, {
    published,
    history,
    openHistory: () => openHistory(o)?.store ?? null,
    openDriftStore: () => driftStore(o),
    interruptible,
    note,
    warn,
    progress: createProgress,
  });
  if (r.interrupted !== null) process.stderr.write(`forklab reproduce: ${r.stoppedBy}; what finished:\n`);
  const statuses = r.steps.map((s) => ({ experiment: s.name, state: stepWords(s.state) }));
  const footer = `preset: ${plan.quick ? 'quick (--quick)' : 'full (the articles’ settings)'}; seed ${plan.seed}; total ${secs(Date.now() - r.startedAt.getTime())}`;
  (outputs.ownsStdout ? process.stderr : (io.summaryTo ?? process.stdout)).write(
    fitText(renderSummary(r.judged, statuses, c, footer, o.verbose === true) + (r.settled ? `\n${r.settled}` : '')),
  ); // a document on stdout owns it
  if (r.storeProblem !== null)
    process.stderr.write(`warning: the reproduction could not be stored in the history (${r.storeProblem}); its runs are stored, and --json FILE keeps the verdicts\n`);
  // with --db the command that reads it back carries it, on a line of its own (a long path is never cut)
  const db = dbArgument(dbLocation(o.db));
  if (r.storedId !== null)
    process.stderr.write(
      db
        ? `forklab reproduce: stored as reproduction R${r.storedId} with its runs\n  forklab report R${r.storedId}${db} --html report.html\n`
        : `forklab reproduce: stored as reproduction R${r.storedId} with its runs (forklab report R${r.storedId} --html report.html)\n`,
    );
  await writeReproduction(outputs, r.document, r.docs, r.storedId, published, db);
  return { status: r.interrupted ?? (r.failed ? 1 : 0), docs: r.docs };
}

export async function runReproduce(o: ReproduceOptions): Promise<number> {
  return (await reproduceCommand(o)).status;
}

export function registerReproduceCommand(program: Command): void {
  program
    .command('reproduce')
    .description('run every experiment at the articles’ settings and judge each published claim on this machine (docs/reproduce.md)')
    .addOption(quickOption())
    .addOption(onlyOption())
    .addOption(dbOption())
    .addOption(noStoreOption())
    .addOption(labelOption())
    .addOption(fileOption('--html', 'write the reproduction as one self-contained HTML report: the answer first, then per article its figures, verdicts and charts'))
    .addOption(fileOption('--markdown', 'write the same report as Markdown'))
    .addOption(fileOption('--json', 'write the verdicts, the figures and the runs (ids, or whole documents when not stored) as JSON'))
    .addOption(pinOption())
    .addOption(seedOption())
    .addOption(verboseOption())
    .option(
      '--settle <seconds>',
      'then measure again, in fresh probes, only what the inconclusive verdicts rest on, look after look at a stricter confidence, until each is decided or this many seconds are spent',
    )
    .addOption(withinRunOption())
    .addOption(noPoolOption())
    .addOption(noColorOption())
    .action(async (opts: ReproduceOptions) => {
      process.exitCode = await runReproduce({
        ...opts,
        color: opts.color === false ? false : undefined,
        store: opts.store === false ? false : undefined,
        pool: opts.pool === false ? false : undefined,
      });
    });
}
