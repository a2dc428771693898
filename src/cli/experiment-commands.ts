// The experiments' commands (forklab NAME), one per entry of the registry: its flags, the shared ones, and its run.
import { Command } from 'commander';
import { EXPERIMENTS } from '../experiments/index.js';
import { commandSummary } from '../experiments/command-lines.js';
import type { CommonOptions } from './run.js';
import { TARGET_HELP, dbOption, fileFlagPath, fileOption, labelOption, noColorOption, noStoreOption, pinOption, quickOption, seedOption, specOption } from './options.js';

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

/** Adds a command for every experiment of the registry; what runs one (src/cli/run.ts, the lab) is loaded when it runs. */
export function registerExperimentCommands(program: Command): void {
  for (const exp of EXPERIMENTS) {
    const cmd = new Command(exp.name).description(commandSummary(exp)).exitOverride();
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
      const { runExperimentCommand } = await import('./run.js');
      process.exitCode = await runExperimentCommand(exp, { ...opts, targetArgs }, common);
    });
    program.addCommand(cmd);
  }
}
