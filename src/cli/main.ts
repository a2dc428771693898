// forklab's command line. Starting it loads only the module of the command it runs (src/cli/commands.ts lists the
// others for --help and for the suggestions after a mistyped name).
import { Command, Help } from 'commander';
import { FORKLAB_VERSION } from '../version.js';
import { CliError, runProgram } from './errors.js';
import { wideOption } from './options.js';
import { guardStandardStreams } from './output.js';
import { guardRepeatedFlags } from './repeated.js';
import { COMMAND_GROUPS, type CommandGroup } from './commands.js';

/**
 * The command argv runs, or the one `forklab help NAME` asks about: the first operand (forklab's own options take
 * no value, so the first argument that is not an option is the command Commander dispatches to), if any.
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const operands = argv.slice(2).filter((a) => !a.startsWith('-'));
  return operands[0] === 'help' ? operands[1] : operands[0];
}

/**
 * The command line with the commands of the groups `loads` chooses loaded (their flags, subcommands and actions);
 * every other command is listed by its line of the table, for the usage and for Commander's suggestions, and is
 * never run (main loads the one argv names).
 */
async function programWith(loads: (group: CommandGroup) => boolean): Promise<Command> {
  const program = new Command('forklab')
    .description('Measures what creating processes and threads really costs on Linux, and compares it with the published figures.')
    .version(FORKLAB_VERSION)
    .showHelpAfterError('(run with --help for every flag)')
    .exitOverride();
  const listed = new Map<Command, string>();
  for (const group of COMMAND_GROUPS) {
    if (loads(group)) {
      const before = program.commands.length;
      (await group.load())(program);
      for (const cmd of program.commands.slice(before)) if (group.commands.find((c) => c.name === cmd.name())?.wide) cmd.addOption(wideOption());
      continue;
    }
    for (const c of group.commands) {
      const cmd = new Command(c.name).description(c.summary).action(() => {
        throw new Error(`forklab ${c.name} was run without its module loaded`);
      });
      listed.set(cmd, `${c.name} ${c.usage}`.trim());
      program.addCommand(cmd);
    }
  }
  // Names people try for the list of runs: each says which command it is.
  for (const name of ['list', 'ls', 'runs', 'log'])
    program
      .command(name, { hidden: true })
      .allowUnknownOption()
      .argument('[args...]')
      .action(() => {
        throw new CliError(`there is no forklab ${name}: forklab history lists the runs and reproductions (forklab show RUN shows one)`);
      });
  guardRepeatedFlags(program);
  // Set last: the commands added above do not inherit it (a listed command's usage is its line of the table).
  if (listed.size > 0)
    program.configureHelp({
      subcommandTerm(this: Help, cmd: Command): string {
        return listed.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
      },
    });
  return program;
}

/** The whole command line, every command loaded. */
export function buildProgram(): Promise<Command> {
  return programWith(() => true);
}

/** The command line argv needs: the command it runs loaded, the others listed. */
export function programFor(argv: readonly string[]): Promise<Command> {
  const name = commandNamed(argv);
  return programWith((group) => group.commands.some((c) => c.name === name));
}

export async function main(argv: string[]): Promise<void> {
  guardStandardStreams();
  await runProgram(await programFor(argv), argv);
}
