// Signals and the child's starting state, side by side with child_process: the names Node gives (SIGIO, never
// SIGPOLL; a real-time signal has none, so child_process reports exit code 0), what libuv's child resets (signals
// 1-31 to their defaults; above, an ignored signal stays ignored) and 'ignore' stdin (/dev/null read-only).
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { spawnSync as plainSpawnSync } from 'node:child_process';
import './helpers/addon.js';
import * as forklab from '../src/index.js';
import { both, type Observed } from './helpers/observe.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const served = (fn: forklab.FunctionName) => forklab.registerStats().byFunction[fn]?.served ?? 0;

function same(a: Observed, b: Observed, what: string): void {
  assert.equal(a.timedOut || b.timedOut, false, `${what}: a child hit the time limit`);
  assert.deepEqual(b.events, a.events, `${what}: events`);
  assert.equal(b.exitCode, a.exitCode, `${what}: exitCode`);
  assert.equal(b.signalCode, a.signalCode, `${what}: signalCode`);
  assert.deepEqual(b.stdout, a.stdout, `${what}: stdout`);
}

test('death by SIGIO, SIGPWR, SIGSYS, SIGSTKFLT, SIGABRT: the names Node gives, async and sync', async () => {
  for (const sig of ['IO', 'PWR', 'SYS', 'STKFLT', 'ABRT']) {
    const before = served('spawn');
    const [a, b] = await both('sh', ['-c', `kill -${sig} $$`]);
    same(a, b, sig);
    assert.equal(served('spawn'), before + 1);
    const theirs = childProcess.spawnSync('sh', ['-c', `kill -${sig} $$`], LIMIT);
    const beforeSync = served('spawnSync');
    const ours = forklab.spawnSync('sh', ['-c', `kill -${sig} $$`], LIMIT);
    assert.deepEqual([ours.status, ours.signal], [theirs.status, theirs.signal], sig);
    assert.equal(served('spawnSync'), beforeSync + 1);
  }
  const io = forklab.spawnSync('sh', ['-c', 'kill -IO $$'], LIMIT);
  assert.equal(io.signal, 'SIGIO');
});

test('death by a real-time signal: no name in Node, so what child_process reports (exit code 0)', async () => {
  for (const n of [34, 40, 64]) {
    const [a, b] = await both('sh', ['-c', `kill -${n} $$`]);
    same(a, b, `signal ${n}`);
    const theirs = childProcess.spawnSync('sh', ['-c', `kill -${n} $$`], LIMIT);
    const ours = forklab.spawnSync('sh', ['-c', `kill -${n} $$`], LIMIT);
    assert.deepEqual([ours.status, ours.signal, ours.error], [theirs.status, theirs.signal, theirs.error], `signal ${n}`);
    const execTheirs = (() => {
      try {
        return childProcess.execSync(`kill -${n} $$`, LIMIT).toString();
      } catch (e) {
        return `${(e as Error).message} ${(e as { status?: unknown }).status} ${(e as { signal?: unknown }).signal}`;
      }
    })();
    const execOurs = (() => {
      try {
        return forklab.execSync(`kill -${n} $$`, LIMIT).toString();
      } catch (e) {
        return `${(e as Error).message} ${(e as { status?: unknown }).status} ${(e as { signal?: unknown }).signal}`;
      }
    })();
    assert.equal(execOurs, execTheirs, `execSync, signal ${n}`);
  }
});

test("'ignore' stdin is /dev/null opened read-only, stdout and stderr read-write", async () => {
  const script = 'cut -f2 /proc/self/fdinfo/0 | head -1; (echo w >&0) 2>/dev/null && echo writable || echo read-only';
  const [a, b] = await both('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  same(a, b, 'stdin');
  assert.match(b.stdout.toString(), /read-only/);
  const theirs = childProcess.spawnSync('sh', ['-c', script], { ...LIMIT, stdio: ['ignore', 'pipe', 'ignore'] });
  const ours = forklab.spawnSync('sh', ['-c', script], { ...LIMIT, stdio: ['ignore', 'pipe', 'ignore'] });
  assert.equal(ours.stdout.toString(), theirs.stdout.toString());
});

// A parent that ignores SIGHUP (1) and signal 40 (started under python3, which can set that): libuv's child sets
// 1-31 to their defaults and leaves 40 ignored; Node's own SIGPIPE (ignored) is reset too.
test('signal dispositions: 1-31 reset, a real-time signal the parent ignores stays ignored; the mask empty', (t) => {
  const probe = plainSpawnSync('python3', ['-c', 'import signal'], { timeout: 10_000 });
  if (probe.status !== 0) return t.skip('python3 is needed to start Node with signals ignored (apt-get install python3)');
  const index = new URL('../src/index.ts', import.meta.url).href;
  const code = `import * as cp from 'node:child_process';
const f = await import(${JSON.stringify(index)});
const status = (m) => new Promise((res) => { const c = m.spawn('sh', ['-c', 'grep -E "^Sig(Blk|Ign)" /proc/self/status'], { timeout: 30000 });
  let s = ''; c.stdout.on('data', (d) => (s += d)); c.on('close', () => res(s)); });
const sync = (m) => m.spawnSync('sh', ['-c', 'grep -E "^Sig(Blk|Ign)" /proc/self/status'], { timeout: 30000, encoding: 'utf8' }).stdout;
console.log(JSON.stringify({ theirs: await status(cp), ours: await status(f), theirsSync: sync(cp), oursSync: sync(f), served: f.registerStats().served }));`;
  const py = `import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.signal(40, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])`;
  const r = plainSpawnSync('python3', ['-c', py, process.execPath, '--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, string | number>;
  assert.equal(out.ours, out.theirs);
  assert.equal(out.oursSync, out.theirsSync);
  assert.equal(out.served, 2);
  // signal 40 is bit 39: 0x0000008000000000
  assert.match(String(out.ours), /SigBlk:\s+0+\nSigIgn:\s+0000008000000000\n/);
});
