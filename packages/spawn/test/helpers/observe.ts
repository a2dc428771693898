// Runs one case through node:child_process and through forklab/spawn and records what each did, so a
// test can compare them field by field. Every child gets a time limit (SIGKILL, then the test fails).
import * as childProcess from 'node:child_process';
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import './addon.js';
import { spawn as forklabSpawn } from '../../src/index.js';

export const LIMIT_MS = 30_000;

export interface Spawned extends EventEmitter {
  pid?: number | undefined;
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable | null;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  killed: boolean;
  kill(signal?: NodeJS.Signals | number): boolean;
}

export type SpawnFn = (command: string, args: string[], options?: object) => Spawned;

export const impls: [string, SpawnFn][] = [
  ['child_process', childProcess.spawn as unknown as SpawnFn],
  ['forklab', forklabSpawn as unknown as SpawnFn],
];

export interface ErrorShape {
  name: string;
  message: string;
  code: unknown;
  errno: unknown;
  syscall: unknown;
  path: unknown;
  spawnargs: unknown;
}

export function errorShape(e: unknown): ErrorShape {
  const x = e as Error & Record<string, unknown>;
  return { name: x.name, message: x.message, code: x.code, errno: x.errno, syscall: x.syscall, path: x.path, spawnargs: x.spawnargs };
}

export interface Observed {
  events: unknown[][];
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  pid: number | undefined;
  timedOut: boolean;
}

export interface ObserveOptions {
  input?: Buffer | string;
  /** called once the child exists (after spawn() returned) */
  during?: (child: Spawned) => void;
}

export async function observe(spawnFn: SpawnFn, command: string, args: string[], options: object = {}, o: ObserveOptions = {}): Promise<Observed> {
  const child = spawnFn(command, args, options);
  const events: unknown[][] = [];
  for (const name of ['spawn', 'exit', 'close', 'error']) {
    child.on(name, (...a: unknown[]) => events.push([name, ...a.map((x) => (x instanceof Error ? errorShape(x) : x))]));
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  if (child.stdin) {
    child.stdin.on('error', () => {});
    if (o.input !== undefined) child.stdin.end(o.input);
  }
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, LIMIT_MS);
  o.during?.(child);
  await new Promise<void>((resolve) => child.on('close', () => resolve()));
  clearTimeout(limit);
  return { events, stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode: child.exitCode, signalCode: child.signalCode, pid: child.pid, timedOut };
}

/** Both implementations on the same case. */
export async function both(command: string, args: string[], options: object = {}, o: ObserveOptions = {}): Promise<[Observed, Observed]> {
  const a = await observe(impls[0]![1], command, args, options, o);
  const b = await observe(impls[1]![1], command, args, options, o);
  return [a, b];
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
