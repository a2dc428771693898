// Many children, sequential and concurrent: each reaped (no zombie), no descriptor left open, and
// children of node:child_process running at the same time are reaped by their own owner.
// FORKLAB_SPAWN_SEQUENTIAL / FORKLAB_SPAWN_CONCURRENT change the counts (defaults: 10000 and 200).
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import './helpers/addon.js';
import { spawn, run } from '../src/index.js';
import { childrenOf } from '../../../test/helpers/procs.js';

const test = sideBySide(import.meta.url);

const SEQUENTIAL = Number(process.env.FORKLAB_SPAWN_SEQUENTIAL ?? 10_000);
const CONCURRENT = Number(process.env.FORKLAB_SPAWN_CONCURRENT ?? 200);
const LIMIT_MS = 30_000;

/** This process's open descriptors of the kinds a spawn opens (pipes, sockets, pidfds, devices), each as
 * 'N -> what it refers to'; not files and directories, which the harness opens when it likes (tsx's cache). */
function openFds(): Set<string> {
  const fds = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const what = readlinkSync(`/proc/self/fd/${fd}`);
      if (!what.startsWith('/') || what.startsWith('/dev/')) fds.add(`${fd} -> ${what}`);
    } catch {
      // the descriptor readdir itself used, closed by now
    }
  }
  return fds;
}

/** Descriptors open now that were not open before: what the spawns left behind. (One that the runtime closed
 * meanwhile, a helper's pipe under load, say, is no leak and is not counted.) */
function leaked(before: Set<string>): string[] {
  return [...openFds()].filter((fd) => !before.has(fd));
}

/** Resolves with [exitCode, signalCode] on 'close'; the child is killed if it outlives LIMIT_MS. */
function finished(child: { on(e: string, f: (...a: unknown[]) => void): unknown; kill(s?: NodeJS.Signals): boolean }): Promise<[unknown, unknown]> {
  const limit = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(limit);
      resolve([code, sig]);
    });
  });
}

async function settle(): Promise<void> {
  // let the streams' close callbacks run before counting descriptors
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
}

// (10,000 of child_process's fork+exec take about 2.5 min on a loaded machine: the reference run under register did not
// finish within the default 2 min limit)
test(`${SEQUENTIAL} sequential spawns: every exit seen, no zombie, descriptors unchanged`, { timeout: 600_000 }, async () => {
  await run('true', [], { timeout: LIMIT_MS, killSignal: 'SIGKILL' }); // first use: the addon's and streams' one-time allocations
  await settle();
  const fdsBefore = openFds();
  const rssBefore = process.memoryUsage().rss;
  for (let i = 0; i < SEQUENTIAL; i++) {
    const [code] = await finished(spawn('/bin/true', [], { stdio: i % 2 ? 'ignore' : 'pipe' }));
    assert.equal(code, 0);
  }
  await settle();
  assert.deepEqual(childrenOf(process.pid), tsxHelpers());
  assert.deepEqual(leaked(fdsBefore), []);
  const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  assert.ok(grownMb < 64, `RSS grew by ${grownMb.toFixed(1)} MB over ${SEQUENTIAL} spawns`);
});

test(`${CONCURRENT} concurrent spawns: each exit status to its own child`, async () => {
  await settle();
  const fdsBefore = openFds();
  const children = Array.from({ length: CONCURRENT }, (_, i) => spawn('sh', ['-c', `exit ${i % 256}`]));
  const results = await Promise.all(children.map(finished));
  for (const [i, [code]] of results.entries()) assert.equal(code, i % 256);
  await settle();
  assert.deepEqual(childrenOf(process.pid), tsxHelpers());
  assert.deepEqual(leaked(fdsBefore), []);
});

test('children of node:child_process and of forklab/spawn at once: each reaped by its owner', async () => {
  const ours = Array.from({ length: 40 }, (_, i) => spawn('sh', ['-c', `sleep 0.0${i % 10}; exit ${i + 1}`]));
  const theirs = Array.from({ length: 40 }, (_, i) => childProcess.spawn('sh', ['-c', `sleep 0.0${i % 10}; exit ${i + 101}`]));
  const sync = childProcess.spawnSync('sh', ['-c', 'exit 42'], { timeout: LIMIT_MS });
  const [a, b] = await Promise.all([Promise.all(ours.map(finished)), Promise.all(theirs.map(finished))]);
  assert.equal(sync.status, 42);
  for (const [i, [code]] of a.entries()) assert.equal(code, i + 1, `forklab child ${i}`);
  for (const [i, [code]] of b.entries()) assert.equal(code, i + 101, `child_process child ${i}`);
  await settle();
  assert.deepEqual(childrenOf(process.pid), tsxHelpers());
});

/** Processes the test runner itself keeps (tsx's esbuild service), present before any spawn. */
const baseline = childrenOf(process.pid);
function tsxHelpers(): number[] {
  return baseline.filter((p) => childrenOf(process.pid).includes(p));
}
