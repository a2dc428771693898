// Children of forklab and of node:child_process alive at once, on every Node: libuv >= 1.52 (Node 24, 26) takes
// a process handle out of its loop's queue when uv_spawn fails early, and closing Node's unused handle then
// corrupted the heap; forklab's release now puts it back first. A child reaped behind its owner's back (a
// foreign waitpid(-1)) is what libuv makes of it: never reported, keeping the process alive while referenced.
// Running children are listed by process.getActiveResourcesInfo() as Node lists its own. Node's unused handle
// is freed: the heap kept per call after gc() stays that of child_process.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import './helpers/addon.js';
import { cfixture, cfixtureWhyNot } from './helpers/cfixture.js';
import { state } from '../src/internals.js';
import { native } from '../src/native.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const uvMinor = Number(process.versions.uv.split('.')[1]);

function closed(c: childProcess.ChildProcess): Promise<[number | null, NodeJS.Signals | null]> {
  return new Promise((resolve, reject) => {
    c.on('error', reject);
    c.on('close', (code, sig) => resolve([code, sig]));
  });
}

test('40 children at once, every other one through forklab, five rounds: each exit to its owner, no crash', async () => {
  const before = forklab.registerStats().byFunction.spawn?.served ?? 0;
  const released = [...state.released];
  for (let round = 0; round < 5; round++) {
    const children = Array.from({ length: 40 }, (_, i) => (i % 2 ? forklab.spawn : childProcess.spawn)('sh', ['-c', `sleep 0.2; exit ${i}`], LIMIT));
    const results = await Promise.all(children.map(closed));
    assert.deepEqual(
      results.map(([code]) => code),
      Array.from({ length: 40 }, (_, i) => i),
    );
  }
  assert.equal(forklab.registerStats().byFunction.spawn?.served, before + 100);
  // Node's unused handle was closed each time: put back in the queue first where libuv takes it out (1.52+)
  const delta = state.released.map((n, i) => n - (released[i] as number));
  assert.deepEqual(delta, uvMinor >= 52 ? [0, 0, 0, 100] : [0, 0, 100, 0], `libuv ${process.versions.uv}`);
});

test('a mixed workload: sequential spawns with every kind of stdio, kills, timeouts, exec, then concurrent ones', async () => {
  const kinds: childProcess.StdioOptions[] = ['pipe', 'ignore', 'inherit', ['ignore', 'pipe', 2], ['pipe', 'pipe', 'pipe', 'pipe']];
  for (let i = 0; i < 300; i++) {
    const [code] = await closed((i % 3 ? forklab.spawn : childProcess.spawn)('sh', ['-c', 'exit 3'], { ...LIMIT, stdio: kinds[i % kinds.length] }));
    assert.equal(code, 3);
  }
  const kills = Array.from({ length: 20 }, (_, i) => {
    const c = (i % 2 ? forklab.spawn : childProcess.spawn)('sleep', ['5'], LIMIT);
    setTimeout(() => c.kill(i % 4 < 2 ? 'SIGTERM' : 'SIGKILL'), 5 + i);
    return closed(c);
  });
  assert.ok((await Promise.all(kills)).every(([, sig]) => sig === 'SIGTERM' || sig === 'SIGKILL'));
  const timeouts = Array.from(
    { length: 10 },
    (_, i) => new Promise((res) => (i % 2 ? forklab.execFile : childProcess.execFile)('sleep', ['5'], { timeout: 20 + i }, (e) => res(e?.signal))),
  );
  assert.deepEqual(await Promise.all(timeouts), Array(10).fill('SIGTERM'));
  const execs = Array.from({ length: 10 }, (_, i) => new Promise((res) => (i % 2 ? forklab.exec : childProcess.exec)('echo hi; exit 2', LIMIT, (e, out) => res([e?.code, out]))));
  assert.deepEqual(await Promise.all(execs), Array(10).fill([2, 'hi\n']));
  const many = await Promise.all(Array.from({ length: 100 }, (_, i) => closed((i % 2 ? forklab.spawn : childProcess.spawn)('sh', ['-c', `exit ${i % 7}`], LIMIT))));
  assert.deepEqual(
    many.map(([c]) => c),
    Array.from({ length: 100 }, (_, i) => i % 7),
  );
});

