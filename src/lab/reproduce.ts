// The life of a reproduction: the experiments of the chosen articles planned at a preset, run one after another
// (each stored as it runs), every claim judged on them with this machine's drift between runs, optionally settled
// (src/lab/settle.ts), and the reproduction document kept in the history. A typed plan in, a typed result out: no
// command-line parsing, no printing (lines go to callbacks), no process.exit. docs/reproduce.md.
import { hostname } from 'node:os';
import type { Experiment, Warning } from '../experiments/contract/types.js';
import { UsageError } from '../errors.js';
import { findSweep, reproducePresetFor } from '../experiments/index.js';
import type { RunDocument } from '../document/run.js';
import { articleExperiments, type Article, type Published, type Source } from '../reference/published.js';
import { formatWitness } from '../env/witness.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from '../claims/reproduction.js';
import { judgeDocuments, type Judged } from '../claims/judge.js';
import type { DriftOptions } from '../claims/drift.js';
import type { Store } from '../store/db.js';
import { FORKLAB_VERSION } from '../version.js';
import { runExperiment, type ProgressDisplay } from './experiment.js';
import { interruptedStatus, interruptedWord, type StoppedBy } from './interrupted.js';
import { settle, settleSummary } from './settle.js';
import { driftHistory, keepEstimates } from './drift-history.js';

