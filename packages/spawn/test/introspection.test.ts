// What a program sees of a running child through Node's introspection, side by side with child_process:
// process._getActiveHandles() lists its ChildProcess while it is referenced; Node's 'child_process' diagnostics
// channel publishes it; and no descriptor of the parent is left for it once 'exit' is emitted.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import dc from 'node:diagnostics_channel';
import { readdirSync, readlinkSync } from 'node:fs';
import './helpers/addon.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const impls = [
  ['child_process', childProcess.spawn],
  ['forklab', forklab.spawn],
] as const;

const handles = (): unknown[] => (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();

test('process._getActiveHandles() lists a running child’s ChildProcess while it is referenced, not after unref(), as child_process', async () => {
  const seen: Record<string, boolean[]> = {};
  for (const [name, spawn] of impls) {
    const c = spawn('sleep', ['5'], { stdio: 'ignore', ...LIMIT });
    const listed = handles().includes(c);
    c.unref();
    const afterUnref = handles().includes(c);
    c.ref();
    const afterRef = handles().includes(c);
    c.kill('SIGKILL');
    await new Promise((r) => c.on('close', r));
    seen[name] = [listed, afterUnref, afterRef]; // (in 'close', Node's own is still listed: its close is under way)
  }
  assert.deepEqual(seen.child_process, [true, false, true], JSON.stringify(seen));
  assert.deepEqual(seen.forklab, seen.child_process);
});

test('no descriptor of the parent is left for a child once its exit is reported (in ’exit’ and ’close’), as child_process', async () => {
  // every descriptor a spawn could leave behind (pipes, sockets, pidfds and other anonymous inodes, devices), with
  // what it is; not files and directories, which the test harness opens when it likes (tsx writes its cache in
  // /tmp/tsx-0 asynchronously: a directory descriptor of its appeared here between 'before' and 'exit')
  const fds = () =>
    readdirSync('/proc/self/fd').flatMap((n) => {
      try {
        const what = readlinkSync(`/proc/self/fd/${n}`);
        return what.startsWith('/') && !what.startsWith('/dev/') ? [] : [`${n} ${what}`];
      } catch {
        return [];
      }
    });
  const seen: Record<string, string[][]> = {};
  for (const [name, spawn] of impls) {
    const before = fds();
    const added = () => fds().filter((f) => !before.includes(f));
    const c = spawn('true', [], { stdio: 'ignore', ...LIMIT });
    const atExit = new Promise<string[]>((r) => c.on('exit', () => r(added())));
    const atClose = new Promise<string[]>((r) => c.on('close', () => r(added())));
    seen[name] = [await atExit, await atClose];
  }
  assert.deepEqual(seen.child_process, [[], []]);
  assert.deepEqual(seen.forklab, seen.child_process);
});

test('Node’s own ’child_process’ diagnostics channel publishes the ChildProcess of every call, as child_process', async () => {
  const got: unknown[] = [];
  const onMessage = (m: unknown) => got.push((m as { process?: unknown }).process);
  dc.subscribe('child_process', onMessage);
  try {
    const made: unknown[] = [];
    for (const [, spawn] of impls) {
      const c = spawn('true', [], { stdio: 'ignore', ...LIMIT });
      made.push(c);
      await new Promise((r) => c.on('close', r));
    }
    assert.deepEqual(got, made);
  } finally {
    dc.unsubscribe('child_process', onMessage);
  }
});
