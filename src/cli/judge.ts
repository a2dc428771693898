// `forklab judge RUN|FILE… [--json] [--seed N] [--db PATH]`: judges every claim of the articles the given runs
// cover, without measuring: stored runs (id, uuid, latest~N) or run documents exported from any machine
// (`forklab export`, `--json`), or a `forklab reproduce --json` file. Prints the same summary as reproduce.
import { existsSync } from 'node:fs';
import { readInputFile } from './input.js';
import type { Command } from 'commander';
import { judgeDocuments, verdictsDocument } from '../claims/judge.js';
import type { RunDocument } from '../report/document.js';
import type { Store } from '../store/db.js';
import { openDatabase } from './database.js';
import { DocumentError, parseRunDocument, validateRunDocument } from '../document/validate.js';
import { FORKLAB_VERSION } from '../version.js';
import { CliError } from './errors.js';
import { parseCommon } from './run.js';
import { paintsFor, renderSummary } from './summary.js';
import { DB_HELP } from './options.js';

export interface JudgeCliOptions {
  json?: boolean;
  db?: string;
  seed?: string;
  color?: boolean;
  /** --verbose: claim ids, kinds and formulas in the summary. */
  verbose?: boolean;
}

/** A file's run documents: one run document, or the documents a `forklab reproduce --json` file embeds. */
function documentsInFile(file: string, store: () => Store): RunDocument[] {
  const text = readInputFile(file);
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    if (raw && raw['schema'] === 'forklab.reproduce' && Array.isArray(raw['runs']))
      return (raw['runs'] as unknown[]).map((r) => (typeof r === 'string' ? store().getDocument(store().resolveRun(r)) : validateRunDocument(r)));
    return [parseRunDocument(text)];
  } catch (e) {
    if (e instanceof DocumentError || e instanceof SyntaxError)
      throw new CliError(`${file}: ${e.message}`, 2, 'give a run document (forklab export RUN > run.json) or a forklab reproduce --json file');
    throw e;
  }
}

/** The documents the arguments name, in order: files first checked as files, then as runs in the history. */
export function loadDocuments(refs: readonly string[], db: string | undefined): RunDocument[] {
  let store: Store | null = null;
  const open = () => (store ??= openDatabase(db, { create: false, write: false }).store);
  try {
    return refs.flatMap((ref) => (ref === '-' || existsSync(ref) ? documentsInFile(ref, open) : [open().getDocument(open().resolveRun(ref))]));
  } finally {
    (store as Store | null)?.close();
  }
}

export function runJudge(refs: readonly string[], o: JudgeCliOptions): number {
  const { seed } = parseCommon({ seed: o.seed });
  const docs = loadDocuments(refs, o.db);
  const judged = judgeDocuments(docs, { seed });
  if (o.json) {
    process.stdout.write(`${JSON.stringify(verdictsDocument(docs, judged, seed, FORKLAB_VERSION), null, 1)}\n`);
    return 0;
  }
  const statuses = docs.map((d) => ({
    experiment: d.experiment,
    state: `run ${d.runId ? d.runId.slice(0, 8) : '(not stored)'} on ${String(d.machine?.hostname ?? '?')}, ${d.startedAt.slice(0, 16).replace('T', ' ')}${d.complete ? '' : ', incomplete'}`,
  }));
  process.stdout.write(
    renderSummary(judged, statuses, paintsFor(o.color), `judged from ${docs.length} run${docs.length === 1 ? '' : 's'} without measuring; seed ${seed}`, o.verbose === true),
  );
  return 0;
}

export function registerJudgeCommand(program: Command): void {
  program
    .command('judge')
    .description('judge every published claim on stored runs or exported run documents, without measuring (docs/reproduce.md)')
    .argument('<runs...>', 'run ids, uuids, latest or latest~N from the history, or files: run documents (forklab export, --json) or a forklab reproduce --json file')
    .option('--json', 'print the verdicts, the figures and the runs they rest on as JSON (schema forklab.verdicts)')
    .option('--db <path>', DB_HELP)
    .option('--seed <n>', 'seed of the bootstrap intervals (the same runs and seed give the same verdicts)', '1')
    .option('--verbose', "each claim's id, kind and the formula it was judged by, besides the article's sentence")
    .option('--no-color', 'no ANSI colours')
    .action((refs: string[], opts: JudgeCliOptions) => {
      process.exitCode = runJudge(refs, { ...opts, color: opts.color === false ? false : undefined });
    });
}
