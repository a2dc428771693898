// `forklab trace [options] -- COMMAND [ARGS]` and `forklab trace --pid PID [--duration 30s]`: which processes of a
// program create children, how, at what size, what it costs here and what to change. The command keeps its
// stdin, stdout, stderr and environment; forklab writes to stderr (and --json where asked) once it has ended,
// and exits with the command's status.
import { Command, Option } from 'commander';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { constants as osConstants } from 'node:os';
import pc from 'picocolors';
import { UsageError } from '../errors.js';
import { resolveTarget } from '../runner/target.js';
import { nativePaths } from '../runner/paths.js';
import { collectMachine, sampleLoad } from '../env/machine.js';
import { parseInteger } from '../experiments/parse.js';
import { parseStrace } from '../experiments/trace/strace.js';
import { buildModel } from '../experiments/trace/model.js';
import { processFigures } from '../experiments/trace/figures.js';
import { findTracer, observe, type Observation, type Tracer } from '../experiments/trace/observe.js';
import { measureModel, measureOverhead, modelSizesMb, type Overhead } from '../experiments/trace/calibrate.js';
import type { SpawnModel } from '../experiments/trace/cost.js';
import { summarize, traceMeasurements, type ModelState, type TraceSummary } from '../experiments/trace/summary.js';
import { traceView } from '../experiments/trace/view.js';
import { renderView } from '../report/terminal.js';
import { buildDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import { HistoryWriter } from './history-writer.js';
import { dbOption, fileFlagPath, fileOption, labelOption, noColorOption, noStoreOption } from './options.js';
import { CliError } from './errors.js';
import { openHistory, parseCommon, writeRunJson } from './run.js';
import { dbArgument, type DbLocation } from './database.js';
import { FORKLAB_VERSION } from '../version.js';
import { MODEL_EXPERIMENT, MODEL_NEEDS, modelFromStoredRun } from '../experiments/trace/stored.js';

interface TraceOptions {
  pid?: string;
  duration?: string;
  json?: string | boolean;
  label?: string;
  db?: string;
  store?: boolean;
  model?: string;
  sampleMs?: string;
  overheadIterations?: string;
  keepTrace?: string;
  color?: boolean;
}

/** --duration: "30s", "2m", "500ms", or plain seconds; throws UsageError naming the flag. */
export function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError('--duration', `${JSON.stringify(raw)} is not a duration; give 30s, 2m, 500ms or a number of seconds`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (ms < 100 || ms > 86_400_000) throw new UsageError('--duration', `${raw} is out of range; from 100ms to 24h`);
  return ms;
}

interface Plan {
  mode: { command: string[] } | { pid: number; durationMs: number | null };
  label: string | undefined;
  json: ReturnType<typeof parseCommon>['json'];
  model: 'auto' | 'measure' | 'none' | { run: string };
  sampleMs: number;
  overheadIterations: number;
  keepTrace: string | null;
}

/** Everything the user typed, checked before anything runs. */
export function planTrace(command: string[], o: TraceOptions): Plan {
  if (o.pid !== undefined && command.length) throw new UsageError('--pid', 'give either --pid PID or a command after --, not both');
  if (o.pid === undefined && !command.length) throw new UsageError('COMMAND', 'nothing to trace; give a command after -- (forklab trace -- make -j4) or --pid PID');
  if (o.duration !== undefined && o.pid === undefined) throw new UsageError('--duration', 'goes with --pid (a command is traced until it ends)');
  let mode: Plan['mode'];
  if (o.pid !== undefined) {
    const pid = parseInteger('--pid', o.pid, 1, 2 ** 22);
    if (pid === process.pid) throw new UsageError('--pid', `${pid} is forklab itself`);
    if (!existsSync(`/proc/${pid}`)) throw new UsageError('--pid', `no process ${pid} is running`);
    mode = { pid, durationMs: o.duration === undefined ? null : parseDuration(o.duration) };
  } else {
    let target: { path: string; args: string[] };
    try {
      target = resolveTarget(command[0]!, command.slice(1));
    } catch (e) {
      if (e instanceof UsageError) throw new UsageError('COMMAND', e.message.replace(/^--target: /, ''), e.hint?.replace(/--target /g, ''));
      throw e;
    }
    mode = { command: [target.path, ...target.args] };
  }
  const json = fileFlagPath(o.json);
  const common = parseCommon({ json, label: o.label, db: o.db, ...(o.store === false ? { store: false } : {}) });
  const raw = o.model ?? 'auto';
  const model: Plan['model'] = raw === 'auto' || raw === 'measure' || raw === 'none' ? raw : { run: raw };
  return {
    mode,
    label: common.label,
    json: common.json,
    model,
    sampleMs: parseInteger('--sample-ms', o.sampleMs ?? '20', 5, 10_000),
    overheadIterations: parseInteger('--overhead-iterations', o.overheadIterations ?? '100', 0, 10_000),
    keepTrace: o.keepTrace ?? null,
  };
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

const exitStatus = (o: Observation): number => {
  if (o.exit.signal) return 128 + (osConstants.signals[o.exit.signal] ?? 0);
  return o.exit.code ?? 1;
};

async function costModel(plan: Plan, store: Store | null, largestRssMb: number | null): Promise<ModelState> {
  if (plan.model === 'none') return { state: 'none', reason: '--model none' };
  if (plan.model !== 'measure' && store) {
    const m = storedModel(store, typeof plan.model === 'object' ? plan.model.run : null);
    if (m) return m;
  }
  if (plan.model !== 'auto' && plan.model !== 'measure') return { state: 'none', reason: 'the named run is not in this history' };
  const got = await measureModel({ native: nativePaths(), sizesMb: modelSizesMb(largestRssMb), iterations: 30 });
  return typeof got === 'string' ? { state: 'none', reason: `a short spawn run failed: ${got}` } : got;
}

export async function traceAction(command: string[], o: TraceOptions): Promise<number> {
  const plan = planTrace(command, o);
  const tracer: Tracer = findTracer();
  const history: { store: Store; location: DbLocation } | null = openHistory({ db: o.db, ...(o.store === false ? { store: false } : {}) });
  const color = o.color !== false && Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
  const dir = mkdtempSync(join(tmpdir(), 'forklab-trace-'));
  const outFile = join(dir, 'strace.out');
  const startedAt = new Date();
  const loadBefore = sampleLoad();
  // The attached process's program, read now: strace sees no exec of it, and it may end while traced.
  const known: Record<number, string> = {};
  const rootExe = 'pid' in plan.mode ? readExe(plan.mode.pid) : null;
  if (rootExe && 'pid' in plan.mode) known[plan.mode.pid] = rootExe;
  let obs: Observation;
  try {
    obs = await observe({ tracer, outFile, sampleMs: plan.sampleMs, mode: plan.mode });
    if ('pid' in plan.mode && obs.exit.code !== 0 && obs.endedBy === 'process-ended' && !existsSync(outFile))
      throw new CliError(`strace could not attach to pid ${plan.mode.pid}: ${obs.tracerStderr.trim() || `status ${obs.exit.code}`}`, 1);
    const text = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '';
    if (plan.keepTrace) copyFileSync(outFile, plan.keepTrace);
    const model = buildModel(parseStrace(text), { known });
    const figures = processFigures(model, obs.samples);
    if (figures.length) process.stderr.write('forklab trace: measuring the tracer and this machine’s spawn cost…\n');
    const native = nativePaths();
    const overhead: Overhead = !figures.length
      ? { state: 'not-measured', reason: 'no process created a child, so there is nothing to set it beside' }
      : existsSync(native.probe)
        ? await measureOverhead({ native, tracer, attach: 'pid' in plan.mode, iterations: plan.overheadIterations, rounds: 3 })
        : { state: 'not-measured', reason: 'the C probe is not built' };
    const forkers = figures.filter((f) => f.byMechanism.fork > 0);
    const largest = forkers.length ? Math.max(...forkers.map((f) => f.rssMb?.max ?? 0)) : null;
    const modelState: ModelState = forkers.length ? await costModel(plan, history?.store ?? null, largest) : { state: 'none', reason: 'no process forked' };
    const summary: TraceSummary = summarize({
      figures,
      model: modelState,
      overhead,
      base: {
        mode: 'pid' in plan.mode ? 'attach' : 'command',
        command: 'command' in plan.mode ? plan.mode.command : null,
        pid: 'pid' in plan.mode ? plan.mode.pid : null,
        tracer: { name: tracer.name, path: tracer.path, version: tracer.version, args: obs.tracerArgs.filter((a) => a !== outFile) },
        wallNs: Math.round((obs.endedS - obs.startedS) * 1e9),
        exit: obs.exit,
        endedBy: obs.endedBy,
        leftEnded: obs.leftEnded,
        procSamples: obs.samples.length,
        unreadLines: model.unreadLines,
      },
    });
    return await finish(plan, summary, traceMeasurements(figures, 1), { history, color, startedAt, loadBefore, obs });
  } finally {
    history?.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function readExe(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

async function finish(
  plan: Plan,
  summary: TraceSummary,
  measurements: ReturnType<typeof traceMeasurements>,
  c: { history: { store: Store; location: DbLocation } | null; color: boolean; startedAt: Date; loadBefore: ReturnType<typeof sampleLoad>; obs: Observation },
): Promise<number> {
  const machine = await collectMachine({ pinCpu: null });
  const params: Record<string, unknown> = {
    ...('command' in plan.mode ? { command: plan.mode.command } : { pid: plan.mode.pid, durationMs: plan.mode.durationMs }),
    model: typeof plan.model === 'object' ? plan.model.run : plan.model,
    sampleMs: plan.sampleMs,
    overheadIterations: plan.overheadIterations,
  };
  const writer = new HistoryWriter(c.history?.store ?? null);
  const finishedAt = new Date();
  const complete = summary.endedBy !== 'interrupt' || summary.mode === 'attach';
  writer.start({ experiment: 'trace', params, machine, loadBefore: c.loadBefore, forklabVersion: FORKLAB_VERSION, startedAt: c.startedAt, label: plan.label ?? null });
  writer.record(measurements);
  const loadAfter = sampleLoad();
  writer.finish({ complete, summary, warnings: [], loadAfter, finishedAt });
  const run = { experiment: 'trace', params, measurements, summary, warnings: writer.warnings, complete };
  const doc = buildDocument({
    run,
    forklabVersion: FORKLAB_VERSION,
    runId: writer.uuid,
    label: plan.label,
    startedAt: c.startedAt,
    finishedAt,
    machine,
    load: { before: c.loadBefore, after: loadAfter },
  });
  process.stderr.write(`${renderView(traceView(summary), { color: c.color })}\n`);
  for (const w of writer.warnings) process.stderr.write(`${c.color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);
  const stored = doc.runId && c.history ? { id: doc.runId.slice(0, 8), location: c.history.location } : null;
  if (plan.json) writeRunJson('trace', plan.json, `${JSON.stringify(doc, null, 1)}\n`, stored);
  if (stored)
    process.stderr.write(`forklab: stored as run ${stored.id} in ${stored.location.path} (forklab report ${stored.id}${dbArgument(stored.location)} --html trace.html)\n`);
  if (summary.mode === 'attach') return summary.endedBy === 'interrupt' ? 130 : 0;
  return exitStatus(c.obs);
}

/** Adds `forklab trace` to the program. */
export function registerTraceCommand(program: Command): void {
  program.addCommand(
    new Command('trace')
      .description('run COMMAND (or attach to --pid) under strace: which processes fork, at what size, what it costs here, and what to change')
      .argument('[command...]', 'the command and its arguments, after --: forklab trace -- npm run build')
      .option('--pid <pid>', 'attach to this running process (and the children it starts) instead of running a command')
      .option('--duration <time>', 'with --pid: stop after this long (30s, 2m, 500ms); default: until the process ends or Ctrl-C')
      .addOption(fileOption('--json', 'write the trace as a versioned JSON document, after the command'))
      .addOption(
        new Option(
          '--model <source>',
          'where the cost of fork vs posix_spawn comes from: auto (the latest stored spawn run of this machine, else a short run now), measure, none, or a spawn run id',
        ).default('auto'),
      )
      .addOption(new Option('--sample-ms <ms>', 'how often VmRSS and VmPTE of every traced process are read from /proc').default('20', '20 ms'))
      .addOption(new Option('--overhead-iterations <n>', "fork+exec calls per round when measuring the tracer's own overhead (0: not measured)").default('100', '100'))
      .option('--keep-trace <file>', "keep strace's raw output in FILE")
      .addOption(labelOption())
      .addOption(dbOption())
      .addOption(noStoreOption())
      .addOption(noColorOption())
      .exitOverride()
      .action(async (command: string[], o: TraceOptions) => {
        process.exitCode = await traceAction(command, o);
      }),
  );
}
