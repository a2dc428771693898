// The life of one experiment run: its parameters checked against the machine (preflight, the probe, emulation),
// then the machine record, the probes with the load before and after, every measurement stored as it comes, the
// warnings the run's life adds, and the versioned document. A typed plan in, a typed result out: no command-line
// parsing, no printing (progress goes to the caller's display), no process.exit.
import { locateNative, nativePaths, probeRecordOf, requireNative, type NativePaths } from '../runner/paths.js';
import { killAllGroups } from '../runner/processes.js';
import { detectEmulation, emulationWarning } from '../env/emulation.js';
import { readTextOrNull } from '../env/memory.js';
import { cpusAllowed } from '../env/process.js';
import { collectMachine, realSources, sampleLoad, type HostSources } from '../env/machine.js';
import { addProbeUsage, emptyUsageTotals, witnessOfLoad } from '../env/witness.js';
import type { Experiment, ExperimentRun, Progress, Warning } from '../experiments/contract/types.js';
import type { Block } from '../experiments/contract/view.js';
import type { RunDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import { HistoryWriter } from './history-writer.js';
import { fewSamplesWarnings, runNoiseWarnings } from './warnings.js';

/** A run's progress as the caller shows it (a bar on a terminal, status lines in a log), ended once the run is over. */
export type ProgressDisplay = (label: string) => Progress & { end(): void };

const silent: ProgressDisplay = () => ({ step() {}, note() {}, end() {} });

/** The probe set this process would run; a ForklabError (probe-missing) saying how to build it when it is not there. */
export function requireProbe(): NativePaths {
  return requireNative(nativePaths());
}

/**
 * What the machine allows for these parameters (the experiment's preflight: memory, limits), checked before anything
 * starts (UsageError naming the flag), and the probe; a warning first when the CPU is emulated.
 */
export function preflightRun<P, S>(exp: Experiment<P, S>, params: P): Warning[] {
  const preWarnings: Warning[] = exp.preflight(params);
  requireProbe();
  const emulated = detectEmulation(process.arch, readTextOrNull('/proc/cpuinfo'));
  if (emulated) preWarnings.unshift({ code: 'emulated', message: emulationWarning(emulated) });
  return preWarnings;
}

/**
 * The machine's sources with the programs it asks (getconf, ldd, the C compiler, systemd-detect-virt) run once per
 * forklab process: their answers do not change between the experiments of one reproduction, and each run of them
 * forks this process (about a second per experiment on a busy 2-vCPU VM). Files (/proc, /sys) are read afresh.
 */
const commandAnswers = new Map<string, ReturnType<HostSources['run']>>();
const machineSources: HostSources = {
  ...realSources,
  run: (cmd, args) => {
    const key = JSON.stringify([cmd, ...args]);
    if (!commandAnswers.has(key)) commandAnswers.set(key, realSources.run(cmd, args));
    return commandAnswers.get(key)!;
  },
};

export interface RunOptions {
  /** The CPU what measures is pinned to; null: none; 'default': the experiment's own choice (pinnedCpuFor). */
  pinCpu: number | null | 'default';
  seed: number;
  signal: AbortSignal;
  /** Warnings found before the run (preflightRun's), first among the run's. */
  preWarnings?: Warning[];
  /** Where the run's progress is shown, under this label (default: the experiment's name); absent: nowhere. */
  progress?: ProgressDisplay;
  progressLabel?: string;
  /** The history the run is stored in as it happens; null or absent: not stored. */
  store?: Store | null;
  label?: string;
}

export interface RunResult<S, P> {
  run: ExperimentRun<S, P>;
  doc: RunDocument;
  storedRunId: number | null;
  /** What the run shows (the experiment's view), for the caller to render. */
  view(): Block[];
}

/** The CPU an experiment runs pinned to where --pin was not given: the last one allowed where it pins by default. */
export function pinnedCpuFor(exp: { pinsByDefault?: boolean }, requested: number | null | 'default', allowed: readonly number[] | null): number | null {
  if (requested !== 'default') return requested;
  return exp.pinsByDefault === true && allowed && allowed.length > 0 ? allowed[allowed.length - 1]! : null;
}

/** Runs one experiment with planned parameters; every probe is killed at the end, whatever happens. */
export async function runExperiment<P, S>(exp: Experiment<P, S>, params: P, options: RunOptions): Promise<RunResult<S, P>> {
  const opts = { ...options, pinCpu: pinnedCpuFor(exp, options.pinCpu, cpusAllowed()) };
  const located = locateNative();
  const native = requireNative(located.paths);
  const machine = await collectMachine({ pinCpu: opts.pinCpu, probe: probeRecordOf(located.origin) }, machineSources);
  const before = sampleLoad();
  const progress = (opts.progress ?? silent)(opts.progressLabel ?? exp.name);
  const startedAt = new Date();
  const history = new HistoryWriter(opts.store ?? null, {
    experiment: exp.name,
    params: params as Record<string, unknown>,
    machine,
    loadBefore: before,
    startedAt,
    label: opts.label,
  });
  let run: ExperimentRun<S, P>;
  const usage = emptyUsageTotals();
  try {
    run = await exp.run(params, {
      native,
      signal: opts.signal,
      progress,
      pinCpu: opts.pinCpu,
      seed: opts.seed,
      record: (ms) => history.record(ms),
      probeFinished: (u, ms) => addProbeUsage(usage, u, ms),
    });
  } finally {
    progress.end();
    killAllGroups();
  }
  const finishedAt = new Date();
  const after = { ...sampleLoad(), probes: usage };
  const witness = witnessOfLoad({ before, after }, finishedAt.getTime() - startedAt.getTime(), opts.pinCpu);
  run.warnings.unshift(...(opts.preWarnings ?? []));
  if (machine.emulation && !run.warnings.some((w) => w.code === 'emulated')) run.warnings.unshift({ code: 'emulated', message: emulationWarning(machine.emulation) });
  if (!opts.signal.aborted) run.warnings.push(...runNoiseWarnings(exp as Experiment<P, S>, run as ExperimentRun, witness, opts.pinCpu));
  run.warnings.push(...fewSamplesWarnings(run as ExperimentRun));
  if (opts.signal.aborted) run.complete = false;
  const doc = history.finish(run as ExperimentRun, { loadAfter: after, finishedAt, witness });
  const done = run;
  return { run, doc, storedRunId: history.runId, view: () => exp.view(done) };
}
