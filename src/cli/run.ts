// The common life of one experiment command: validate everything, record the machine, run with Ctrl-C
// handling, render, write the JSON document.
import { renderView } from '../report/terminal.js';
import pc from 'picocolors';
import { locateNative, probeRecordOf, requireNative, nativePaths } from '../runner/paths.js';
import { detectEmulation, emulationWarning } from '../env/emulation.js';
import { readTextOrNull } from '../env/memory.js';
import { killAllGroups } from '../runner/processes.js';
import { collectMachine, realSources, sampleLoad, type HostSources } from '../env/machine.js';
import { addProbeUsage, emptyUsageTotals, witnessOfLoad, type NoiseWitness } from '../env/witness.js';
import { noiseFigures, noiseWarning } from '../experiments/noise.js';
import { parseCpusAllowedList } from '../env/parse.js';
import { readFileSync } from 'node:fs';
import { buildDocument, type RunDocument } from '../document/run.js';
import { UsageError, type Experiment, type ExperimentRun, type CommandOptions, type Warning } from '../experiments/types.js';
import { parseCpu, parseInteger } from '../experiments/parse.js';
import { findExperiment } from '../experiments/index.js';
import { createProgress } from './progress.js';
import type { Store } from '../store/db.js';
import { HistoryWriter } from './history-writer.js';
import { BROKEN_PIPE_STATUS, OutputError, planOutput, writeOutput, type OutputTarget } from './output.js';
import { dbArgument, openDatabase, type DbLocation } from './database.js';
import { FORKLAB_VERSION } from '../version.js';

export interface CommonOptions {
  json?: string;
  label?: string;
  db?: string;
  /** false with --no-store: measure without storing the run. */
  store?: boolean;
  pin?: string;
  seed?: string;
  color?: boolean;
}

export function cpusAllowed(): number[] | null {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Cpus_allowed_list:'));
    return line ? parseCpusAllowedList(line.split(':')[1]!.trim()) : null;
  } catch {
    return null;
  }
}

/** --label TEXT: one line of printable text, at most 200 characters; undefined when not given. */
export function parseLabel(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  const t = label.trim();
  if (t === '') throw new UsageError('--label', 'is empty; give a short text (--label baseline), or leave --label out');
  if (t.length > 200) throw new UsageError('--label', `is ${t.length} characters long; at most 200`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a label may not hold
  if (/[\u0000-\u001f\u007f]/.test(t)) throw new UsageError('--label', 'contains a line break or another control character');
  return t;
}

/**
 * The options every measuring command shares: --pin, --seed, --json (where it would be written, checked now),
 * --label, --db with --no-store. Throws UsageError naming the flag.
 */
export function parseCommon(o: { pin?: string; seed?: string; json?: string; label?: string; db?: string; store?: boolean }): {
  pinCpu: number | null;
  seed: number;
  label: string | undefined;
  json: OutputTarget | null;
} {
  const pinCpu = parseCpu('--pin', o.pin, cpusAllowed());
  const label = parseLabel(o.label);
  const seed = o.seed === undefined ? 1 : parseInteger('--seed', o.seed, 0, 2 ** 31 - 1);
  const json = o.json === undefined ? null : planOutput('--json', o.json);
  if (o.store === false && o.db !== undefined) throw new UsageError('--db', 'not used with --no-store (nothing is stored); leave one of them out');
  return { pinCpu, seed, label, json };
}

/**
 * Fewest samples a 95 % interval of a median can be drawn from: with n samples the widest distribution-free
 * interval, [min, max], covers the median with probability 1 − 2·0.5ⁿ, which reaches 95 % only from n = 6.
 */
export const MIN_SAMPLES_FOR_INTERVAL = 6;

/** A warning when a timed configuration (its repeats pooled) has too few samples for its interval to mean anything. */
export function fewSamplesWarnings(run: ExperimentRun): Warning[] {
  // An experiment whose figures are outcomes (deadlock: whether the child got the lock) shows no interval to warn about.
  if (findExperiment(run.experiment)?.figures === 'outcomes') return [];
  const counts = new Map<string, { series: string; n: number }>();
  for (const m of run.measurements) {
    if (m.state !== 'ok' || m.samplesNs.length === 0) continue;
    const key = JSON.stringify([m.series, m.identity]);
    counts.set(key, { series: m.series, n: (counts.get(key)?.n ?? 0) + m.samplesNs.length });
  }
  const few = [...counts.values()].filter((c) => c.n < MIN_SAMPLES_FOR_INTERVAL);
  if (few.length === 0) return [];
  // The flag that gives those series more samples: --iterations, or the experiment's own for a series it sets otherwise.
  const own = findExperiment(run.experiment)?.samplesFlag ?? {};
  const flags = [...new Set(few.map((c) => own[c.series] ?? '--iterations'))];
  const series = [...new Set(few.map((c) => c.series))];
  return [
    {
      code: 'too-few-samples',
      message:
        `${few.length} configuration${few.length === 1 ? ' has' : 's have'} fewer than ${MIN_SAMPLES_FOR_INTERVAL} samples (${series.join(', ')}; as few as ${Math.min(...few.map((c) => c.n))}): ` +
        `a 95 % interval of a median needs at least ${MIN_SAMPLES_FOR_INTERVAL}, so the intervals shown for them are not 95 % intervals. ` +
        `Rerun with ${flags.map((f) => `${f} ${MIN_SAMPLES_FOR_INTERVAL}`).join(' and ')} or more${flags.includes('--iterations') ? ' (or more --repeats)' : ''}.`,
    },
  ];
}

/** What ended a run early: Ctrl-C (SIGINT) or SIGTERM; the AbortSignal's reason. */
export class Interrupted extends Error {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : 'terminated (SIGTERM)');
    this.name = 'Interrupted';
  }
}

