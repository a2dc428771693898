// forklab's one error type. Every layer may import this file (it imports nothing): a problem the user can act on
// is a ForklabError with a code (what kind of problem), a message (what went wrong, naming the flag or the file)
// and, where there is one, a hint (what to do next). The command line prints it in one place (src/cli/errors.ts);
// anything else that escapes a command is a bug and is reported as one, without a stack trace unless asked.

/** The kinds of problem forklab reports. */
export type ErrorCode =
  /** Bad input on the command line: a flag's value, a combination of flags. */
  | 'usage'
  /** The C probe is not built. */
  | 'probe-missing'
  /** The history database cannot be opened, read or written, or a run is not in it. */
  | 'store'
  /** A run document (JSON) cannot be read. */
  | 'document'
  /** A file cannot be read or written. */
  | 'file';

export interface ForklabErrorOptions {
  /** What to do next, one sentence. */
  hint?: string;
  /** The process exit status when this error ends a command (default 2). */
  exitCode?: number;
  cause?: unknown;
}

export class ForklabError extends Error {
  readonly hint: string | undefined;
  readonly exitCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ForklabErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ForklabError';
    this.hint = options.hint;
    this.exitCode = options.exitCode ?? 2;
  }
}

/** Bad input: names the flag and the problem. Raised before any work is done. */
export class UsageError extends ForklabError {
  constructor(
    readonly flag: string,
    problem: string,
    hint?: string,
  ) {
    super('usage', `${flag}: ${problem}`, { hint });
    this.name = 'UsageError';
  }
}
