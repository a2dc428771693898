// @forklab/spawn: child_process.spawn over posix_spawn, reaped through pidfds.
import { armLimits, ChildProcess } from './child.js';
import { normalize, splitArgs, type SpawnOptions } from './options.js';
import { collect, type RunOptions, type RunResult } from './run.js';

export { ChildProcess } from './child.js';
export { AbortError, UnsupportedOptionError, type SpawnError } from './errors.js';
export { unsupportedReason, type SpawnOptions, type StdioEntry, type StdioName } from './options.js';
export { unavailableReason } from './native.js';
export type { MaxBufferError, RunOptions, RunResult } from './run.js';

/** spawn(command, args?, options?) as node:child_process's, with the child made by posix_spawn. */
export function spawn(command: string, options?: SpawnOptions): ChildProcess;
export function spawn(command: string, args?: readonly string[], options?: SpawnOptions): ChildProcess;
export function spawn(command: string, args?: unknown, options?: unknown): ChildProcess {
  const split = splitArgs(args, options);
  const n = normalize(command, split.args, split.options);
  const child = new ChildProcess();
  child.start(n);
  armLimits(child, n);
  return child;
}

/** Runs a command to its end: stdout and stderr buffered (maxBuffer), exit code or signal. Rejects when
 * the child cannot be started, on maxBuffer, on abort; a non-zero exit is a result, not a rejection. */
export function run(command: string, args?: readonly string[], options?: RunOptions & { encoding?: BufferEncoding }): Promise<RunResult<string>>;
export function run(command: string, args: readonly string[], options: RunOptions & { encoding: 'buffer' }): Promise<RunResult<Buffer>>;
export function run(command: string, args: readonly string[] = [], options: RunOptions = {}): Promise<RunResult<string | Buffer>> {
  const { maxBuffer: _m, encoding: _e, input: _i, ...spawnOptions } = options;
  let child: ChildProcess;
  try {
    child = spawn(command, args, { ...spawnOptions, stdio: 'pipe' });
  } catch (err) {
    return Promise.reject(err);
  }
  return collect(child, options);
}
