// The life of one trace: observe the command (or the attached process) under the tracer, read what it saw into
// the model and the per-process figures, price the forks with this machine's cost model, measure the tracer's
// own cost, summarise, store in the history, and build the document and the view. A typed plan in, a typed
// result out: no command-line parsing, no printing (progress goes to a callback), no process.exit.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { hostname, tmpdir, constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { ForklabError, UsageError } from '../errors.js';
import { nativePaths } from '../runner/paths.js';
import { resolveTarget } from '../runner/target.js';
import { collectMachine, sampleLoad } from '../env/machine.js';
import { parseStrace } from '../experiments/trace/strace.js';
import { buildModel } from '../experiments/trace/model.js';
import { processFigures } from '../experiments/trace/figures.js';
import { observe, type Observation, type Tracer } from '../experiments/trace/observe.js';
import { measureModel, measureOverhead, modelSizesMb, type Overhead } from '../experiments/trace/calibrate.js';
import type { SpawnModel } from '../experiments/trace/cost.js';
import { summarize, traceMeasurements, type ModelState, type TraceSummary } from '../experiments/trace/summary.js';
import { traceView } from '../experiments/trace/view.js';
import { installRecorders, readRecords, recordingEnv } from '../experiments/trace/recorder.js';
import { siteSummary } from '../experiments/trace/coverage.js';
import { FrameReader } from '../experiments/trace/stack.js';
import { hasModel } from '../experiments/trace/summary.js';
import { MODEL_EXPERIMENT, MODEL_NEEDS, modelFromStoredRun } from '../experiments/trace/stored.js';
import { traceRecording } from '../experiments/trace/index.js';
import type { Block } from '../experiments/contract/view.js';
import type { ExperimentRun, Warning } from '../experiments/contract/types.js';
import type { RunDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import { HistoryWriter } from './history-writer.js';

/** What to trace and how, checked by the caller before anything runs. */
export interface TracePlan {
  /** A command to run (its resolved path first), or a running process to attach to. */
  mode: { command: string[] } | { pid: number; durationMs: number | null };
  label: string | undefined;
  /** Where the cost of fork against posix_spawn comes from: a stored run of this machine, a short run now, a named run, or none. */
  model: 'auto' | 'measure' | 'none' | { run: string };
  sampleMs: number;
  overheadIterations: number;
  /** Where to keep the tracer's raw output; null: it is removed. */
  keepTrace: string | null;
  /** Give the command's Node and Python processes the call-site recorders (a command only: --pid cannot). */
  recorders: boolean;
  /**
   * Ask strace for each creating call's native frames (-k), where this strace can. Off unless asked: strace unwinds
   * every traced call of every process, and a large binary's first unwind in each new process is slow (a Node child's
   * about 0.5–0.9 s on the machine this was built on).
   */
  nativeStacks: boolean;
}

export interface TraceContext {
  tracer: Tracer;
  /** The history the trace is stored in (and the cost model read from); null: not stored. */
  store: Store | null;
  /** A line of progress for the user (the caller decides where it goes). */
  progress?(line: string): void;
}

export interface TraceResult {
  summary: TraceSummary;
  document: RunDocument;
  /** What the trace shows, the answer first (src/report renders it for a terminal, Markdown or HTML). */
  view: Block[];
  /** Warnings of the run (a history that could not be written, say). */
  warnings: Warning[];
  /** The status forklab ends with: the command's (128 + signal when one killed it); attached: 0, or 130 after Ctrl-C. */
  status: number;
}

/** The command to trace, its program resolved to a path (as the shell would find it); a UsageError naming COMMAND when it cannot be run. */
export function resolveCommand(command: readonly string[]): string[] {
  try {
    const target = resolveTarget(command[0]!, command.slice(1));
    return [target.path, ...target.args];
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError('COMMAND', e.message.replace(/^--target: /, ''), e.hint?.replace(/--target /g, ''));
    throw e;
  }
}

/** The stored run the model uses (of MODEL_EXPERIMENT): the one named, else the latest complete one of this machine; null when none. */
function storedModel(store: Store, ref: string | null): SpawnModel | null {
  const rows = ref
    ? [store.listRuns().find((r) => r.id === store.resolveRun(ref))!]
    : store.listRuns({ experiment: MODEL_EXPERIMENT }).filter((r) => r.status === 'complete' && r.hostname === hostname() && !r.imported);
  for (const row of rows.sort((a, b) => b.startedAt.localeCompare(a.startedAt))) {
    const doc = store.getDocument(row.id);
    if (doc.experiment !== MODEL_EXPERIMENT) throw new UsageError('--model', `run ${ref} is a ${doc.experiment} run; give a ${MODEL_EXPERIMENT} run`);
    const m = doc.summary ? modelFromStoredRun(doc.summary, row.uuid, row.startedAt) : null;
    if (m) return m;
    if (ref) throw new UsageError('--model', `${MODEL_EXPERIMENT} run ${ref} has no ${MODEL_NEEDS}`);
  }
  return null;
}

async function costModel(plan: TracePlan, store: Store | null, largestRssMb: number | null): Promise<ModelState> {
  if (plan.model === 'none') return { state: 'none', reason: '--model none' };
  if (plan.model !== 'measure' && store) {
    const m = storedModel(store, typeof plan.model === 'object' ? plan.model.run : null);
    if (m) return m;
  }
  if (plan.model !== 'auto' && plan.model !== 'measure') return { state: 'none', reason: 'the named run is not in this history' };
  const got = await measureModel({ native: nativePaths(), sizesMb: modelSizesMb(largestRssMb), iterations: 30 });
  return typeof got === 'string' ? { state: 'none', reason: `a short spawn run failed: ${got}` } : got;
}

const exitStatus = (o: Observation): number => {
  if (o.exit.signal) return 128 + (osConstants.signals[o.exit.signal] ?? 0);
  return o.exit.code ?? 1;
};

function readExe(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Runs the whole trace; the command's own failure is a result (its status), never a rejection. */
export async function runTrace(plan: TracePlan, ctx: TraceContext): Promise<TraceResult> {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-trace-'));
  const outFile = join(dir, 'strace.out');
  const startedAt = new Date();
  const loadBefore = sampleLoad();
  const attach = 'pid' in plan.mode;
  // The attached process's program, read now: strace sees no exec of it, and it may end while traced.
  const known: Record<number, string> = {};
  const rootExe = 'pid' in plan.mode ? readExe(plan.mode.pid) : null;
  if (rootExe && 'pid' in plan.mode) known[plan.mode.pid] = rootExe;
  try {
    // The recorders go into the command's environment; a running process cannot be given one.
    const installed = attach || !plan.recorders ? null : installRecorders(dir);
    const recordersOff = attach
      ? '--pid: a running process cannot be given a recorder (it loads when the process starts), so this is what strace alone sees'
      : !plan.recorders
        ? '--no-recorders'
        : typeof installed === 'string'
          ? installed
          : null;
    const recorder = installed && typeof installed === 'object' ? installed : null;
    const stacks: { on: true } | { on: false; reason: string } = !plan.nativeStacks
      ? { on: false, reason: 'native stacks are off (--native-stacks asks strace -k for them)' }
      : ctx.tracer.stackTraces
        ? { on: true }
        : { on: false, reason: 'this strace cannot unwind a call (it was built without stack traces: no -k)' };
    const obs = await observe({
      tracer: ctx.tracer,
      outFile,
      sampleMs: plan.sampleMs,
      mode: plan.mode,
      stacks: stacks.on,
      ...(recorder ? { env: recordingEnv(process.env, recorder) } : {}),
    });
    if ('pid' in plan.mode && obs.exit.code !== 0 && obs.endedBy === 'process-ended' && !existsSync(outFile))
      throw new ForklabError('usage', `strace could not attach to pid ${plan.mode.pid}: ${obs.tracerStderr.trim() || `status ${obs.exit.code}`}`, { exitCode: 1 });
    const text = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '';
    if (plan.keepTrace) copyFileSync(outFile, plan.keepTrace);
    const model = buildModel(parseStrace(text), { known });
    const figures = processFigures(model, obs.samples);
    if (figures.length) ctx.progress?.('forklab trace: measuring the tracer and this machine’s spawn cost…');
    const native = nativePaths();
    const overhead: Overhead = !figures.length
      ? { state: 'not-measured', reason: 'no process created a child, so there is nothing to set it beside' }
      : existsSync(native.probe)
        ? await measureOverhead({ native, tracer: ctx.tracer, attach, stacks: stacks.on, iterations: plan.overheadIterations, rounds: 3 })
        : { state: 'not-measured', reason: 'the C probe is not built' };
    const forkers = figures.filter((f) => f.byMechanism.fork > 0);
    const largest = forkers.length ? Math.max(...forkers.map((f) => f.rssMb?.max ?? 0)) : null;
    const modelState: ModelState = forkers.length ? await costModel(plan, ctx.store, largest) : { state: 'none', reason: 'no process forked' };
    const sites = siteSummary({
      records: recorder ? readRecords(recorder.outDir) : null,
      recordersOff,
      trace: model,
      figures,
      model: hasModel(modelState) ? modelState : null,
      reader: new FrameReader(process.cwd()),
      stacks,
    });
    const summary: TraceSummary = summarize({
      figures,
      model: modelState,
      overhead,
      sites,
      base: {
        mode: attach ? 'attach' : 'command',
        command: 'command' in plan.mode ? plan.mode.command : null,
        pid: 'pid' in plan.mode ? plan.mode.pid : null,
        tracer: { name: ctx.tracer.name, path: ctx.tracer.path, version: ctx.tracer.version, args: obs.tracerArgs.filter((a) => a !== outFile) },
        wallNs: Math.round((obs.endedS - obs.startedS) * 1e9),
        exit: obs.exit,
        endedBy: obs.endedBy,
        leftEnded: obs.leftEnded,
        tracerKilled: obs.tracerKilled,
        procSamples: obs.samples.length,
        unreadLines: model.unreadLines,
      },
    });
    const measurements = traceMeasurements(figures, 1);
    const { document, warnings } = await store(plan, summary, measurements, { store: ctx.store, startedAt, loadBefore });
    const status = summary.mode === 'attach' ? (summary.endedBy === 'interrupt' ? 130 : 0) : exitStatus(obs);
    return { summary, document, view: traceView(summary), warnings, status };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The trace as a run: the machine record, the history's row (when stored), the versioned document. */
async function store(
  plan: TracePlan,
  summary: TraceSummary,
  measurements: ReturnType<typeof traceMeasurements>,
  c: { store: Store | null; startedAt: Date; loadBefore: ReturnType<typeof sampleLoad> },
): Promise<{ document: RunDocument; warnings: Warning[] }> {
  const machine = await collectMachine({ pinCpu: null });
  const params: Record<string, unknown> = {
    ...('command' in plan.mode ? { command: plan.mode.command } : { pid: plan.mode.pid, durationMs: plan.mode.durationMs }),
    model: typeof plan.model === 'object' ? plan.model.run : plan.model,
    sampleMs: plan.sampleMs,
    overheadIterations: plan.overheadIterations,
    recorders: plan.recorders,
    nativeStacks: plan.nativeStacks,
  };
  const finishedAt = new Date();
  const writer = new HistoryWriter(c.store, { experiment: traceRecording.name, params, machine, loadBefore: c.loadBefore, startedAt: c.startedAt, label: plan.label });
  writer.record(measurements);
  const complete = summary.endedBy !== 'interrupt' || summary.mode === 'attach';
  const run: ExperimentRun<TraceSummary, Record<string, unknown>> = { experiment: traceRecording.name, params, measurements, summary, warnings: [], complete };
  const document = writer.finish(run, { loadAfter: sampleLoad(), finishedAt });
  return { document, warnings: writer.warnings };
}