/** The articles --only names (all when absent), in the file's order. */
export function parseOnly(raw: string | undefined, p: Published): Article[] {
  if (raw === undefined) return [...p.articles];
  const ids = raw.split(',').map((s) => s.trim());
  const known = p.articles.map((a) => a.id);
  const sources = p.sources.map((x) => x.id);
  for (const id of ids)
    if (!known.includes(id) && !sources.includes(id))
      throw new UsageError('--only', `unknown article ${JSON.stringify(id)}; expected some of ${known.join(', ')} or of the sources ${sources.join(', ')}, comma-separated`);
  return p.articles.filter((a) => ids.includes(a.id));
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What became of one experiment of a reproduction. */
export type StepState =
  /** It will run (or is running). */
  | { kind: 'planned' }
  /** This forklab has no such experiment, or no preset for it. */
  | { kind: 'unavailable' }
  /** An experiment that reproduce does not run at this preset (why: said in full, as the experiment words it). */
  | { kind: 'notReproduced'; why: string }
  /** Its preset does not fit this machine (the preflight's or the parser's problem). */
  | { kind: 'skipped'; why: string }
  | { kind: 'ran'; durationMs: number; complete: boolean }
  | { kind: 'failed'; error: string }
  /** Ctrl-C or SIGTERM ('interrupted', 'terminated') stopped the reproduction before it ran or before it finished. */
  | { kind: 'stopped'; by: StoppedBy; started: boolean };

/** A step's state in words, as the summary and the reproduction document say it ("ran in 12.3 s", "skipped: …"). */
export function stepWords(s: StepState): string {
  switch (s.kind) {
    case 'planned':
      return 'not run yet';
    case 'unavailable':
      return 'not available in this forklab';
    case 'notReproduced':
      return s.why;
    case 'skipped':
      return `skipped: ${s.why}`;
    case 'ran':
      return `ran in ${secs(s.durationMs)}${s.complete ? '' : ', incomplete (see warnings)'}`;
    case 'failed':
      return `failed: ${s.error}`;
    case 'stopped':
      return `${s.by} ${s.started ? 'before it finished' : 'before it ran'}`;
  }
}

/** Why a step has no run for the claims to judge (the claims' `absent`); null when it ran (or will). */
export const absentWhy = (s: StepState): string | null => (s.kind === 'ran' || s.kind === 'planned' ? null : stepWords(s));
/** The sources --only names (all when absent), in the file's order: their claims are judged after the articles'. */
export function parseOnlySources(raw: string | undefined, p: Published): Source[] {
  if (raw === undefined) return [...p.sources];
  const ids = raw.split(',').map((s) => s.trim());
  return p.sources.filter((x) => ids.includes(x.id));
}

/** One experiment of a reproduction: its parameters at the preset, or why it will not run; then what became of it. */
export interface Step {
  name: string;
  /** The article whose experiment it is ('' for an experiment only a source names). */
  article: string;
  /** The source that asked for it, when no chosen article did. */
  source?: string;
  exp: Experiment<unknown, unknown> | null;
  params: unknown;
  preWarnings: Warning[];
  state: StepState;
}

/** The experiments of the articles, then of the sources, at the preset (quick or full), each once, parsed and preflighted now. */
export function planSteps(articles: readonly Article[], quick: boolean, sources: readonly Source[] = []): Step[] {
  const steps: Step[] = [];
  const wanted = [
    ...articles.flatMap((a) => articleExperiments(a).map((name) => ({ name, article: a.id, source: undefined as string | undefined }))),
    ...sources.flatMap((x) => x.experiment.map((name) => ({ name, article: '', source: x.id as string | undefined }))),
  ];
  for (const { name, article, source } of wanted) {
    if (steps.some((s) => s.name === name)) continue;
    const exp = findSweep(name) ?? null;
    const step: Step = { name, article, ...(source ? { source } : {}), exp, params: null, preWarnings: [], state: { kind: 'planned' } };
    // An experiment may run with settings of its own in a reproduction, or not at one preset (it says why).
    const raw = reproducePresetFor(name, quick);
    if (raw !== null && 'notRun' in raw) {
      step.state = { kind: 'notReproduced', why: raw.notRun };
    } else if (!exp || !raw) {
      step.state = { kind: 'unavailable' };
    } else {
      try {
        step.params = exp.parse(raw);
        step.preWarnings = exp.preflight(step.params);
      } catch (e) {
        if (!(e instanceof UsageError)) throw e;
        step.state = { kind: 'skipped', why: e.message };
      }
    }
    steps.push(step);
  }
  return steps;
}

/** What a reproduction was asked, checked by the caller before anything runs. */
export interface ReproductionPlan {
  articles: Article[];
  /** The sources beyond the articles whose claims are judged too (their experiments run after the articles'). */
  sources?: Source[];
  steps: Step[];
  quick: boolean;
  pinCpu: number | null | 'default';
  seed: number;
  label: string | undefined;
  /** --settle's budget in seconds, or null. */
  settleS: number | null;
  /** Today's intervals alone, without this machine's drift between runs. */
  withinRun: boolean;
  /** The verdicts on this machine's value: the run pooled with the machine's earlier runs (false: --no-pool). */
  pool?: boolean;
  /** Whether the runs, the estimates and the reproduction are kept in the history (false with --no-store). */
  keep: boolean;
}

export interface ReproductionContext {
  published: Published;
  /** The history the runs are stored in, opened by the caller before anything (null: not stored); closed here once they are measured. */
  history: Store | null;
  /** The same history opened again, for the phases after measuring that write (settling, keeping the reproduction). */
  openHistory(): Store | null;
  /** The history the verdicts learn the drift from (read, and written when `keep`); null: none. */
  openDriftStore(): Store | null;
  /** Runs one phase with Ctrl-C and SIGTERM turned into an abort of its signal. */
  interruptible<T>(phase: (signal: AbortSignal) => Promise<T>): Promise<{ value: T; signal: AbortSignal }>;
  /** A line of progress for the user; a warning of one experiment. */
  note(line: string): void;
  warn(name: string, w: Warning): void;
  progress?: ProgressDisplay;
}

export interface Reproduction {
  steps: Step[];
  docs: RunDocument[];
  judged: Judged;
  /** The settling paragraph (empty without --settle). */
  settled: string;
  document: ReproduceDocument;
  /** The reproduction's number in the history, or null when it was not stored. */
  storedId: number | null;
  /** A warning when the reproduction could not be stored (its runs are). */
  storeProblem: string | null;
  failed: boolean;
  /** 130 (Ctrl-C) or 143 (SIGTERM) when a signal stopped it, else null; and the word for it. */
  interrupted: number | null;
  stoppedBy: StoppedBy;
  startedAt: Date;
}

interface Measured {
  docs: RunDocument[];
  runs: (string | RunDocument)[];
  failed: boolean;
  interrupted: number | null;
  stoppedBy: StoppedBy;
}

/** Runs every runnable step in turn, storing each run; an abort stops between steps and keeps what finished. */
async function measure(plan: ReproductionPlan, ctx: ReproductionContext): Promise<Measured> {
  const m: Measured = { docs: [], runs: [], failed: false, interrupted: null, stoppedBy: 'interrupted' };
  const runnable = plan.steps.filter((s) => s.state.kind === 'planned');
  const history = ctx.history;
  const { signal } = await ctx.interruptible(async (signal) => {
    try {
      for (const [i, s] of runnable.entries()) {
        if (signal.aborted) break;
        const step = `[${i + 1}/${runnable.length}] ${s.name}`;
        const label = `${step} (${s.source ? `source ${s.source}` : `article ${s.article}`})`;
        ctx.note(`${label} …`);
        for (const w of s.preWarnings) ctx.warn(s.name, w);
        const t0 = performance.now();
        try {
          const { run, doc } = await runExperiment(s.exp!, s.params, {
            pinCpu: plan.pinCpu,
            seed: plan.seed,
            signal,
            preWarnings: s.preWarnings,
            progress: ctx.progress,
            progressLabel: step, // its article or source is in the line above: every step's line stays short
            store: history,
            label: plan.label,
          });
          if (signal.aborted) {
            s.state = { kind: 'stopped', by: interruptedWord(signal), started: true };
            break;
          }
          const seen = doc.witness ? `; witness: ${formatWitness(doc.witness)}` : '';
          s.state = { kind: 'ran', durationMs: performance.now() - t0, complete: run.complete };
          if (!run.complete) m.failed = true;
          for (const w of run.warnings) if (!s.preWarnings.includes(w)) ctx.warn(s.name, w);
          m.docs.push(doc);
          m.runs.push(doc.runId ?? doc);
          ctx.note(`${label} ${stepWords(s.state)}${seen}`);
        } catch (e) {
          m.failed = true;
          s.state = { kind: 'failed', error: (e as Error).message };
          ctx.note(`${label} ${stepWords(s.state)}`);
        }
      }
    } finally {
      history?.close();
    }
  });
  m.interrupted = interruptedStatus(signal);
  m.stoppedBy = interruptedWord(signal);
  for (const s of plan.steps) if (s.state.kind === 'planned') s.state = { kind: 'stopped', by: m.stoppedBy, started: false };
  return m;
}

/** --settle: the looks at what the inconclusive verdicts rest on; their runs join the reproduction's. */
async function settleOpen(
  plan: ReproductionPlan,
  ctx: ReproductionContext,
  m: Measured,
  judged: Judged,
  absent: Record<string, string>,
  drift: DriftOptions,
): Promise<{ judged: Judged; text: string }> {
  const before = judged.verdicts.filter((v) => v.verdict === 'inconclusive').length;
  const history = ctx.openHistory();
  try {
    const { value: s, signal } = await ctx.interruptible((signal) =>
      settle({
        steps: plan.steps.map((x) => ({ name: x.name, exp: x.state.kind === 'ran' ? x.exp : null, params: x.params })),
        docs: m.docs,
        judged,
        budgetS: plan.settleS!,
        seed: plan.seed,
        pinCpu: plan.pinCpu,
        articles: plan.articles.map((a) => a.id),
        sources: (plan.sources ?? []).map((x) => x.id),
        absent,
        published: ctx.published,
        signal,
        store: history,
        label: plan.label,
        warn: ctx.warn,
        note: ctx.note,
        progress: ctx.progress,
        drift,
      }),
    );
    for (const d of s.added) {
      m.docs.push(d);
      m.runs.push(d.runId ?? d);
    }
    if (signal.aborted) m.interrupted = interruptedStatus(signal);
    return { judged: s.judged, text: settleSummary(s, plan.settleS!, before) };
  } finally {
    history?.close();
  }
}

function reproductionDocument(plan: ReproductionPlan, m: Measured, judged: Judged, startedAt: Date): ReproduceDocument {
  return {
    schema: REPRODUCE_SCHEMA,
    schemaVersion: REPRODUCE_VERSION,
    forklabVersion: FORKLAB_VERSION,
    preset: plan.quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    hostname: hostname(),
    ...(plan.label ? { label: plan.label } : {}),
    articles: judged.articles,
    ...(judged.sources ? { sources: judged.sources } : {}),
    experiments: plan.steps.map((s) => ({ experiment: s.name, state: stepWords(s.state) })),
    runs: m.runs,
    seed: plan.seed,
    ...(judged.withinRun ? { withinRun: true } : {}),
    verdicts: judged.verdicts,
    figures: judged.figures,
  };
}

/** Keeps the reproduction in the history beside its runs; a database problem is returned, the verdicts stand anyway. */
function storeReproduction(plan: ReproductionPlan, ctx: ReproductionContext, doc: ReproduceDocument): { id: number | null; problem: string | null } {
  const uuids = doc.runs.filter((r): r is string => typeof r === 'string');
  if (uuids.length === 0 || !plan.keep) return { id: null, problem: null };
  try {
    const store = ctx.openHistory()!;
    try {
      const id = store.addReproduction({
        startedAt: doc.startedAt,
        finishedAt: doc.finishedAt,
        preset: doc.preset,
        label: doc.label ?? null,
        hostname: hostname(),
        runUuids: uuids,
        document: doc,
      });
      return { id, problem: null };
    } finally {
      store.close();
    }
  } catch (e) {
    return { id: null, problem: (e as Error).message };
  }
}

/** The whole reproduction: measure, judge (with the drift between runs), settle when asked, keep. */
export async function reproduce(plan: ReproductionPlan, ctx: ReproductionContext): Promise<Reproduction> {
  const startedAt = new Date();
  const m = await measure(plan, ctx);
  // Verdicts and figures of the chosen articles only: the same path as `forklab judge`, every interval widened by
  // this machine's drift between runs, learnt from its earlier runs (docs/reproduce.md, "Drift between runs").
  const absent = Object.fromEntries(
    plan.steps.flatMap((s) => {
      const why = absentWhy(s.state);
      return why === null ? [] : [[s.name, why]];
    }),
  );
  const history = ctx.openDriftStore();
  let judged: Judged;
  let settled = '';
  try {
    const drift: DriftOptions = plan.withinRun
      ? { withinRun: true }
      : driftHistory(history, m.docs, { keep: plan.keep, seed: plan.seed, note: ctx.note, pool: plan.pool !== false });
    judged = judgeDocuments(m.docs, { articles: plan.articles.map((a) => a.id), sources: (plan.sources ?? []).map((x) => x.id), seed: plan.seed, absent, drift }, ctx.published);
    if (plan.settleS !== null && m.interrupted === null) {
      const s = await settleOpen(plan, ctx, m, judged, absent, drift);
      judged = s.judged;
      settled = s.text;
    }
    // Kept with --within-run too: the runs are in the history, and later verdicts learn from them.
    if (history && plan.keep) keepEstimates(history, m.docs, judged);
  } finally {
    history?.close();
  }
  const document = reproductionDocument(plan, m, judged, startedAt);
  const stored = storeReproduction(plan, ctx, document);
  return {
    steps: plan.steps,
    docs: m.docs,
    judged,
    settled,
    document,
    storedId: stored.id,
    storeProblem: stored.problem,
    failed: m.failed,
    interrupted: m.interrupted,
    stoppedBy: m.stoppedBy,
    startedAt,
  };
}
