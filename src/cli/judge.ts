// `forklab judge RUN|FILE… [--json] [--seed N] [--db PATH]`: judges every claim of the articles the given runs
// cover, without measuring: stored runs (id, uuid, latest~N) or run documents exported from any machine
// (`forklab export`, `--json`), or a `forklab reproduce --json` file. Prints the same summary as reproduce. This
// file reads the arguments and prints; the judging is src/lab/judge.ts.
import { namedRuns } from './named.js';
import type { Command } from 'commander';
import { whyApart } from '../claims/machines.js';
import { StoreError } from '../store/db.js';
import { judgementDocument, judgeRuns, pooledMachines, settleAdvice, type Judgement } from '../lab/judge.js';
import type { RunDocument } from '../document/run.js';
import type { Store } from '../store/db.js';
import { openDatabase } from './database.js';
import { writeStdout } from './output.js';
import { colors } from './history-common.js';
import { parseCommon } from './run.js';
import { renderSummary } from '../report/summary.js';
import { fitText } from '../text/fit.js';
import { dbOption, emitTo, fileOption, noColorOption, planFileFlag, noPoolOption, seedOption, verboseOption, withinRunOption } from './options.js';

export interface JudgeCliOptions {
  json?: string | boolean;
  db?: string;
  seed?: string;
  color?: boolean;
  /** --verbose: claim ids, kinds and formulas in the summary. */
  verbose?: boolean;
  /** --mix-machines: pool the runs of several machines into one verdict per claim (each verdict says so). */
  mixMachines?: boolean;
  /** --within-run: today's intervals alone, without the machine's drift between runs. */
  withinRun?: boolean;
  /** false with --no-pool: each run judged alone, not pooled with the machine's earlier runs. */
  pool?: boolean;
}

/** The documents the arguments name, in order: files, reproductions (R1: its runs) and stored runs (src/cli/named.ts). */
function loadDocuments(refs: readonly string[], db: string | undefined): RunDocument[] {
  let store: Store | null = null;
  const open = () => (store ??= openDatabase(db, { create: false, write: false }).store);
  try {
    return refs.flatMap((ref) => namedRuns(ref, open).docs);
  } finally {
    (store as Store | null)?.close();
  }
}

/** The history to learn each machine's drift from: the database, read only (none when it does not exist). */
function historyStore(db: string | undefined): Store | null {
  try {
    return openDatabase(db, { create: false, write: false }).store;
  } catch (e) {
    if (e instanceof StoreError && e.kind === 'missing') return null;
    throw e;
  }
}

const writeFitted = (s: string) => writeStdout(fitText(s));

export function runJudge(refs: readonly string[], o: JudgeCliOptions): number {
  const { seed } = parseCommon({ seed: o.seed });
  const json = planFileFlag('--json', o.json);
  const docs = loadDocuments(refs, o.db);
  const history = o.withinRun ? null : historyStore(o.db);
  const note = (s: string) => process.stderr.write(`${fitText(s)}\n`);
  let j: Judgement;
  try {
    j = judgeRuns(docs, { seed, withinRun: o.withinRun === true, pool: o.pool !== false, mixMachines: o.mixMachines === true }, { history, note });
  } finally {
    history?.close();
  }
  if (json) {
    emitTo('--json', json, `${JSON.stringify(judgementDocument(j, seed), null, 1)}\n`);
    if (json.kind !== 'fd' || json.fd !== 1) process.stderr.write(`forklab judge: verdicts written to ${json.display}\n`);
    return 0;
  }
  const { groups, parts } = j;
  if (parts.length > 1)
    writeFitted(
      `The runs come from ${groups.length} machines (${whyApart(groups)}): each is judged on its own runs below. --mix-machines pools them into one verdict per claim, and every verdict then says so.\n\n`,
    );
  for (const [i, x] of parts.entries()) {
    if (parts.length > 1) writeFitted(`${i > 0 ? '\n' : ''}Machine ${i + 1} of ${parts.length}: ${x.group!.label}\n`);
    const statuses = x.docs.map((d) => ({
      experiment: d.experiment,
      state: `run ${d.runId ? d.runId.slice(0, 8) : '(not stored)'} on ${String(d.machine?.hostname ?? '?')}, ${d.startedAt.slice(0, 16).replace('T', ' ')}${d.complete ? '' : ', incomplete'}`,
    }));
    const mixed = pooledMachines(j, x) ? `; pooled from ${groups.length} machines (--mix-machines)` : '';
    writeFitted(
      renderSummary(
        x.judged,
        statuses,
        colors(o),
        `judged from ${x.docs.length} run${x.docs.length === 1 ? '' : 's'} without measuring; seed ${seed}${mixed}`,
        o.verbose === true,
      ) + settleAdvice(x),
    );
  }
  return 0;
}

export function registerJudgeCommand(program: Command): void {
  program
    .command('judge')
    .description('judge every published claim on stored runs or exported run documents, without measuring (docs/reproduce.md)')
    .argument(
      '<runs...>',
      'run ids, uuids, latest or latest~N from the history, reproductions (R1: the runs it rests on), or files: run documents (forklab export, --json) or a forklab reproduce --json file',
    )
    .addOption(fileOption('--json', 'write the verdicts, the figures and the runs they rest on as JSON (schema forklab.verdicts)'))
    .addOption(dbOption())
    .addOption(seedOption())
    .addOption(verboseOption())
    .option('--mix-machines', "pool the runs of several machines into one verdict per claim (each verdict notes it); by default each machine's runs are judged on their own")
    .addOption(withinRunOption())
    .addOption(noPoolOption())
    .addOption(noColorOption())
    .action((refs: string[], opts: JudgeCliOptions) => {
      process.exitCode = runJudge(refs, { ...opts, color: opts.color === false ? false : undefined });
    });
}
