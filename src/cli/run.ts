// `forklab EXPERIMENT`: the options every measuring command shares, parsed; the run's life called (src/lab/
// experiment.ts) with Ctrl-C turned into an abort; its view, warnings and document printed and written.
import pc from 'picocolors';
import { renderView } from '../report/terminal.js';
import { render } from '../report/formats.js';
import { fitText } from '../text/fit.js';
import { cpusAllowed } from '../env/process.js';
import type { Experiment, CommandOptions, Warning } from '../experiments/contract/types.js';
import { UsageError } from '../errors.js';
import { parseInteger, parsePin } from '../text/parse.js';
import type { Store } from '../store/db.js';
import { Interrupted, interruptedStatus, interruptedWord, killProbes } from '../lab/interrupted.js';
import { preflightRun, runExperiment, type RunResult } from '../lab/experiment.js';
import { createProgress } from './progress.js';
import { outputOf, planOutputs, writeText, type Output } from './door.js';
import { dbArgument, openDatabase, type DbLocation } from './database.js';

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

/** --label TEXT: one line of printable text, at most 200 characters; undefined when not given. */
function parseLabel(label: string | undefined): string | undefined {
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
  /** null: --pin none; 'default': not given (the experiment's own choice) */
  pinCpu: number | null | 'default';
  seed: number;
  label: string | undefined;
  json: Output | null;
} {
  const pinCpu = parsePin('--pin', o.pin, cpusAllowed());
  const label = parseLabel(o.label);
  const seed = o.seed === undefined ? 1 : parseInteger('--seed', o.seed, 0, 2 ** 31 - 1);
  const json = outputOf(planOutputs({ json: o.json }), 'json');
  if (o.store === false && o.db !== undefined) throw new UsageError('--db', 'not used with --no-store (nothing is stored); leave one of them out');
  return { pinCpu, seed, label, json };
}

/**
 * Ctrl-C (or SIGTERM) aborts the run (the signal's reason says which) and kills every probe; a second one
 * leaves at once, with 130 (SIGINT) or 143 (SIGTERM). Returns the uninstaller.
 */
export function onInterrupt(controller: AbortController): () => void {
  let interrupts = 0;
  const handler = (sig: NodeJS.Signals) => {
    interrupts++;
    killProbes();
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
 * Opens the history database named by --db (or $FORKLAB_DB, or the default) for storing runs, before any work:
 * a usage error naming --db when it cannot (read-only: it offers --no-store). Null with --no-store.
 */
export function openHistory(o: { db?: string; store?: boolean }): { store: Store; location: DbLocation } | null {
  if (o.store === false) return null;
  return openDatabase(o.db, { create: true, write: true, offerNoStore: true });
}

/** The document written where --json asked, at the end of a run; a failure says how to get the run out of the history. */
export function writeRunJson(command: string, out: Output, text: string, stored: { id: string; location: DbLocation } | null): void {
  writeText(command, out, text, {
    hint: () =>
      stored
        ? `the run is stored as ${stored.id} in ${stored.location.path}: write it with forklab export ${stored.id}${dbArgument(stored.location)} > FILE`
        : 'the run was not stored (--no-store): only the table above is left',
  });
}

export async function runExperimentCommand<P, S>(exp: Experiment<P, S>, raw: CommandOptions, common: CommonOptions): Promise<number> {
  // 1. Everything the user typed, before any work.
  const params: P = exp.parse(raw);
  const { pinCpu, seed, label, json } = parseCommon(common);
  // 2. What the machine allows, the probe, and the history database.
  const preWarnings: Warning[] = preflightRun(exp, params);
  const history: { store: Store; location: DbLocation } | null = openHistory(common);
  const color = common.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  for (const w of preWarnings) process.stderr.write(`${fitText(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}`)}\n`);

  // 3. The run, cancellable with Ctrl-C or SIGTERM (a second one leaves at once).
  const controller = new AbortController();
  const stopSignals = onInterrupt(controller);
  let result: RunResult<S, P>;
  try {
    result = await runExperiment(exp, params, { pinCpu, seed, signal: controller.signal, preWarnings, progress: createProgress, store: history?.store ?? null, label });
  } finally {
    stopSignals();
    history?.store.close();
  }
  const { run, doc } = result;
  // 4. Output: the table on stdout (on stderr when the document goes to stdout), warnings and notes on stderr,
  // the document where asked.
  const interrupted = interruptedStatus(controller.signal);
  if (interrupted !== null) process.stderr.write(`forklab: ${interruptedWord(controller.signal)}; what finished:\n`);
  const tableTo = json?.target.kind === 'fd' && json.target.fd === 1 ? process.stderr : process.stdout;
  tableTo.write(`${fitText(renderView(result.view(), { color: tableTo === process.stdout && color }))}\n`);
  for (const w of run.warnings) if (!preWarnings.includes(w)) process.stderr.write(`${fitText(`${color ? pc.yellow('warning') : 'warning'}: ${w.message}`)}\n`);
  const stored = doc.runId && history ? { id: doc.runId.slice(0, 8), location: history.location } : null;
  if (json) writeRunJson(exp.name, json, await render('json', 'run', doc), stored);
  if (stored) process.stderr.write(storedLines(stored.id, stored.location));
  else if (!history) process.stderr.write(`forklab: not stored (--no-store)${json ? '' : '; use --json FILE to keep the run'}\n`);
  if (interrupted !== null) return interrupted;
  return run.complete ? 0 : 1;
}

/** Where the run went and the two commands that read it back. With --db both commands carry it, each on a line
 * of its own (a long path is never cut, and each line stands alone to copy); the default history's fit one. */
function storedLines(id: string, location: DbLocation): string {
  const db = dbArgument(location);
  if (!db) return `forklab: stored as run ${id} (forklab show ${id}; forklab report --html report.html)\n  in ${location.path}\n`;
  return `forklab: stored as run ${id} in ${location.path}\n  forklab show ${id}${db}\n  forklab report ${id}${db} --html report.html\n`;
}
