// `forklab trace [options] -- COMMAND [ARGS]` and `forklab trace --pid PID [--duration 30s]`: which processes of a
// program create children, how, at what size, what it costs here and what to change. This file parses the
// command line into a plan, calls the trace's life (src/lab/trace.ts), and prints what it returns: the view on
// stderr once the command has ended, the document where --json asks; forklab exits with the command's status.
import { Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import pc from 'picocolors';
import { UsageError } from '../errors.js';
import { parseInteger } from '../text/parse.js';
import { findTracer, type Tracer } from '../experiments/trace/observe.js';
import { traceRecording } from '../experiments/trace/index.js';
import { fitText } from '../text/fit.js';
import { renderView } from '../report/terminal.js';
import type { Store } from '../store/db.js';
import { resolveCommand, runTrace, type TracePlan, type TraceResult } from '../lab/trace.js';
import { dbOption, fileFlagPath, fileOption, labelOption, noColorOption, noStoreOption } from './options.js';
import { openHistory, parseCommon, writeRunJson } from './run.js';
import { dbArgument, type DbLocation } from './database.js';

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
  recorders?: boolean;
  nativeStacks?: boolean;
  color?: boolean;
}

/** --duration: "30s", "2m", "500ms", or plain seconds; throws UsageError naming the flag. */
function parseDuration(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError('--duration', `${JSON.stringify(raw)} is not a duration; give 30s, 2m, 500ms or a number of seconds`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (ms < 100 || ms > 86_400_000) throw new UsageError('--duration', `${raw} is out of range; from 100ms to 24h`);
  return ms;
}

/** Everything the user typed, checked before anything runs. */
function planTrace(command: string[], o: TraceOptions): { plan: TracePlan; json: ReturnType<typeof parseCommon>['json'] } {
  if (o.pid !== undefined && command.length) throw new UsageError('--pid', 'give either --pid PID or a command after --, not both');
  if (o.pid === undefined && !command.length) throw new UsageError('COMMAND', 'nothing to trace; give a command after -- (forklab trace -- make -j4) or --pid PID');
  if (o.duration !== undefined && o.pid === undefined) throw new UsageError('--duration', 'goes with --pid (a command is traced until it ends)');
  let mode: TracePlan['mode'];
  if (o.pid !== undefined) {
    const pid = parseInteger('--pid', o.pid, 1, 2 ** 22);
    if (pid === process.pid) throw new UsageError('--pid', `${pid} is forklab itself`);
    if (!existsSync(`/proc/${pid}`)) throw new UsageError('--pid', `no process ${pid} is running`);
    mode = { pid, durationMs: o.duration === undefined ? null : parseDuration(o.duration) };
  } else {
    mode = { command: resolveCommand(command) };
  }
  const json = fileFlagPath(o.json);
  const common = parseCommon({ json, label: o.label, db: o.db, ...(o.store === false ? { store: false } : {}) });
  const raw = o.model ?? 'auto';
  const model: TracePlan['model'] = raw === 'auto' || raw === 'measure' || raw === 'none' ? raw : { run: raw };
  const plan: TracePlan = {
    mode,
    label: common.label,
    model,
    sampleMs: parseInteger('--sample-ms', o.sampleMs ?? '20', 5, 10_000),
    overheadIterations: parseInteger('--overhead-iterations', o.overheadIterations ?? '100', 0, 10_000),
    keepTrace: o.keepTrace ?? null,
    recorders: o.recorders !== false,
    nativeStacks: o.nativeStacks === true,
  };
  return { plan, json: common.json };
}

async function traceAction(command: string[], o: TraceOptions): Promise<number> {
  const { plan, json } = planTrace(command, o);
  const tracer: Tracer = findTracer();
  const history: { store: Store; location: DbLocation } | null = openHistory({ db: o.db, ...(o.store === false ? { store: false } : {}) });
  const color = o.color !== false && Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
  let result: TraceResult;
  try {
    result = await runTrace(plan, { tracer, store: history?.store ?? null, progress: (line) => process.stderr.write(`${line}\n`) });
  } finally {
    history?.store.close();
  }
  process.stderr.write(`${fitText(renderView(result.view, { color }))}\n`);
  for (const w of result.warnings) process.stderr.write(`${fitText(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}`)}\n`);
  const doc = result.document;
  const stored = doc.runId && history ? { id: doc.runId.slice(0, 8), location: history.location } : null;
  if (json) writeRunJson(traceRecording.name, json, `${JSON.stringify(doc, null, 1)}\n`, stored);
  if (stored)
    process.stderr.write(`forklab: stored as run ${stored.id} (forklab report ${stored.id}${dbArgument(stored.location)} --html trace.html)\n  in ${stored.location.path}\n`);
  return result.status;
}

/** Adds `forklab trace` to the program. */
export function registerTraceCommand(program: Command): void {
  program.addCommand(
    new Command(traceRecording.name)
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
      .option('--no-recorders', "do not give the command's Node and Python processes the call-site recorders (NODE_OPTIONS, PYTHONPATH stay as they are)")
      .option(
        '--native-stacks',
        'ask strace for the native frames of each creating call (strace -k): call sites of programs without a recorder; slows every new process of a large program (a Node child: most of a second here)',
      )
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
