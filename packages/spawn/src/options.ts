// Normalising spawn(command, args, options) the way node:child_process does, and naming what
// posix_spawn cannot serve.
import { constants } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { STDIO_IGNORE, STDIO_PIPE } from './native.js';
import { invalidArg, UnsupportedOptionError } from './errors.js';

export type StdioName = 'pipe' | 'overlapped' | 'inherit' | 'ignore';
export type StdioEntry = StdioName | number | { fd: number } | null | undefined;

export interface SpawnOptions {
  cwd?: string | URL;
  env?: NodeJS.ProcessEnv;
  argv0?: string;
  stdio?: StdioName | StdioEntry[];
  detached?: boolean;
  shell?: boolean | string;
  timeout?: number;
  killSignal?: NodeJS.Signals | number;
  signal?: AbortSignal;
  windowsHide?: boolean;
  windowsVerbatimArguments?: boolean;
  uid?: number;
  gid?: number;
  serialization?: 'json' | 'advanced';
}

export interface Normalized {
  file: string;
  /** argv as the child sees it (argv[0] included) */
  argv: string[];
  /** null: the process's own environment. On the main thread process.env reads and writes it, so the
   * addon can hand it over without converting process.env on every call; a worker's process.env is a copy. */
  envp: string[] | null;
  cwd: string | null;
  /** per child descriptor: STDIO_PIPE, STDIO_IGNORE or a parent descriptor */
  stdio: number[];
  detached: boolean;
  timeoutMs: number;
  killSignal: number;
  signal: AbortSignal | undefined;
}

const FORK_ONLY = 'it needs code in the child between fork and exec, which posix_spawn does not run';

/** Why forklab/spawn cannot serve these options (null: it can). Invalid values are not judged here. */
export function unsupportedReason(options: SpawnOptions | undefined): string | null {
  if (!options) return null;
  if (options.uid !== undefined) return 'uid';
  if (options.gid !== undefined) return 'gid';
  if (options.serialization !== undefined) return 'serialization';
  const stdio = options.stdio;
  if (Array.isArray(stdio)) {
    for (const s of stdio) {
      if (s === ('ipc' as unknown)) return 'stdio ipc';
      if (s !== null && typeof s === 'object' && stdioFd(s) === undefined) return 'stdio stream without a descriptor';
    }
  }
  return null;
}

function throwIfUnsupported(options: SpawnOptions): void {
  const reason = unsupportedReason(options);
  if (reason === null) return;
  if (reason === 'uid' || reason === 'gid') throw new UnsupportedOptionError(`options.${reason}`, FORK_ONLY);
  if (reason === 'serialization' || reason === 'stdio ipc') {
    throw new UnsupportedOptionError(reason === 'stdio ipc' ? "stdio 'ipc'" : 'options.serialization', 'IPC channels are not implemented');
  }
  throw new UnsupportedOptionError('a stdio stream without a file descriptor', 'only descriptors can be handed to posix_spawn');
}

function stdioFd(s: object): number | undefined {
  const o = s as { fd?: unknown; _handle?: { fd?: unknown } };
  if (typeof o.fd === 'number' && o.fd >= 0) return o.fd;
  if (o._handle && typeof o._handle.fd === 'number' && o._handle.fd >= 0) return o._handle.fd;
  return undefined;
}

export function signalNumber(sig: unknown, name = 'signal'): number {
  if (typeof sig === 'number') {
    if (Object.values(constants.signals).includes(sig)) return sig;
  } else if (typeof sig === 'string') {
    const n = (constants.signals as Record<string, number>)[sig];
    if (n !== undefined) return n;
  }
  const err = new TypeError(`Unknown signal: ${String(sig)}`) as TypeError & { code: string };
  err.code = 'ERR_UNKNOWN_SIGNAL';
  void name;
  throw err;
}

export function signalName(n: number): NodeJS.Signals | null {
  for (const [k, v] of Object.entries(constants.signals)) if (v === n) return k as NodeJS.Signals;
  return null;
}