test('a child reaped by a foreign waitpid(-1): no exit, no error, still referenced (as with libuv); unref lets the process end', (t) => {
  const reaper = cfixture('reap-any', 'addon');
  if (!reaper) return t.skip(cfixtureWhyNot);
  const index = new URL('../src/index.ts', import.meta.url).href;
  const code = `import * as cp from 'node:child_process';
import { createRequire } from 'node:module';
const { reapAny } = createRequire(import.meta.url)(${JSON.stringify(reaper)});
const f = await import(${JSON.stringify(index)});
const seen = {};
for (const [name, m] of [['child_process', cp], ['forklab', f]]) {
  const c = m.spawn('sh', ['-c', 'exit 5'], { stdio: 'ignore' });
  const events = [];
  for (const e of ['spawn', 'exit', 'error', 'close']) c.on(e, (...a) => events.push([e, ...a.map(String)]));
  const reaped = reapAny();
  await new Promise((r) => setTimeout(r, 300));
  seen[name] = { reaped: reaped === c.pid, events, exitCode: c.exitCode, kill: c.kill(), resources: process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length };
  c.unref();
}
seen.served = f.registerStats().served;
console.log(JSON.stringify(seen));`;
  const r = childProcess.spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, `the process ended by itself once both were unref'd: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
  assert.deepEqual(out.forklab, out.child_process);
  assert.deepEqual(out.forklab, { reaped: true, events: [['spawn']], exitCode: null, kill: false, resources: 1 });
  assert.equal(out.served, 1);
});

test('a child reaped by a foreign waitpid(-1) before its pidfd could be opened (ESRCH): no signal to its pid, and what libuv makes of it', (t) => {
  // A preloaded library reaps the child inside pidfd_open (as a waitpid(-1) in another thread can, between
  // posix_spawn and pidfd_open) and reports any kill() of that pid instead of sending it: the pid may already
  // name another process. child_process's reference is a child reaped by waitpid(-1) right after spawn.
  if (native().features?.pidfdSpawn) return t.skip('pidfd_spawn (glibc 2.39) gives the pidfd with the child: pidfd_open is never called');
  const preload = cfixture('reap-before-pidfd', 'addon');
  const reaper = cfixture('reap-any', 'addon');
  if (!preload || !reaper) return t.skip(cfixtureWhyNot);
  const index = new URL('../src/index.ts', import.meta.url).href;
  const env = { ...process.env, LD_PRELOAD: preload };
  const code = `import * as cp from 'node:child_process';
import { createRequire } from 'node:module';
const { reapAny } = createRequire(import.meta.url)(${JSON.stringify(reaper)});
const f = await import(${JSON.stringify(index)});
const seen = {};
for (const [name, m] of [['child_process', cp], ['forklab', f]]) {
  if (name === 'forklab') process.env.FORKLAB_TEST_REAP_FIRST = '1';
  const c = m.spawn('sh', ['-c', 'exit 5'], { stdio: 'ignore' });
  delete process.env.FORKLAB_TEST_REAP_FIRST;
  const events = [];
  for (const e of ['spawn', 'exit', 'error', 'close']) c.on(e, (...a) => events.push([e, ...a.map(String)]));
  if (name === 'child_process' && reapAny() !== c.pid) throw new Error('reapAny reaped another child');
  await new Promise((r) => setTimeout(r, 300));
  seen[name] = { pid: c.pid > 0, events, exitCode: c.exitCode, kill: c.kill(), resources: process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length };
  c.unref();
}
seen.served = f.registerStats().served;
console.log(JSON.stringify(seen));`;
  const r = childProcess.spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000, env });
  assert.doesNotMatch(r.stderr, /reap-before-pidfd: kill/, 'no signal sent to a pid that may name another process');
  assert.equal(r.status, 0, `the process ended by itself once both were unref'd: ${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
  assert.deepEqual(out.forklab, out.child_process);
  assert.deepEqual(out.forklab, { pid: true, events: [['spawn']], exitCode: null, kill: false, resources: 1 });
  assert.equal(out.served, 1);
});

test('spawnSync of a child reaped before its pidfd could be opened: no signal to its pid; it waits, as libuv waits for an exit it will never see', async (t) => {
  if (native().features?.pidfdSpawn) return t.skip('pidfd_spawn (glibc 2.39) gives the pidfd with the child: pidfd_open is never called');
  const preload = cfixture('reap-before-pidfd', 'addon');
  if (!preload) return t.skip(cfixtureWhyNot);
  const index = new URL('../src/index.ts', import.meta.url).href;
  const code = `const f = await import(${JSON.stringify(index)});
process.env.FORKLAB_TEST_REAP_FIRST = '1';
console.log('calling');
const r = f.spawnSync('sh', ['-c', 'exit 5'], { timeout: 100 });
console.log('returned', JSON.stringify([r.status, r.signal, r.error?.code]));`;
  const c = childProcess.spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    env: { ...process.env, LD_PRELOAD: preload },
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  c.stdout.on('data', (d) => {
    stdout += d;
    // still inside spawnSync well after its timeout: stopped here
    if (stdout.includes('calling')) setTimeout(() => c.kill('SIGKILL'), 1000);
  });
  c.stderr.on('data', (d) => {
    stderr += d;
  });
  const [, signal] = await closed(c);
  assert.doesNotMatch(stderr, /reap-before-pidfd: kill/, 'no signal sent to a pid that may name another process');
  assert.match(stdout, /calling/, stderr);
  assert.doesNotMatch(stdout, /returned/, 'spawnSync does not return: the exit of a child reaped by someone else is never seen');
  assert.equal(signal, 'SIGKILL');
});

