// The common life of one experiment command: validate everything, record the machine, run with Ctrl-C
// handling, render, write the JSON document.
import pc from 'picocolors';
import { requireNative, ProbeMissingError, nativePaths } from '../runner/paths.js';
import { killAllGroups } from '../runner/processes.js';
import { collectMachine, sampleLoad, type LoadSample } from '../env/machine.js';
import { parseCpusAllowedList } from '../env/parse.js';
import { readFileSync } from 'node:fs';
import { buildDocument, checkWritable, writeFileAtomic, type RunDocument } from '../report/document.js';
import { UsageError, type Experiment, type ExperimentRun, type Warning } from '../experiments/types.js';
import { parseCpu, parseInteger } from '../experiments/parse.js';
import { createProgress } from './progress.js';
import { FORKLAB_VERSION } from './version.js';

export interface CommonOptions {
  json?: string;
  pin?: string;
  seed?: string;
  color?: boolean;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

function cpusAllowed(): number[] | null {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
    return line ? parseCpusAllowedList(line.split(':')[1]!.trim()) : null;
  } catch {
    return null;
  }
}

export function pressureWarnings(before: LoadSample, after: LoadSample): Warning[] {
  const worst = Math.max(before.cpuPressure?.someAvg10 ?? 0, after.cpuPressure?.someAvg10 ?? 0);
  if (worst < 10) return [];
  return [
    {
      code: 'cpu-pressure',
      message: `CPU pressure was high during the run (some avg10 up to ${worst.toFixed(1)} %): other work competed for the CPUs. Rerun with --pin 0 or on a quiet machine.`,
    },
  ];
}

/** Ctrl-C (or SIGTERM) aborts the run and kills every probe; a second one leaves at once. Returns the uninstaller. */
export function onInterrupt(controller: AbortController): () => void {
  let interrupts = 0;
  const handler = () => {
    interrupts++;
    killAllGroups();
    if (interrupts === 1) {
      process.stderr.write('\nforklab: interrupted, stopping the probes (Ctrl-C again to leave at once)\n');
      controller.abort();
    } else process.exit(130);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * Runs one experiment with validated parameters: machine record, load before and after, progress on stderr,
 * every probe killed at the end. Prints nothing else; returns the run and its versioned document.
 */
export async function executeExperiment<P, S>(
  exp: Experiment<P, S>,
  params: P,
  opts: { pinCpu: number | null; seed: number; signal: AbortSignal; preWarnings?: Warning[]; progressLabel?: string },
): Promise<{ run: ExperimentRun<S>; doc: RunDocument }> {
  const native = requireNative(nativePaths());
  const machine = await collectMachine({ pinCpu: opts.pinCpu });
  const before = sampleLoad();
  const progress = createProgress(opts.progressLabel ?? exp.name);
  const startedAt = new Date();
  let run: ExperimentRun<S>;
  try {
    run = await exp.run(params, { native, signal: opts.signal, progress, pinCpu: opts.pinCpu, seed: opts.seed });
  } finally {
    progress.end();
    killAllGroups();
  }
  const finishedAt = new Date();
  const after = sampleLoad();
  run.warnings.unshift(...(opts.preWarnings ?? []));
  run.warnings.push(...pressureWarnings(before, after));
  if (opts.signal.aborted) run.complete = false;
  const doc = buildDocument({ run: run as ExperimentRun, forklabVersion: FORKLAB_VERSION, runId: null, startedAt, finishedAt, machine, load: { before, after } });
  return { run, doc };
}

export async function runExperimentCommand<P, S>(
  exp: Experiment<P, S>,
  raw: Record<string, string | boolean | undefined>,
  common: CommonOptions,
): Promise<number> {
  // 1. Everything the user typed, before any work.
  let params: P;
  let pinCpu: number | null;
  let seed: number;
  try {
    params = exp.parse(raw);
    pinCpu = parseCpu('--pin', common.pin, cpusAllowed());
    seed = common.seed === undefined ? 1 : parseInteger('--seed', common.seed, 0, 2 ** 31 - 1);
    if (common.json !== undefined) {
      try {
        checkWritable(common.json);
      } catch (e) {
        throw new UsageError('--json', (e as Error).message);
      }
    }
  } catch (e) {
    if (e instanceof UsageError) throw new CliError(`forklab ${exp.name}: ${e.message}`);
    throw e;
  }
  // 2. What the machine allows, and the probe.
  let preWarnings: Warning[];
  try {
    preWarnings = exp.preflight(params);
    requireNative(nativePaths());
  } catch (e) {
    if (e instanceof UsageError) throw new CliError(`forklab ${exp.name}: ${e.message}`);
    if (e instanceof ProbeMissingError) throw new CliError(`forklab ${exp.name}: ${e.message}`, 1);
    throw e;
  }
  const color = common.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  for (const w of preWarnings) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);

  // 3. The run, cancellable with Ctrl-C (a second Ctrl-C leaves at once).
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  let run: ExperimentRun<S>;
  let doc: RunDocument;
  try {
    ({ run, doc } = await executeExperiment(exp, params, { pinCpu, seed, signal: controller.signal, preWarnings }));
  } finally {
    stopSignals();
  }
  // 4. Output: the table on stdout, warnings and notes on stderr, the document where asked.
  if (controller.signal.aborted) process.stderr.write('forklab: interrupted; what finished:\n');
  process.stdout.write(exp.render(run, { color }) + '\n');
  for (const w of run.warnings)
    if (!preWarnings.includes(w)) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);
  if (common.json !== undefined) {
    writeFileAtomic(common.json, JSON.stringify(doc, null, 1) + '\n');
    process.stderr.write(`forklab: wrote ${common.json}\n`);
  }
  if (controller.signal.aborted) return 130;
  return run.complete ? 0 : 1;
}