function normalizeStdio(stdio: SpawnOptions['stdio']): number[] {
  let list: StdioEntry[];
  if (stdio === undefined || stdio === null) list = ['pipe', 'pipe', 'pipe'];
  else if (typeof stdio === 'string') list = [stdio, stdio, stdio];
  else if (Array.isArray(stdio)) list = [...stdio];
  else throw invalidArg('options.stdio', `must be a string or an array. Received ${typeof stdio}`);
  while (list.length < 3) list.push(undefined);
  return list.map((s, i) => {
    if (s === null || s === undefined) return i < 3 ? STDIO_PIPE : STDIO_IGNORE;
    if (s === 'pipe' || s === 'overlapped') return STDIO_PIPE;
    if (s === 'ignore') return STDIO_IGNORE;
    if (s === 'inherit') return i;
    if (typeof s === 'number') {
      if (!Number.isInteger(s) || s < 0) throw invalidArg('options.stdio', `has an invalid descriptor: ${s}`, 'ERR_INVALID_ARG_VALUE');
      return s;
    }
    if (typeof s === 'object') {
      const fd = stdioFd(s);
      if (fd !== undefined) return fd;
    }
    throw invalidArg('options.stdio', `has an invalid entry: ${String(s)}`, 'ERR_INVALID_ARG_VALUE');
  });
}

function envPairs(env: NodeJS.ProcessEnv): string[] {
  const pairs: string[] = [];
  for (const key in env) {
    const value = env[key];
    if (value === undefined) continue;
    const pair = `${key}=${value}`;
    if (pair.includes('\u0000')) throw invalidArg('options.env', 'must be a string without null bytes', 'ERR_INVALID_ARG_VALUE');
    pairs.push(pair);
  }
  return pairs;
}

function checkString(value: string, name: string): void {
  if (value.includes('\u0000')) throw invalidArg(name, 'must be a string without null bytes', 'ERR_INVALID_ARG_VALUE');
}

/** spawn's (file, args?, options?) overloads, as child_process accepts them. */
export function splitArgs(args: unknown, options: unknown): { args: string[]; options: SpawnOptions } {
  let list: unknown[] = [];
  let opts: unknown = options;
  if (Array.isArray(args)) list = args;
  else if (args !== null && args !== undefined) {
    if (typeof args !== 'object') throw invalidArg('args', `must be an Array. Received ${typeof args}`);
    opts = args;
  }
  if (opts === undefined || opts === null) opts = {};
  if (typeof opts !== 'object') throw invalidArg('options', `must be of type object. Received ${typeof opts}`);
  return { args: list.map(String), options: opts as SpawnOptions };
}

export function normalize(file: unknown, args: string[], options: SpawnOptions): Normalized {
  if (typeof file !== 'string') throw invalidArg('file', `must be of type string. Received ${typeof file}`);
  if (file.length === 0) throw invalidArg('file', "cannot be empty. Received ''", 'ERR_INVALID_ARG_VALUE');
  throwIfUnsupported(options);
  checkString(file, 'file');
  for (const a of args) checkString(a, 'args');
  let cwd: string | null = null;
  if (options.cwd !== undefined && options.cwd !== null) {
    cwd = options.cwd instanceof URL ? fileURLToPath(options.cwd) : options.cwd;
    if (typeof cwd !== 'string') throw invalidArg('options.cwd', `must be of type string or URL. Received ${typeof cwd}`);
    checkString(cwd, 'options.cwd');
  }
  const timeoutMs = options.timeout ?? 0;
  if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0)) throw invalidArg('options.timeout', `must be a non-negative number. Received ${String(timeoutMs)}`, 'ERR_OUT_OF_RANGE');
  const killSignal = signalNumber(options.killSignal ?? 'SIGTERM', 'options.killSignal');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw invalidArg('options.signal', 'must be an AbortSignal');
  let argv = args;
  if (options.shell) {
    const command = [file, ...args].join(' ');
    file = typeof options.shell === 'string' ? options.shell : '/bin/sh';
    argv = ['-c', command];
  }
  const argv0 = typeof options.argv0 === 'string' ? options.argv0 : (file as string);
  return {
    file: file as string,
    argv: [argv0, ...argv],
    envp: options.env ? envPairs(options.env) : isMainThread ? null : envPairs(process.env),
    cwd,
    stdio: normalizeStdio(options.stdio),
    detached: Boolean(options.detached),
    timeoutMs,
    killSignal,
    signal: options.signal,
  };
}