test('process.getActiveResourcesInfo(): a spawn that failed (ENOENT) is a ProcessWrap until child_process closes it, as with child_process', async () => {
  const count = () => process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length;
  const seen: number[][] = [];
  for (const m of [childProcess, forklab]) {
    await new Promise((r) => setTimeout(r, 20));
    const base = count();
    const c = m.spawn('/nonexistent/forklab-missing', [], { ...LIMIT, stdio: 'ignore' });
    const right = count() - base;
    let err: NodeJS.ErrnoException | undefined;
    c.on('error', (e) => (err = e));
    await new Promise((r) => c.on('close', r));
    await new Promise((r) => setTimeout(r, 20));
    seen.push([right, count() - base, err?.code === 'ENOENT' ? 1 : 0]);
  }
  assert.deepEqual(seen[0], [1, 0, 1]);
  assert.deepEqual(seen[1], seen[0]);
});

test('process.getActiveResourcesInfo(): a closing ProcessWrap is listed until its close callback, right after a spawn that throws (cwd a file: ENOTDIR) and in the exit listener, as with child_process', async () => {
  const count = () => process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length;
  const settle = () => new Promise((r) => setTimeout(r, 20)); // closed handles go in the loop's close phase
  const seen: unknown[][] = [];
  for (const m of [childProcess, forklab]) {
    await settle();
    const base = count();
    let thrown: string | undefined;
    try {
      m.spawn('true', [], { ...LIMIT, stdio: 'ignore', cwd: '/etc/passwd' });
    } catch (e) {
      thrown = (e as NodeJS.ErrnoException).code;
    }
    const afterThrow = count() - base;
    await settle();
    const settled = count() - base;
    const c = m.spawn('true', [], { ...LIMIT, stdio: 'ignore' });
    const exited = new Promise<number>((r) => c.on('exit', () => r(count() - base)));
    const done = closed(c);
    const inExit = await exited;
    await done;
    await settle();
    seen.push([thrown, afterThrow, settled, inExit, count() - base]);
  }
  assert.deepEqual(seen[0], ['ENOTDIR', 1, 0, 1, 0]);
  assert.deepEqual(seen[1], seen[0]);
});

test('process.getActiveResourcesInfo(): a running child is a ProcessWrap until it exits or is unref’d, as with child_process', async () => {
  const count = () => process.getActiveResourcesInfo().filter((x) => x === 'ProcessWrap').length;
  const seen: number[][] = [];
  const settle = () => new Promise((r) => setTimeout(r, 20)); // closed handles go in the loop's close phase
  for (const m of [childProcess, forklab]) {
    await settle();
    const base = count();
    const c = m.spawn('sleep', ['5'], { ...LIMIT, stdio: 'ignore' });
    const running = count() - base;
    c.unref();
    const unrefd = count() - base;
    c.ref();
    const refd = count() - base;
    c.kill();
    await closed(c);
    await settle();
    seen.push([running, unrefd, refd, count() - base]);
  }
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[1], [1, 0, 1, 0]);
});

test('the heap kept per call after gc() is small, as child_process’s: Node’s unused handle is freed', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 10));
      gc();
    }
  };
  const perCall: Record<string, number> = {};
  const N = 300;
  for (const [name, m] of [
    ['child_process', childProcess],
    ['forklab', forklab],
  ] as const) {
    for (let i = 0; i < 100; i++) await closed(m.spawn('/bin/true', [], { ...LIMIT, stdio: i % 2 ? 'ignore' : 'pipe' }));
    // the least of three rounds: a leak grows in every one, the collector's noise (± 200 bytes a call here) does not
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      await settle();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < N; i++) await closed(m.spawn('/bin/true', [], { ...LIMIT, stdio: i % 2 ? 'ignore' : 'pipe' }));
      await settle();
      rounds.push((process.memoryUsage().heapUsed - before) / N);
    }
    perCall[name] = Math.min(...rounds);
  }
  // a Process handle never released keeps about 300 bytes of heap, and through its onexit the child (2 KB)
  assert.ok((perCall.forklab as number) < 500, `forklab keeps ${perCall.forklab?.toFixed(0)} bytes a call (child_process ${perCall.child_process?.toFixed(0)})`);
});
