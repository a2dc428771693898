// `forklab reproduce [--quick] [--only 000,001] [--db PATH] [--json FILE]`: runs every experiment at the
// articles' settings (or a quick preset), then prints per article its headline figures beside this
// machine's and a verdict on every published claim. docs/reproduce.md.
import type { Command } from 'commander';
import { findExperiment } from '../experiments/index.js';
import { UsageError, type Experiment, type Warning } from '../experiments/types.js';
import { nativePaths, requireNative } from '../runner/paths.js';
import type { RunDocument } from '../document/run.js';
import { articleExperiments, loadPublished, type Article, type Published } from '../reference/published.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from '../claims/reproduction.js';
import { judgeDocuments, type Judged } from '../claims/judge.js';
import { presetFor } from '../experiments/index.js';
import { paintsFor, renderSummary } from './summary.js';
import { executeExperiment, interruptedStatus, interruptedWord, onInterrupt, openHistory, parseCommon } from './run.js';
import { doctorSummaryLine } from './doctor.js';
import { formatWitness } from '../env/witness.js';
import type { Store } from '../store/db.js';
import { BROKEN_PIPE_STATUS, OutputError, writeOutput, type OutputTarget } from './output.js';
import type { DbLocation } from './database.js';
import { FORKLAB_VERSION } from '../version.js';
import { hostname } from 'node:os';
import { dbOption, fileFlagPath, fileOption, labelOption, noColorOption, noStoreOption, pinOption, planFileFlag, quickOption, seedOption, withinRunOption } from './options.js';
import { settle, settleSummary } from './settle.js';
import { driftHistory, keepEstimates } from './drift-history.js';
import type { DriftOptions } from '../claims/drift.js';
import { StoreError } from '../store/db.js';
import { openDatabase } from './database.js';

export { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from '../claims/reproduction.js';

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
}

/** The articles --only names (all when absent), in the file's order. */
export function parseOnly(raw: string | undefined, p: Published): Article[] {
  if (raw === undefined) return [...p.articles];
  const ids = raw.split(',').map((s) => s.trim());
  const known = p.articles.map((a) => a.id);
  for (const id of ids) if (!known.includes(id)) throw new UsageError('--only', `unknown article ${JSON.stringify(id)}; expected some of ${known.join(', ')}, comma-separated`);
  return p.articles.filter((a) => ids.includes(a.id));
}

interface Step {
  name: string;
  article: string;
  exp: Experiment<unknown, unknown> | null;
  params: unknown;
  preWarnings: Warning[];
  /** Set when the experiment will not run, or once it ran. */
  state: string | null;
  absent: string | null;
}