/** The conventional exit status of a run stopped by a signal: 128 + its number (130 for Ctrl-C, 143 for SIGTERM). */
export function interruptedStatus(signal: AbortSignal): number | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof Interrupted && signal.reason.signal === 'SIGTERM' ? 143 : 130;
}

/** "interrupted" or "terminated", for the line that introduces what finished. */
export function interruptedWord(signal: AbortSignal): string {
  return interruptedStatus(signal) === 143 ? 'terminated' : 'interrupted';
}

/** The run's one noise warning (experiments/noise.ts) from its figures and its witness; [] when noise changes nothing. */
export function runNoiseWarnings(
  exp: { options: { flags: string }[]; figureKeys?: readonly string[] | null; identity?: readonly string[] },
  run: ExperimentRun,
  witness: NoiseWitness | null,
  pinCpu: number | null,
): Warning[] {
  const figures = exp.figureKeys === null ? [] : noiseFigures(run.measurements, exp.figureKeys ?? exp.identity ?? []);
  const flags = exp.options.map((o) => o.flags.split(/[ ,]/)[0]!);
  const w = noiseWarning({ figures, witness, pinnedCpu: pinCpu, cpusAllowed: cpusAllowed(), flags });
  return w ? [w] : [];
}

/**
 * Ctrl-C (or SIGTERM) aborts the run (the signal's reason says which) and kills every probe; a second one
 * leaves at once, with 130 (SIGINT) or 143 (SIGTERM). Returns the uninstaller.
 */
