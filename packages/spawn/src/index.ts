// @forklab/spawn: node:child_process with its children made by posix_spawn (no copy of the parent's
// page tables), reaped through pidfds. Each function is child_process's own, run with forklab's process
// handle in place for that call: Node validates the options, builds the environment and the stdio pipes,
// emits the events and errors; forklab only replaces the system call. On a Node whose own child_process no
// longer forks (aside.ts), every function is child_process's own, unwrapped.
import childProcess from 'node:child_process';
import { processVerdict, stepAsideReason } from './aside.js';
import { announce, type FunctionName } from './counts.js';
import './handle.js';
import { armed } from './internals.js';
import { collect, type RunOptions, type RunResult, runOptionsError } from './run.js';
import { shared } from './state.js';
import { armedSync } from './sync.js';

export { ChildProcess } from 'node:child_process';
export { MECHANISM_VARIABLE, nodeMechanism, stepAsideReason } from './aside.js';
export { FALLBACK_CHANNEL, type FallbackEvent, type FunctionName, type FunctionStats } from './counts.js';
export { unavailableReason } from './native.js';
export { registerStats, type RegisterStats } from './stats.js';
export type { MaxBufferError, RunOptions, RunResult } from './run.js';

const original = {
  spawn: childProcess.spawn,
  exec: childProcess.exec,
  execFile: childProcess.execFile,
  fork: childProcess.fork,
  spawnSync: childProcess.spawnSync,
  execSync: childProcess.execSync,
  execFileSync: childProcess.execFileSync,
};

/** Why forklab serves nothing in this process (Node starts its children with posix_spawn itself, and forks for no
 * call forklab could serve without fork), or null. */
const verdict = processVerdict();
const aside = stepAsideReason(verdict);
if (aside) announce(aside);
if (verdict.warning && !shared.mechanism.warned) {
  shared.mechanism.warned = true;
  process.emitWarning(verdict.warning, { code: 'FORKLAB_SPAWN_NODE_MECHANISM' });
}

/** One of child_process's functions, as the package wraps it. */
type AnyFunction = (this: unknown, ...a: never[]) => unknown;
/** util.promisify.custom, which Node documents as this registered symbol: node:util is not loaded for it (on
 * Node 22 and later, loading node:util sets up process.stderr, a Pipe handle and a descriptor for a piped stderr). */
const PROMISIFY_CUSTOM = Symbol.for('nodejs.util.promisify.custom');

function served<F extends AnyFunction>(name: FunctionName, fn: F, sync: boolean): F {
  if (aside) return fn;
  const wrapped: AnyFunction = {
    [name](this: unknown, ...a: unknown[]): unknown {
      const call = () => Reflect.apply(fn, this, a);
      return sync ? armedSync(name, a[0], call) : armed(name, a[0], call);
    },
  }[name]!;
  const custom = PROMISIFY_CUSTOM in fn ? fn[PROMISIFY_CUSTOM] : undefined;
  if (typeof custom === 'function') {
    Reflect.set(wrapped, PROMISIFY_CUSTOM, function (this: unknown, ...a: unknown[]): unknown {
      return armed(name, a[0], () => Reflect.apply(custom, this, a));
    });
  }
  return wrapped as F;
}

/** child_process.spawn(command[, args][, options]) */
export const spawn: typeof childProcess.spawn = served('spawn', original.spawn, false);
/** child_process.exec(command[, options][, callback]) */
export const exec: typeof childProcess.exec = served('exec', original.exec, false);
/** child_process.execFile(file[, args][, options][, callback]) */
export const execFile: typeof childProcess.execFile = served('execFile', original.execFile, false);
/** child_process.fork(modulePath[, args][, options]) */
export const fork: typeof childProcess.fork = served('fork', original.fork, false);
/** child_process.spawnSync(command[, args][, options]) */
export const spawnSync: typeof childProcess.spawnSync = served('spawnSync', original.spawnSync, true);
/** child_process.execSync(command[, options]) */
export const execSync: typeof childProcess.execSync = served('execSync', original.execSync, true);
/** child_process.execFileSync(file[, args][, options]) */
export const execFileSync: typeof childProcess.execFileSync = served('execFileSync', original.execFileSync, true);

/** Runs a command to its end: stdout and stderr buffered (maxBuffer), exit code or signal. Rejects when
 * the child cannot be started, on maxBuffer, on abort; a non-zero exit is a result, not a rejection. Bad
 * options (an unknown encoding, an input that is neither a string nor a Uint8Array, a negative maxBuffer)
 * reject before anything starts. */
export function run(command: string, args?: readonly string[], options?: RunOptions & { encoding?: BufferEncoding }): Promise<RunResult<string>>;
export function run(command: string, args: readonly string[], options: RunOptions & { encoding: 'buffer' }): Promise<RunResult<Buffer>>;
export function run(command: string, args: readonly string[] = [], options: RunOptions = {}): Promise<RunResult<string | Buffer>> {
  const bad = runOptionsError(options);
  if (bad) return Promise.reject(bad);
  const { maxBuffer: _m, encoding: _e, input: _i, ...spawnOptions } = options;
  let child: childProcess.ChildProcess;
  try {
    child = spawn(command, args, { ...spawnOptions, stdio: 'pipe' });
  } catch (err) {
    return Promise.reject(err);
  }
  return collect(child, options);
}
