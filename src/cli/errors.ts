// The one place where an error that ends a command is printed. A ForklabError is the user's to act on: its
// message (prefixed with the command), then its hint. Anything else is a bug in forklab: one line that says so,
// the stack only with FORKLAB_DEBUG=1.
import { CommanderError, type Command } from 'commander';
import { ForklabError } from '../errors.js';
import { setOutputColumns } from '../text/fit.js';

/** A command-line problem found by the CLI itself; its message never names the command (the printer prefixes it). */
export class CliError extends ForklabError {
  constructor(message: string, exitCode = 2, hint?: string) {
    super('usage', message, { exitCode, hint });
    this.name = 'CliError';
  }
}

/** Writes the error for the user and returns the exit status the command ends with. */
export function reportError(e: unknown, command: string, write: (s: string) => void = (s) => void process.stderr.write(s)): number {
  const prefix = `forklab ${command}: `;
  if (e instanceof ForklabError) {
    write(`${prefix}${e.message}\n`);
    if (e.hint) write(`  hint: ${e.hint}\n`);
    return e.exitCode;
  }
  const message = e instanceof Error ? e.message : String(e);
  write(`${prefix}unexpected error: ${message}\n`);
  if (process.env.FORKLAB_DEBUG && e instanceof Error && e.stack) write(`${e.stack}\n`);
  else write('  hint: this is a bug in forklab; rerun with FORKLAB_DEBUG=1 to see where it happened, and report it\n');
  return 1;
}

/**
 * Parses argv and runs the command it names; whatever error ends the command is printed here, once, and sets the
 * exit status (Commander has printed its own usage errors already: status 2).
 */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  let command = program.name();
  program.hook('preAction', (_program, action) => {
    command = action.name();
    setOutputColumns({ wide: action.opts().wide === true, terminalColumns: process.stdout.isTTY ? process.stdout.columns : undefined });
  });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = reportError(e, command);
  }
}