function plan(articles: readonly Article[], quick: boolean): Step[] {
  const steps: Step[] = [];
  for (const a of articles)
    for (const name of articleExperiments(a)) {
      if (steps.some((s) => s.name === name)) continue;
      const exp = findExperiment(name) ?? null;
      const step: Step = { name, article: a.id, exp, params: null, preWarnings: [], state: null, absent: null };
      const raw = presetFor(name, quick);
      if (!exp || !raw) {
        step.state = step.absent = 'not available in this forklab';
      } else {
        try {
          step.params = exp.parse(raw);
          step.preWarnings = exp.preflight(step.params);
        } catch (e) {
          if (!(e instanceof UsageError)) throw e;
          step.state = step.absent = `skipped: ${e.message}`;
        }
      }
      steps.push(step);
    }
  return steps;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What a reproduction needs before it measures anything: checked options, the plan, the history. */
interface Prepared {
  articles: Article[];
  /** --settle's budget in seconds, or null. */
  settleS: number | null;
  quick: boolean;
  pinCpu: number | null;
  seed: number;
  runLabel: string | undefined;
  /** Where --json, --html and --markdown go, checked before anything is measured. */
  outputs: { json: OutputTarget | null; html: OutputTarget | null; markdown: OutputTarget | null };
  steps: Step[];
  history: { store: Store; location: DbLocation } | null;
}

function prepare(o: ReproduceOptions, published: Published): Prepared {
  const articles = parseOnly(o.only, published);
  const { pinCpu, seed, label: runLabel, json } = parseCommon({ ...o, json: fileFlagPath(o.json) });
  const outputs = { json, html: planFileFlag('--html', o.html), markdown: planFileFlag('--markdown', o.markdown) };
  const toStdout = [outputs.json, outputs.html, outputs.markdown].filter((t) => t?.kind === 'fd' && t.fd === 1).length;
  if (toStdout > 1) throw new UsageError('--json', 'only one of --json, --html and --markdown can write to standard output');
  const quick = o.quick === true;
  const settleS = o.settle === undefined ? null : Number(o.settle);
  if (settleS !== null && !(Number.isFinite(settleS) && settleS > 0 && settleS <= 86_400))
    throw new UsageError('--settle', `needs a budget in seconds, above 0 and at most 86400 (a day), got ${JSON.stringify(o.settle)}`);
  const steps = plan(articles, quick);
  requireNative(nativePaths());
  return { articles, settleS, quick, pinCpu, seed, runLabel, outputs, steps, history: openHistory(o) };
}

interface Measured {
  docs: RunDocument[];
  runs: (string | RunDocument)[];
  failed: boolean;
  /** 130 (Ctrl-C) or 143 (SIGTERM) when a signal stopped the run, else null. */
  interrupted: number | null;
  /** "interrupted" or "terminated". */
  stoppedBy: string;
}

/** Runs every runnable step in turn, storing each run; Ctrl-C stops between steps and keeps what finished. */
async function measure(p: Prepared, warn: (name: string, w: Warning) => void): Promise<Measured> {
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  const m: Measured = { docs: [], runs: [], failed: false, interrupted: null, stoppedBy: 'interrupted' };
  const runnable = p.steps.filter((s) => s.state === null);
  try {
    for (const [i, s] of runnable.entries()) {
      if (controller.signal.aborted) break;
      const label = `[${i + 1}/${runnable.length}] ${s.name} (article ${s.article})`;
      process.stderr.write(`${label} …\n`);
      for (const w of s.preWarnings) warn(s.name, w);
      const t0 = performance.now();
      try {
        const { run, doc } = await executeExperiment(s.exp!, s.params, {
          pinCpu: p.pinCpu,
          seed: p.seed,
          signal: controller.signal,
          preWarnings: s.preWarnings,
          progressLabel: label,
          store: p.history?.store ?? null,
          label: p.runLabel,
        });
        if (controller.signal.aborted) {
          s.state = s.absent = `${interruptedWord(controller.signal)} before it finished`;
          break;
        }
        const seen = doc.witness ? `; witness: ${formatWitness(doc.witness)}` : '';
        s.state = `ran in ${secs(performance.now() - t0)}${run.complete ? '' : ', incomplete (see warnings)'}`;
        if (!run.complete) m.failed = true;
        for (const w of run.warnings) if (!s.preWarnings.includes(w)) warn(s.name, w);
        m.docs.push(doc);
        m.runs.push(doc.runId ?? doc);
        process.stderr.write(`${label} ${s.state}${seen}\n`);
      } catch (e) {
        m.failed = true;
        s.state = s.absent = `failed: ${(e as Error).message}`;
        process.stderr.write(`${label} ${s.state}\n`);
      }
    }
  } finally {
    stopSignals();
    p.history?.store.close();
  }
  m.interrupted = interruptedStatus(controller.signal);
  m.stoppedBy = interruptedWord(controller.signal);
  for (const s of p.steps) if (s.state === null) s.state = s.absent = `${m.stoppedBy} before it ran`;
  return m;
}

function reproductionDocument(p: Prepared, m: Measured, judged: Judged, startedAt: Date): ReproduceDocument {
  return {
    schema: REPRODUCE_SCHEMA,
    schemaVersion: REPRODUCE_VERSION,
    forklabVersion: FORKLAB_VERSION,
    preset: p.quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    hostname: hostname(),
    ...(p.runLabel ? { label: p.runLabel } : {}),
    articles: judged.articles,
    experiments: p.steps.map((s) => ({ experiment: s.name, state: s.state! })),
    runs: m.runs,
    seed: p.seed,
    ...(judged.withinRun ? { withinRun: true } : {}),
    verdicts: judged.verdicts,
    figures: judged.figures,
  };
}

/** Keeps the reproduction in the history beside its runs; a database problem is a warning, the verdicts are printed anyway. */
function storeReproduction(o: ReproduceOptions, doc: ReproduceDocument): number | null {
  const uuids = doc.runs.filter((r): r is string => typeof r === 'string');
  if (uuids.length === 0 || o.store === false) return null;
  try {
    const store = openHistory(o)!.store;
    try {
      return store.addReproduction({
        startedAt: doc.startedAt,
        finishedAt: doc.finishedAt,
        preset: doc.preset,
        label: doc.label ?? null,
        hostname: hostname(),
        runUuids: uuids,
        document: doc,
      });
    } finally {
      store.close();
    }
  } catch (e) {
    process.stderr.write(`warning: the reproduction could not be stored in the history (${(e as Error).message}); its runs are stored, and --json FILE keeps the verdicts\n`);
    return null;
  }
}

/** Writes one output where its flag asked; a failed write says how to get the runs out of the history. */
function writeOne(flag: string, target: OutputTarget, text: string, doc: ReproduceDocument, stored: number | null): void {
  try {
    writeOutput(flag, target, text);
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    if (e.errno === 'EPIPE') process.exit(BROKEN_PIPE_STATUS);
    const ids = doc.runs.filter((r): r is string => typeof r === 'string').map((r) => r.slice(0, 8));
    const hint =
      stored !== null
        ? `the reproduction is stored as R${stored}: forklab report R${stored} ${flag} FILE writes it again`
        : ids.length
          ? `the runs are stored (${ids.join(', ')}): forklab export RUN writes each`
          : undefined;
    throw new OutputError(e.display, e.errno, `${flag}: ${e.message}`, hint);
  }
  if (target.kind !== 'fd') process.stderr.write(`forklab reproduce: wrote ${target.display}\n`);
}

/** --json, --html FILE and --markdown FILE: the document, and the reproduction as a report, summary first. */
async function writeOutputs(p: Prepared, doc: ReproduceDocument, runs: readonly RunDocument[], stored: number | null): Promise<void> {
  const { json, html, markdown } = p.outputs;
  if (json) writeOne('--json', json, `${JSON.stringify(doc, null, 1)}\n`, doc, stored);
  if (!html && !markdown) return;
  const { reproductionHtml, reproductionMarkdown } = await import('../report/reproduction.js');
  if (html) writeOne('--html', html, await reproductionHtml(doc, runs), doc, stored);
  if (markdown) writeOne('--markdown', markdown, reproductionMarkdown(doc, runs), doc, stored);
}

/** --settle: the looks at what the inconclusive verdicts rest on (src/cli/settle.ts); their runs join the reproduction's. */
async function settleOpen(
  o: ReproduceOptions,
  p: Prepared,
  m: Measured,
  judged: Judged,
  absent: Record<string, string>,
  published: Published,
  warn: (name: string, w: Warning) => void,
  drift: DriftOptions,
): Promise<{ judged: Judged; text: string }> {
  const before = judged.verdicts.filter((v) => v.verdict === 'inconclusive').length;
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  const history = openHistory(o);
  try {
    const s = await settle({
      steps: p.steps.map((x) => ({ name: x.name, exp: x.state?.startsWith('ran') ? x.exp : null, params: x.params })),
      docs: m.docs,
      judged,
      budgetS: p.settleS!,
      seed: p.seed,
      pinCpu: p.pinCpu,
      articles: p.articles.map((a) => a.id),
      absent,
      published,
      signal: controller.signal,
      store: history?.store ?? null,
      label: p.runLabel,
      warn,
      drift,
    });
    for (const d of s.added) {
      m.docs.push(d);
      m.runs.push(d.runId ?? d);
    }
    if (controller.signal.aborted) m.interrupted = interruptedStatus(controller.signal);
    return { judged: s.judged, text: settleSummary(s, p.settleS!, before) };
  } finally {
    stopSignals();
    history?.store.close();
  }
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

export async function runReproduce(o: ReproduceOptions): Promise<number> {
  const published = loadPublished();
  const p = prepare(o, published);
  const c = paintsFor(o.color);
  const warn = (name: string, w: Warning) => process.stderr.write(`${c.yellow('warning')} (${name}): ${w.message}\n`);
  process.stderr.write(`${await doctorSummaryLine()}\n`);
  const startedAt = new Date();
  const m = await measure(p, warn);
  // Verdicts and figures of the chosen articles only: the same path as `forklab judge`, every interval widened by
  // this machine's drift between runs, learnt from its earlier runs (docs/reproduce.md, "Drift between runs").
  const absent = Object.fromEntries(p.steps.filter((s) => s.absent !== null).map((s) => [s.name, s.absent!]));
  const history = driftStore(o);
  let judged: Judged;
  let settled = '';
  try {
    const note = (s: string) => process.stderr.write(`${s}\n`);
    const drift: DriftOptions = o.withinRun ? { withinRun: true } : driftHistory(history, m.docs, { keep: o.store !== false, seed: p.seed, note });
    judged = judgeDocuments(m.docs, { articles: p.articles.map((a) => a.id), seed: p.seed, absent, drift }, published);
    if (p.settleS !== null && m.interrupted === null) {
      const s = await settleOpen(o, p, m, judged, absent, published, warn, drift);
      judged = s.judged;
      settled = s.text;
    }
    // Kept with --within-run too: the runs are in the history, and later verdicts learn from them.
    if (history && o.store !== false) keepEstimates(history, m.docs, judged);
  } finally {
    history?.close();
  }
  if (m.interrupted !== null) process.stderr.write(`forklab reproduce: ${m.stoppedBy}; what finished:\n`);
  const statuses = p.steps.map((s) => ({ experiment: s.name, state: s.state! }));
  const footer = `preset: ${p.quick ? 'quick (--quick)' : 'full (the articles’ settings)'}; seed ${p.seed}; total ${secs(Date.now() - startedAt.getTime())}`;
  const { json, html, markdown } = p.outputs;
  const ownsStdout = [json, html, markdown].some((t) => t?.kind === 'fd' && t.fd === 1);
  (ownsStdout ? process.stderr : process.stdout).write(renderSummary(judged, statuses, c, footer, o.verbose === true) + (settled ? `\n${settled}` : '')); // a document on stdout owns it
  const doc = reproductionDocument(p, m, judged, startedAt);
  const id = storeReproduction(o, doc);
  if (id !== null) process.stderr.write(`forklab reproduce: stored as reproduction R${id} with its runs (forklab report R${id} --html report.html)\n`);
  await writeOutputs(p, doc, m.docs, id);
  if (m.interrupted !== null) return m.interrupted;
  return m.failed ? 1 : 0;
}

export function registerReproduceCommand(program: Command): void {
  program
    .command('reproduce')
    .description('run every experiment at the articles’ settings and judge each published claim on this machine (docs/reproduce.md)')
    .addOption(quickOption())
    .option('--only <articles>', 'only these articles, comma-separated: 000,001,002,003,004')
    .addOption(dbOption())
    .addOption(noStoreOption())
    .addOption(labelOption())
    .addOption(fileOption('--html', 'write the reproduction as one self-contained HTML report: the answer first, then per article its figures, verdicts and charts'))
    .addOption(fileOption('--markdown', 'write the same report as Markdown'))
    .addOption(fileOption('--json', 'write the verdicts, the figures and the runs (ids, or whole documents when not stored) as JSON'))
    .addOption(pinOption())
    .addOption(seedOption())
    .option('--verbose', "each claim's id, kind and the formula it was judged by, besides the article's sentence")
    .option(
      '--settle <seconds>',
      'then measure again, in fresh probes, only what the inconclusive verdicts rest on, look after look at a stricter confidence, until each is decided or this many seconds are spent',
    )
    .addOption(withinRunOption())
    .addOption(noColorOption())
    .action(async (opts: ReproduceOptions) => {
      process.exitCode = await runReproduce({ ...opts, color: opts.color === false ? false : undefined, store: opts.store === false ? false : undefined });
    });
}
