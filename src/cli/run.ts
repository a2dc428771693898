// The common life of one experiment command: validate everything, record the machine, run with Ctrl-C
// handling, render, write the JSON document.
import { renderView } from '../report/terminal.js';
import pc from 'picocolors';
import { requireNative, nativePaths } from '../runner/paths.js';
import { killAllGroups } from '../runner/processes.js';
import { collectMachine, sampleLoad } from '../env/machine.js';
import { addProbeUsage, emptyUsageTotals, witnessOfLoad, type NoiseWitness } from '../env/witness.js';
import { noiseFigures, noiseWarning } from '../experiments/noise.js';
import { parseCpusAllowedList } from '../env/parse.js';
import { readFileSync } from 'node:fs';
import { buildDocument, checkWritable, writeFileAtomic, type RunDocument } from '../report/document.js';
import { UsageError, type Experiment, type ExperimentRun, type CommandOptions, type Warning } from '../experiments/types.js';
import { parseCpu, parseInteger } from '../experiments/parse.js';
import { createProgress } from './progress.js';
import { Store } from '../store/db.js';
import { resolveDbPath } from '../store/location.js';
import { HistoryWriter } from './history-writer.js';
import { FORKLAB_VERSION } from '../version.js';

export interface CommonOptions {
  json?: string;
  label?: string;
  db?: string;
  pin?: string;
  seed?: string;
  color?: boolean;
}

export { CliError } from './errors.js';

export function cpusAllowed(): number[] | null {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
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
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(t)) throw new UsageError('--label', 'contains a line break or another control character');
  return t;
}

/** The options every measuring command shares: --pin, --seed, --json (writable), --label. Throws UsageError naming the flag. */
export function parseCommon(o: { pin?: string; seed?: string; json?: string; label?: string }): { pinCpu: number | null; seed: number; label: string | undefined } {
  const pinCpu = parseCpu('--pin', o.pin, cpusAllowed());
  const label = parseLabel(o.label);
  const seed = o.seed === undefined ? 1 : parseInteger('--seed', o.seed, 0, 2 ** 31 - 1);
  if (o.json !== undefined) {
    try {
      checkWritable(o.json);
    } catch (e) {
      throw new UsageError('--json', (e as Error).message);
    }
  }
  return { pinCpu, seed, label };
}

/** The run's one noise warning (experiments/noise.ts) from its figures and its witness; [] when noise changes nothing. */
export function runNoiseWarnings(exp: { options: { flags: string }[]; figureKeys?: readonly string[] | null; identity?: readonly string[] }, run: ExperimentRun, witness: NoiseWitness | null, pinCpu: number | null): Warning[] {
  const figures = exp.figureKeys === null ? [] : noiseFigures(run.measurements, exp.figureKeys ?? exp.identity ?? []);
  const flags = exp.options.map((o) => o.flags.split(/[ ,]/)[0]!);
  const w = noiseWarning({ figures, witness, pinnedCpu: pinCpu, cpusAllowed: cpusAllowed(), flags });
  return w ? [w] : [];
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
  opts: { pinCpu: number | null; seed: number; signal: AbortSignal; preWarnings?: Warning[]; progressLabel?: string; store?: Store | null; label?: string },
): Promise<{ run: ExperimentRun<S>; doc: RunDocument; storedRunId: number | null }> {
  const native = requireNative(nativePaths());
  const machine = await collectMachine({ pinCpu: opts.pinCpu });
  const before = sampleLoad();
  const progress = createProgress(opts.progressLabel ?? exp.name);
  const startedAt = new Date();
  const history = new HistoryWriter(opts.store ?? null);
  history.start({ experiment: exp.name, params: params as Record<string, unknown>, machine, loadBefore: before, forklabVersion: FORKLAB_VERSION, startedAt, label: opts.label ?? null });
  let run: ExperimentRun<S>;
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
  if (!opts.signal.aborted) run.warnings.push(...runNoiseWarnings(exp as Experiment<P, S>, run as ExperimentRun, witness, opts.pinCpu));
  if (opts.signal.aborted) run.complete = false;
  history.finish({ complete: run.complete, summary: run.summary, warnings: run.warnings, loadAfter: after, finishedAt });
  run.warnings.push(...history.warnings);
  const doc = buildDocument({ run: run as ExperimentRun, forklabVersion: FORKLAB_VERSION, runId: history.uuid, label: opts.label, startedAt, finishedAt, machine, load: { before, after }, witness });
  return { run, doc, storedRunId: history.runId };
}

/** Opens the history database named by --db (or the default), as a usage error naming --db when it cannot. */
export function openHistory(db: string | undefined): Store {
  const path = resolveDbPath(db);
  try {
    return Store.open(path);
  } catch (e) {
    throw new UsageError('--db', `${path}: ${(e as Error).message}`);
  }
}

export async function runExperimentCommand<P, S>(
  exp: Experiment<P, S>,
  raw: CommandOptions,
  common: CommonOptions,
): Promise<number> {
  // 1. Everything the user typed, before any work.
  let params: P;
  let pinCpu: number | null;
  let seed: number;
  let label: string | undefined;
  params = exp.parse(raw);
  ({ pinCpu, seed, label } = parseCommon(common));
  // 2. What the machine allows, the probe, and the history database.
  let preWarnings: Warning[];
  let store: Store;
  preWarnings = exp.preflight(params);
  requireNative(nativePaths());
  store = openHistory(common.db);
  const color = common.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  for (const w of preWarnings) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);

  // 3. The run, cancellable with Ctrl-C (a second Ctrl-C leaves at once).
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  let run: ExperimentRun<S>;
  let doc: RunDocument;
  try {
    ({ run, doc } = await executeExperiment(exp, params, { pinCpu, seed, signal: controller.signal, preWarnings, store, label }));
  } finally {
    stopSignals();
    store.close();
  }
  // 4. Output: the table on stdout, warnings and notes on stderr, the document where asked.
  if (controller.signal.aborted) process.stderr.write('forklab: interrupted; what finished:\n');
  process.stdout.write(`${renderView(exp.view(run), { color })}\n`);
  for (const w of run.warnings)
    if (!preWarnings.includes(w)) process.stderr.write(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}\n`);
  if (common.json !== undefined) {
    writeFileAtomic(common.json, JSON.stringify(doc, null, 1) + '\n');
    process.stderr.write(`forklab: wrote ${common.json}\n`);
  }
  if (doc.runId) process.stderr.write(`forklab: stored as run ${doc.runId.slice(0, 8)} in ${store.path} (forklab show ${doc.runId.slice(0, 8)}; forklab report --html report.html)\n`);
  if (controller.signal.aborted) return 130;
  return run.complete ? 0 : 1;
}
