// When a child dies while the parent's event loop is busy, its exit and what its death closes (the IPC channel,
// the pipes' EOF) are all ready at the next poll. Node reports its own children's exits from libuv's SIGCHLD pipe,
// which that poll handles after every other descriptor, so 'disconnect' and the pipes' 'end' come before 'exit'.
// forklab's pidfd is a descriptor like the others: its exit is reported in the check phase of that loop turn
// (native/watch.c), so the order is the same, side by side, whatever order epoll lists the descriptors in.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import './helpers/addon.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const sleeper = new URL('./fixtures/sleep-child.cjs', import.meta.url).pathname;
const impls = [
  ['child_process', childProcess],
  ['forklab', forklab],
] as const;

const blockMs = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const served = (fn: forklab.FunctionName) => forklab.registerStats().byFunction[fn]?.served ?? 0;

/** Kills the child, keeps the loop busy until it is dead, and lists what follows until 'close' (and one timer). */
async function eventsAfterDeath(start: () => ChildProcess): Promise<string[]> {
  await new Promise((r) => setTimeout(r, 10)); // every run starts in the same phase of the loop: a timer
  const child = start();
  await new Promise((r) => child.once('spawn', r));
  const seen: string[] = [];
  const closed = new Promise<void>((resolve) => {
    for (const name of ['exit', 'close', 'disconnect']) {
      child.on(name, () => {
        seen.push(name);
        if (name === 'close') resolve();
      });
    }
  });
  child.stdout?.on('end', () => seen.push('stdout end'));
  child.stderr?.on('end', () => seen.push('stderr end'));
  child.kill('SIGKILL');
  blockMs(300); // the child dies meanwhile: its exit, its channel's and its pipes' ends are ready together
  setImmediate(() => seen.push('immediate'));
  await closed;
  await new Promise((r) => setTimeout(r, 20));
  return seen;
}

test('fork, the child killed while the loop is busy: disconnect, the pipes’ end, exit and close in child_process’s order', async () => {
  const before = served('fork');
  const orders: string[][] = [];
  for (const [, m] of impls) {
    orders.push(await eventsAfterDeath(() => m.fork(sleeper, [], { ...LIMIT, execArgv: [], stdio: ['pipe', 'pipe', 'pipe', 'ipc'] })));
  }
  assert.equal(served('fork'), before + 1);
  const [reference, subject] = orders as [string[], string[]];
  assert.ok(reference.indexOf('disconnect') < reference.indexOf('exit'), `child_process: ${reference.join(', ')}`);
  assert.deepEqual(subject, reference);
});

test('spawn, the child killed while the loop is busy: the pipes’ end, exit and close in child_process’s order', async () => {
  const before = served('spawn');
  const orders: string[][] = [];
  for (const [, m] of impls) {
    orders.push(await eventsAfterDeath(() => m.spawn(process.execPath, [sleeper], { ...LIMIT, stdio: 'pipe' })));
  }
  assert.equal(served('spawn'), before + 1);
  const [reference, subject] = orders as [string[], string[]];
  assert.ok(reference.indexOf('stdout end') < reference.indexOf('exit'), `child_process: ${reference.join(', ')}`);
  assert.deepEqual(subject, reference);
});
