// forklab's command line.
import { Command } from 'commander';
import { EXPERIMENTS } from '../experiments/index.js';
import { runExperimentCommand, type CommonOptions } from './run.js';
import { FORKLAB_VERSION } from '../version.js';
import { CliError, runProgram } from './errors.js';
import {
  TARGET_HELP,
  wideOption,
  dbOption,
  fileFlagPath,
  fileOption,
  labelOption,
  noColorOption,
  noStoreOption,
  pinOption,
  quickOption,
  seedOption,
  specOption,
} from './options.js';
import { guardStandardStreams } from './output.js';
import { registerSelfcheck } from './selfcheck.js';
import { registerDoctor } from './doctor.js';
import { registerHistoryCommands } from './history.js';
import { registerReportCommand } from './report.js';
import { registerReproduceCommand } from './reproduce.js';
import { registerJudgeCommand, runJudge } from './judge.js';
import { registerFleetCommand } from './fleet.js';
import { registerTraceCommand } from './trace.js';
import { openDatabase } from './database.js';
import { guardRepeatedFlags } from './repeated.js';
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

/** 'R<n>' when the latest thing made is a reproduction; null otherwise (or without a history: loadStoredRun says so). */
function latestReproduction(dbPath: string | undefined): string | null {
  try {
    const { store } = openDatabase(dbPath, { create: false, write: false });
    try {
      const made = store.latestMade();
      return made?.kind === 'reproduction' ? `R${made.id}` : null;
    } finally {
      store.close();
    }
  } catch {
    return null;
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
    .addOption(quickOption())
    .addOption(fileOption('--json', 'write the run as a versioned JSON document (schema: docs/json-schema.md)'))
    .addOption(labelOption())
    .addOption(dbOption())
    .addOption(noStoreOption())
    .addOption(pinOption())
    .addOption(seedOption())
    .addOption(noColorOption());
}

/** --quick: the experiment's quick preset (reproduce --quick's settings) for every option not given on the command line. */
function applyQuick(cmd: Command, opts: Record<string, string | boolean | undefined>, quick: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(quick)) if (cmd.getOptionValueSource(k) !== 'cli' && cmd.options.some((o) => o.attributeName() === k)) opts[k] = v;
}

/** The commands whose output is read on a terminal, and so fits 100 columns unless --wide. */
const PRINTS_FOR_A_PERSON = /^(reproduce|judge|history|show|compare|trace|doctor|selfcheck)$/;

export function buildProgram(): Command {
  const program = new Command('forklab')
    .description('Measures what creating processes and threads really costs on Linux, and compares it with the published figures.')
    .version(FORKLAB_VERSION)
    .showHelpAfterError('(run with --help for every flag)')
    .exitOverride();
  for (const exp of EXPERIMENTS) {
    const cmd = new Command(exp.name).description(`${exp.summaryLine} (${exp.article ? `article ${exp.article}` : `source ${exp.source}`})`).exitOverride();
    for (const o of exp.options) cmd.addOption(specOption(o));
    if (exp.acceptsTarget)
      cmd.option('--target <program>', TARGET_HELP).argument('[args...]', 'arguments for the --target program (put them after --: forklab spawn --target git -- --version)');
    commonOptions(cmd);
    cmd.action(async (...got: unknown[]) => {
      // Commander passes the positional arguments first when the command has them, then the options.
      const targetArgs = exp.acceptsTarget ? (got[0] as string[]) : [];
      const opts = got[exp.acceptsTarget ? 1 : 0] as Record<string, string | boolean | undefined>;
      if (opts.quick === true) applyQuick(cmd, opts, exp.presets.quick);
      const common: CommonOptions = {
        json: fileFlagPath(opts.json),
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
  registerReportCommand(program, {
    loadRun: loadStoredRun,
    loadReproduction: loadStoredReproduction,
    latestReproduction,
    judgeJson: (refs, o) => runJudge(refs, { json: o.json, db: o.db }),
  });
  registerReproduceCommand(program);
  registerJudgeCommand(program);
  registerFleetCommand(program);
  registerTraceCommand(program);
  // Names people try for the list of runs: each says which command it is.
  for (const name of ['list', 'ls', 'runs', 'log'])
    program
      .command(name, { hidden: true })
      .allowUnknownOption()
      .argument('[args...]')
      .action(() => {
        throw new CliError(`there is no forklab ${name}: forklab history lists the runs and reproductions (forklab show RUN shows one)`);
      });
  for (const c of program.commands) if (PRINTS_FOR_A_PERSON.test(c.name()) || EXPERIMENTS.some((x) => x.name === c.name())) c.addOption(wideOption());
  guardRepeatedFlags(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  guardStandardStreams();
  await runProgram(buildProgram(), argv);
}
