// Errors in node:child_process's shapes.
import { getSystemErrorName } from 'node:util';

export interface SpawnError extends Error {
  errno: number;
  code: string;
  syscall: string;
  path?: string;
  spawnargs?: string[];
}

/** Like Node's ErrnoException: message "<syscall> <CODE>", errno negative. */
export function errnoError(errno: number, syscall: string): SpawnError {
  let code: string;
  try {
    code = getSystemErrorName(errno);
  } catch {
    code = `Unknown system error ${errno}`;
  }
  const err = new Error(`${syscall} ${code}`) as SpawnError;
  err.errno = errno;
  err.code = code;
  err.syscall = syscall;
  return err;
}

export class AbortError extends Error {
  readonly code = 'ABORT_ERR';
  constructor(message = 'The operation was aborted', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AbortError';
  }
}

/** An option that needs code in the child between fork and exec, which posix_spawn cannot run. */
export class UnsupportedOptionError extends Error {
  readonly code = 'ERR_FORKLAB_SPAWN_UNSUPPORTED';
  constructor(
    readonly option: string,
    why: string,
  ) {
    super(`forklab/spawn does not support ${option}: ${why}. Use node:child_process for this call.`);
    this.name = 'UnsupportedOptionError';
  }
}

export function invalidArg(name: string, message: string, code = 'ERR_INVALID_ARG_TYPE'): TypeError {
  const err = new TypeError(`The "${name}" argument ${message}`) as TypeError & { code: string };
  err.code = code;
  return err;
}