export function onInterrupt(controller: AbortController): () => void {
  let interrupts = 0;
  const handler = (sig: NodeJS.Signals) => {
    interrupts++;
    killAllGroups();
    const status = sig === 'SIGTERM' ? 143 : 130;
    if (interrupts === 1) {
      process.stderr.write(
        sig === 'SIGTERM'
          ? '\nforklab: terminated (SIGTERM), stopping the probes and keeping what finished\n'
          : '\nforklab: interrupted, stopping the probes (Ctrl-C again to leave at once)\n',
      );
      controller.abort(new Interrupted(sig === 'SIGTERM' ? 'SIGTERM' : 'SIGINT'));
    } else {
      process.stderr.write(`forklab: ${sig === 'SIGTERM' ? 'terminated' : 'interrupted'} again, leaving at once\n`);
      process.exit(status);
    }
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

export async function executeExperiment<P, S>(
  exp: Experiment<P, S>,
  params: P,
  opts: { pinCpu: number | null; seed: number; signal: AbortSignal; preWarnings?: Warning[]; progressLabel?: string; store?: Store | null; label?: string },
): Promise<{ run: ExperimentRun<S, P>; doc: RunDocument; storedRunId: number | null }> {
  const located = locateNative();
  const native = requireNative(located.paths);
  const machine = await collectMachine({ pinCpu: opts.pinCpu, probe: probeRecordOf(located.origin) }, machineSources);
  const before = sampleLoad();
  const progress = createProgress(opts.progressLabel ?? exp.name);
  const startedAt = new Date();
  const history = new HistoryWriter(opts.store ?? null);
  history.start({
    experiment: exp.name,
    params: params as Record<string, unknown>,
    machine,
    loadBefore: before,
    forklabVersion: FORKLAB_VERSION,
    startedAt,
    label: opts.label ?? null,
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
  history.finish({ complete: run.complete, summary: run.summary, warnings: run.warnings, loadAfter: after, finishedAt });
  run.warnings.push(...history.warnings);
  const doc = buildDocument({
    run: run as ExperimentRun,
    forklabVersion: FORKLAB_VERSION,
    runId: history.uuid,
    label: opts.label,
    startedAt,
    finishedAt,
    machine,
    load: { before, after },
    witness,
  });
  return { run, doc, storedRunId: history.runId };
}

/**
 * Opens the history database named by --db (or $FORKLAB_DB, or the default) for storing runs, before any work:
 * a usage error naming --db when it cannot (read-only: it offers --no-store). Null with --no-store.
 */
export function openHistory(o: { db?: string; store?: boolean }): { store: Store; location: DbLocation } | null {
  if (o.store === false) return null;
  return openDatabase(o.db, { create: true, write: true, offerNoStore: true });
}

/** The document written where --json asked, at the end of a run; a failure says how to get the run out of the history. */
export function writeRunJson(command: string, target: OutputTarget, text: string, stored: { id: string; location: DbLocation } | null): void {
  try {
    writeOutput('--json', target, text);
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    if (e.errno === 'EPIPE') process.exit(BROKEN_PIPE_STATUS); // the reader is gone: end quietly, as a pipe's writer does
    const hint = stored
      ? `the run is stored as ${stored.id} in ${stored.location.path}: write it with forklab export ${stored.id}${dbArgument(stored.location)} > FILE`
      : 'the run was not stored (--no-store): only the table above is left';
    throw new OutputError(e.display, e.errno, `forklab ${command}: --json: ${e.message}`, hint);
  }
  if (target.kind !== 'fd') process.stderr.write(`forklab: wrote ${target.display}\n`);
}

export async function runExperimentCommand<P, S>(exp: Experiment<P, S>, raw: CommandOptions, common: CommonOptions): Promise<number> {
  // 1. Everything the user typed, before any work.
  const params: P = exp.parse(raw);
  const { pinCpu, seed, label, json } = parseCommon(common);
  // 2. What the machine allows, the probe, and the history database.
  const preWarnings: Warning[] = exp.preflight(params);
  requireNative(nativePaths());
  const emulated = detectEmulation(process.arch, readTextOrNull('/proc/cpuinfo'));
  if (emulated) preWarnings.unshift({ code: 'emulated', message: emulationWarning(emulated) });
  const history: { store: Store; location: DbLocation } | null = openHistory(common);
  const color = common.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  for (const w of preWarnings) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);

  // 3. The run, cancellable with Ctrl-C or SIGTERM (a second one leaves at once).
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  let run: ExperimentRun<S, P>;
  let doc: RunDocument;
  try {
    ({ run, doc } = await executeExperiment(exp, params, { pinCpu, seed, signal: controller.signal, preWarnings, store: history?.store ?? null, label }));
  } finally {
    stopSignals();
    history?.store.close();
  }
  // 4. Output: the table on stdout (on stderr when the document goes to stdout), warnings and notes on stderr,
  // the document where asked.
  const interrupted = interruptedStatus(controller.signal);
  if (interrupted !== null) process.stderr.write(`forklab: ${interruptedWord(controller.signal)}; what finished:\n`);
  const tableTo = json?.kind === 'fd' && json.fd === 1 ? process.stderr : process.stdout;
  tableTo.write(`${renderView(exp.view(run), { color: tableTo === process.stdout && color })}\n`);
  for (const w of run.warnings) if (!preWarnings.includes(w)) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);
  const stored = doc.runId && history ? { id: doc.runId.slice(0, 8), location: history.location } : null;
  if (json) writeRunJson(exp.name, json, `${JSON.stringify(doc, null, 1)}\n`, stored);
  if (stored)
    process.stderr.write(
      `forklab: stored as run ${stored.id} in ${stored.location.path} (forklab show ${stored.id}${dbArgument(stored.location)}; forklab report --html report.html)\n`,
    );
  else if (!history) process.stderr.write(`forklab: not stored (--no-store)${json ? '' : '; use --json FILE to keep the run'}\n`);
  if (interrupted !== null) return interrupted;
  return run.complete ? 0 : 1;
}
