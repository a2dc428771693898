// `forklab reproduce [--quick] [--only 000,001] [--db PATH] [--json FILE]`: runs every experiment at the
// articles' settings (or a quick preset), then prints per article its headline figures beside this
// machine's and a verdict on every published claim. docs/reproduce.md.
import { Option, type Command } from 'commander';
import pc from 'picocolors';
import { findExperiment } from '../experiments/index.js';
import { UsageError, type Experiment, type Warning } from '../experiments/types.js';
import { nativePaths, requireNative } from '../runner/paths.js';
import { writeFileAtomic, type RunDocument } from '../report/document.js';
import { articleExperiments, loadPublished, type Article, type Published } from '../reference/published.js';
import { evaluateClaims, type Verdict } from '../claims/evaluate.js';
import { compareFigures, type FigureComparison } from '../claims/figures.js';
import { presetFor } from '../claims/presets.js';
import { PLAIN, renderArticle, renderTotals, type ExperimentStatus, type Paints } from '../claims/render.js';
import { CliError, executeExperiment, onInterrupt, openHistory, parseCommon } from './run.js';
import { doctorSummaryLine } from './doctor.js';
import type { Store } from '../store/db.js';
import { FORKLAB_VERSION } from '../version.js';
import { DB_HELP, LABEL_HELP } from './options.js';

export const REPRODUCE_SCHEMA = 'forklab.reproduce';
export const REPRODUCE_VERSION = 1;

export interface ReproduceOptions {
  quick?: boolean;
  only?: string;
  db?: string;
  json?: string;
  label?: string;
  pin?: string;
  seed?: string;
  color?: boolean;
}

export interface ReproduceDocument {
  schema: typeof REPRODUCE_SCHEMA;
  schemaVersion: typeof REPRODUCE_VERSION;
  forklabVersion: string;
  preset: 'quick' | 'full';
  startedAt: string;
  finishedAt: string;
  articles: string[];
  experiments: ExperimentStatus[];
  /** Per experiment that ran: the stored run's id, or the whole run document when it was not stored. */
  runs: (string | RunDocument)[];
  verdicts: Verdict[];
  figures: FigureComparison[];
}

