// forklab's command line.
import { Command, Option } from 'commander';
import { EXPERIMENTS } from '../experiments/index.js';
import { runExperimentCommand, type CommonOptions } from './run.js';
import { FORKLAB_VERSION } from '../version.js';
import { runProgram } from './errors.js';
import { DB_HELP, LABEL_HELP, TARGET_HELP, defaultText } from './options.js';
import { guardStandardStreams } from './output.js';
import { registerSelfcheck } from './selfcheck.js';
import { registerDoctor } from './doctor.js';
import { registerHistoryCommands } from './history.js';
import { registerReportCommand } from './report.js';
import { registerReproduceCommand } from './reproduce.js';
import { registerJudgeCommand } from './judge.js';
import { registerFleetCommand } from './fleet.js';
import { registerTraceCommand } from './trace.js';
import { openDatabase } from './database.js';
import type { RunDocument } from '../document/run.js';

/** A stored run by reference (id, uuid prefix, latest), for `forklab report`. */
function loadStoredRun(ref: string | undefined, dbPath: string | undefined): RunDocument {
  const { store } = openDatabase(dbPath, { create: false, write: false });
  try {
    return store.getDocument(store.resolveRun(ref ?? 'latest'));
  } finally {
    store.close();
  }
}

/** A stored reproduction (R<n>, Rlatest) and the runs of it that are still in the history. */
function loadStoredReproduction(ref: string, dbPath: string | undefined): { doc: unknown; runs: RunDocument[]; missing: number } {
  const { store } = openDatabase(dbPath, { create: false, write: false });
  try {
    const r = store.getReproduction(store.resolveReproduction(ref));
    const runs = r.runUuids.map((u) => store.documentByUuid(u));
    return { doc: r.document, runs: runs.filter((d): d is RunDocument => d !== null), missing: runs.filter((d) => d === null).length };
  } finally {
    store.close();
  }
}

function commonOptions(cmd: Command): Command {
  return cmd
    .option('--json <file>', 'write the run as a versioned JSON document (schema: docs/json-schema.md); - for standard output')
    .option('--label <text>', LABEL_HELP)
    .option('--db <path>', DB_HELP)
    .option('--no-store', 'measure without storing the run in the history database')
    .option('--pin <cpu>', 'pin the probe and its children to this CPU (on 2 cores this changes results several-fold)')
    .addOption(new Option('--seed <n>', 'seed for interleaving order and bootstrap intervals').default('1', '1'))
    .option('--no-color', 'no ANSI colours');
}

export function buildProgram(): Command {
  const program = new Command('forklab')
    .description('Measures what creating processes and threads really costs on Linux, and compares it with the published figures.')
    .version(FORKLAB_VERSION)
    .showHelpAfterError('(run with --help for every flag)')
    .exitOverride();
  for (const exp of EXPERIMENTS) {
    const cmd = new Command(exp.name).description(`${exp.summaryLine} (article ${exp.article})`).exitOverride();
    for (const o of exp.options) {
      const opt = new Option(o.flags, o.description);
      if (o.defaultValue !== undefined) opt.default(o.defaultValue, defaultText(o.defaultValue, o.unit));
      cmd.addOption(opt);
    }
    if (exp.acceptsTarget)
      cmd.option('--target <program>', TARGET_HELP).argument('[args...]', 'arguments for the --target program (put them after --: forklab spawn --target git -- --version)');
    commonOptions(cmd);
    cmd.action(async (...got: unknown[]) => {
      // Commander passes the positional arguments first when the command has them, then the options.
      const targetArgs = exp.acceptsTarget ? (got[0] as string[]) : [];
      const opts = got[exp.acceptsTarget ? 1 : 0] as Record<string, string | boolean | undefined>;
      const common: CommonOptions = {
        json: opts.json as string | undefined,
        label: opts.label as string | undefined,
        db: opts.db as string | undefined,
        store: opts.store === false ? false : undefined,
        pin: opts.pin as string | undefined,
        seed: opts.seed as string | undefined,
        color: opts.color === false ? false : undefined,
      };
      process.exitCode = await runExperimentCommand(exp, { ...opts, targetArgs }, common);
    });
    program.addCommand(cmd);
  }
  registerSelfcheck(program);
  registerDoctor(program);
  registerHistoryCommands(program);
  registerReportCommand(program, { loadRun: loadStoredRun, loadReproduction: loadStoredReproduction });
  registerReproduceCommand(program);
  registerJudgeCommand(program);
  registerFleetCommand(program);
  registerTraceCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  guardStandardStreams();
  await runProgram(buildProgram(), argv);
}