/** The articles --only names (all when absent), in the file's order. */
export function parseOnly(raw: string | undefined, p: Published): Article[] {
  if (raw === undefined) return [...p.articles];
  const ids = raw.split(',').map((s) => s.trim());
  const known = p.articles.map((a) => a.id);
  for (const id of ids)
    if (!known.includes(id)) throw new UsageError('--only', `unknown article ${JSON.stringify(id)}; expected some of ${known.join(', ')}, comma-separated`);
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

export async function runReproduce(o: ReproduceOptions): Promise<number> {
  const published = loadPublished();
  const quick = o.quick === true;
  let articles: Article[];
  let pinCpu: number | null;
  let seed: number;
  let runLabel: string | undefined;
  try {
    articles = parseOnly(o.only, published);
    ({ pinCpu, seed, label: runLabel } = parseCommon(o));
  } catch (e) {
    if (e instanceof UsageError) throw new CliError(`forklab reproduce: ${e.message}`);
    throw e;
  }
  let steps: Step[];
  let history: Store;
  try {
    steps = plan(articles, quick);
    requireNative(nativePaths());
    history = openHistory(o.db);
  } catch (e) {
    if (e instanceof UsageError) throw new CliError(`forklab reproduce: ${e.message}`);
    throw e;
  }
  const color = o.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  const c: Paints = color ? pc : PLAIN;
  const warn = (name: string, w: Warning) => process.stderr.write(`${color ? pc.yellow('warning') : 'warning'} (${name}): ${w.message}\n`);
  process.stderr.write(`${await doctorSummaryLine()}\n`);

  const startedAt = new Date();
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  const docs: RunDocument[] = [];
  const runs: (string | RunDocument)[] = [];
  let failed = false;
  const runnable = steps.filter((s) => s.state === null);
  try {
    for (const [i, s] of runnable.entries()) {
      if (controller.signal.aborted) break;
      const label = `[${i + 1}/${runnable.length}] ${s.name} (article ${s.article})`;
      process.stderr.write(`${label} …\n`);
      for (const w of s.preWarnings) warn(s.name, w);
      const t0 = performance.now();
      try {
        const { run, doc } = await executeExperiment(s.exp!, s.params, { pinCpu, seed, signal: controller.signal, preWarnings: s.preWarnings, progressLabel: label, store: history, label: runLabel });
        if (controller.signal.aborted) {
          s.state = s.absent = 'interrupted (Ctrl-C) before it finished';
          break;
        }
        s.state = `ran in ${secs(performance.now() - t0)}${run.complete ? '' : ', incomplete (see warnings)'}`;
        if (!run.complete) failed = true;
        for (const w of run.warnings) if (!s.preWarnings.includes(w)) warn(s.name, w);
        docs.push(doc);
        runs.push(doc.runId ?? doc);
        process.stderr.write(`${label} ${s.state}\n`);
      } catch (e) {
        failed = true;
        s.state = s.absent = `failed: ${(e as Error).message}`;
        process.stderr.write(`${label} ${s.state}\n`);
      }
    }
  } finally {
    stopSignals();
    history.close();
  }
  const interrupted = controller.signal.aborted;
  for (const s of steps) if (s.state === null) s.state = s.absent = 'interrupted (Ctrl-C) before it ran';

  // Verdicts and figures of the chosen articles only.
  const ids = new Set(articles.map((a) => a.id));
  const absent = Object.fromEntries(steps.filter((s) => s.absent !== null).map((s) => [s.name, s.absent!]));
  const claims = published.claims.filter((cl) => ids.has(cl.article));
  const verdicts = evaluateClaims(docs, claims, { seed, absent });
  const figures = compareFigures(docs, published.figures.filter((f) => ids.has(f.article)), { claims, verdicts, seed, absent });

  if (interrupted) process.stderr.write('forklab reproduce: interrupted; what finished:\n');
  const sections = articles.map((a) =>
    renderArticle(
      a,
      steps.filter((s) => (articleExperiments(a) as string[]).includes(s.name)).map((s) => ({ experiment: s.name, state: s.state! })),
      figures.filter((f) => f.article === a.id),
      verdicts.filter((v) => v.article === a.id),
      c,
    ),
  );
  process.stdout.write(`${sections.join('\n\n')}\n\n${renderTotals(verdicts, c)}\n`);
  process.stdout.write(c.dim(`preset: ${quick ? 'quick (--quick)' : 'full (the articles’ settings)'}; total ${secs(Date.now() - startedAt.getTime())}\n`));

  if (o.json !== undefined) {
    const out: ReproduceDocument = {
      schema: REPRODUCE_SCHEMA,
      schemaVersion: REPRODUCE_VERSION,
      forklabVersion: FORKLAB_VERSION,
      preset: quick ? 'quick' : 'full',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      articles: [...ids],
      experiments: steps.map((s) => ({ experiment: s.name, state: s.state! })),
      runs,
      verdicts,
      figures,
    };
    writeFileAtomic(o.json, JSON.stringify(out, null, 1) + '\n');
    process.stderr.write(`forklab reproduce: wrote ${o.json}\n`);
  }
  if (interrupted) return 130;
  return failed ? 1 : 0;
}


export function registerReproduceCommand(program: Command): void {
  program
    .command('reproduce')
    .description('run every experiment at the articles’ settings and judge each published claim on this machine (docs/reproduce.md)')
    .option('--quick', 'a short run (under a minute on 2 cores) that measures every configuration the claims need, for less time')
    .option('--only <articles>', 'only these articles, comma-separated: 000,001,002,003,004')
    .option('--db <path>', DB_HELP)
    .option('--label <text>', LABEL_HELP)
    .option('--json <file>', 'write the verdicts, the figures and the runs (ids, or whole documents when not stored) as JSON')
    .option('--pin <cpu>', 'pin the probes and their children to this CPU (on 2 cores this changes results several-fold)')
    .addOption(new Option('--seed <n>', 'seed for interleaving order and bootstrap intervals').default('1', '1'))
    .option('--no-color', 'no ANSI colours')
    .action(async (opts: ReproduceOptions) => {
      process.exitCode = await runReproduce({ ...opts, color: opts.color === false ? false : undefined });
    });
}
