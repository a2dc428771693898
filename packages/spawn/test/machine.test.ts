// The machine's limits, side by side with child_process: a kernel without waitid(P_PIDFD) (Linux 5.3) or without
// pidfd_open (< 5.3), made here by a seccomp filter: the addon refuses to load and every call is child_process's,
// counted (spawnSync returns, nothing spins); a posix_spawn that runs as a plain fork (qemu-user) is refused too;
// descriptors: a closed one in stdio is EBADF, thrown, as child_process; at the process's descriptor limit a spawn
// fails with EMFILE and leaks nothing. run()'s own bad options reject before anything starts.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { closeSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { cfixture, cfixtureWhyNot } from './helpers/cfixture.js';
import { installed, lastJson, type NodeRun } from './helpers/installed.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const inst = installed();
const served = (fn: forklab.FunctionName) => forklab.registerStats().byFunction[fn]?.served ?? 0;

function run(argv: string[], env: NodeJS.ProcessEnv = {}): NodeRun {
  const r = childProcess.spawnSync(argv[0] as string, argv.slice(1), {
    cwd: inst.project,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
    env: { ...process.env, NODE_OPTIONS: '', FORKLAB_SPAWN_ADDON: '', ...env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const OLD_KERNEL_APP = `import cp from 'node:child_process';
import * as f from '@forklab/spawn';
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const sync = (m) => { const r = m.spawnSync('sh', ['-c', 'echo out; exit 3'], { encoding: 'utf8', timeout: 20000 }); return [r.status, r.stdout]; };
const out = { theirs: [await done(cp.spawn('sh', ['-c', 'exit 4'])), sync(cp)], ours: [await done(f.spawn('sh', ['-c', 'exit 4'])), sync(f)] };
const s = f.registerStats();
console.log(JSON.stringify({ ...out, served: s.served, fallbacks: s.fallbacks, why: f.unavailableReason() }));`;

for (const [mode, lacks] of [
  ['waitid', /waitid\(P_PIDFD\) \(Linux 5\.4\)/],
  ['pidfd', /pidfd_open \(Linux 5\.3\)/],
] as const) {
  test(`a kernel ${mode === 'waitid' ? 'with pidfd_open but no waitid(P_PIDFD) (Linux 5.3)' : 'without pidfd_open'}: the addon refuses to load, every call is child_process's, counted`, (t) => {
    const launcher = cfixture('seccomp-exec', 'exe');
    if (!launcher) return t.skip(cfixtureWhyNot);
    if (process.arch !== 'x64' && process.arch !== 'arm64') return t.skip(`the seccomp filter is written for x64 and arm64, not ${process.arch}`);
    const file = join(inst.project, 'old-kernel.mjs');
    writeFileSync(file, OLD_KERNEL_APP);
    const r = run([launcher, mode, process.execPath, file]);
    assert.equal(r.status, 0, r.stderr);
    const out = lastJson<{ theirs: unknown; ours: unknown; served: number; fallbacks: number; why: string }>(r);
    assert.deepEqual(out.ours, out.theirs);
    assert.deepEqual(out.ours, [4, [3, 'out\n']]);
    assert.deepEqual([out.served, out.fallbacks], [0, 2]);
    assert.match(out.why, lacks);
  });
}

// qemu-user runs glibc's clone(CLONE_VM|CLONE_VFORK) as a plain fork, so posix_spawn cannot report an exec
// failure (the child exits 127): a probe at load finds that and the addon refuses, so a missing program is
// ENOENT as through child_process. FORKLAB_SPAWN_SILENT_EXEC_FAILURES=serve serves all the same (what .ci/arm64.sh
// uses to test the rest of the addon under emulation), and then shows the difference the probe guards against.
const EMULATED_APP = `import cp from 'node:child_process';
import * as f from '@forklab/spawn';
// (a time limit only where a child can start: after a failed spawn child_process's timer would hold the loop)
const outcome = (m, file) => new Promise((r) => { const c = m.spawn(file, [], file === 'true' ? { timeout: 60000 } : {}); c.on('error', (e) => r('error ' + e.code)); c.on('close', (code) => r('exit ' + code)); });
const both = async (file) => [await outcome(cp, file), await outcome(f, file)];
const out = { missing: await both('/nonexistent/forklab'), runs: await both('true') };
console.log(JSON.stringify({ ...out, served: f.registerStats().served, why: f.unavailableReason() }));`;

test('where posix_spawn runs as a plain fork (qemu-user): the addon refuses, a missing program is ENOENT as through child_process', (t) => {
  const qemu = `qemu-${process.arch === 'x64' ? 'x86_64' : 'aarch64'}`;
  // Whether qemu can run this Node starting a child through child_process alone (Debian's qemu 7.2 cannot for
  // Node 24.22: the emulated Node dies of SIGSEGV in a plain child_process.spawn, forklab not loaded).
  const probe = childProcess.spawnSync(
    qemu,
    ['-cpu', 'max', process.execPath, '-e', "require('child_process').spawn('/nonexistent').on('error', () => {}); require('child_process').spawnSync('/bin/true')"],
    { ...LIMIT, timeout: 60_000, stdio: 'ignore' },
  );
  if (probe.error || probe.status !== 0)
    return t.skip(
      `${qemu} cannot run this Node starting a child through child_process (${probe.error?.message ?? `exit ${probe.status ?? probe.signal}`}; apt-get install qemu-user)`,
    );
  const file = join(inst.project, 'emulated.mjs');
  writeFileSync(file, EMULATED_APP);
  const r = run([qemu, '-cpu', 'max', process.execPath, file], { FORKLAB_SPAWN_SILENT_EXEC_FAILURES: '' });
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ missing: string[]; runs: string[]; served: number; why: string }>(r);
  assert.deepEqual(out.missing, ['error ENOENT', 'error ENOENT']);
  assert.deepEqual(out.runs, ['exit 0', 'exit 0']);
  assert.equal(out.served, 0);
  assert.match(out.why, /posix_spawn ran as a plain fork and reported no exec failure/);
  const served = lastJson<typeof out>(run([qemu, '-cpu', 'max', process.execPath, file], { FORKLAB_SPAWN_SILENT_EXEC_FAILURES: 'serve' }));
  assert.equal(served.why, null);
  assert.equal(served.served, 2);
  assert.deepEqual(served.runs, ['exit 0', 'exit 0']);
  assert.deepEqual(served.missing, ['error ENOENT', 'exit 127'], 'what the probe keeps from happening');
  // and natively the probe finds a posix_spawn that reports: served, ENOENT
  const native = lastJson<typeof out>(run([process.execPath, file], { FORKLAB_SPAWN_SILENT_EXEC_FAILURES: '' }));
  assert.deepEqual([native.why, native.served, native.missing], [null, 2, ['error ENOENT', 'error ENOENT']]);
});

test('a closed descriptor in stdio: EBADF, thrown, as child_process (async and sync), at any position', () => {
  // well above every open descriptor, so that nothing the spawn itself opens can take that number (libuv's own
  // pipes take the lowest free ones: a closed descriptor just below would be theirs by the time the child runs)
  const open = readdirSync('/proc/self/fd').map(Number);
  const fd = Math.max(...open) + 200;
  assert.throws(() => closeSync(fd), { code: 'EBADF' });
  for (const stdio of [
    ['ignore', 'ignore', 'ignore', fd],
    ['pipe', 'pipe', 'pipe', fd],
    ['ignore', fd, 'ignore'],
  ] as childProcess.StdioOptions[]) {
    const outcome = (spawn: typeof childProcess.spawn) => {
      try {
        const c = spawn('true', [], { ...LIMIT, stdio });
        c.kill('SIGKILL');
        return 'started';
      } catch (e) {
        return `threw ${(e as NodeJS.ErrnoException).code} ${(e as Error).message}`;
      }
    };
    const theirs = outcome(childProcess.spawn);
    assert.equal(outcome(forklab.spawn), theirs, JSON.stringify(stdio));
    assert.match(theirs, /threw EBADF/);
    const syncTheirs = childProcess.spawnSync('true', [], { ...LIMIT, stdio }).error as NodeJS.ErrnoException | undefined;
    const before = served('spawnSync');
    const syncOurs = forklab.spawnSync('true', [], { ...LIMIT, stdio }).error as NodeJS.ErrnoException | undefined;
    assert.equal(syncOurs?.code, syncTheirs?.code, `spawnSync ${JSON.stringify(stdio)}`);
    assert.equal(served('spawnSync'), before + 1);
  }
});

// Node at a descriptor limit of 96, every free descriptor taken but `free` of them: the same spawn (pipes, a cwd,
// a PATH search) through both; each either runs or emits EMFILE, and none leaves a descriptor open.
test('at the descriptor limit: EMFILE emitted (never thrown) or the child runs; nothing leaks, whatever is free', () => {
  const file = join(inst.project, 'emfile.mjs');
  writeFileSync(
    file,
    `import cp from 'node:child_process';
import { openSync, closeSync, readdirSync } from 'node:fs';
import * as f from '@forklab/spawn';
const count = () => readdirSync('/proc/self/fd').length;
const attempt = (m, free) => new Promise((resolve) => {
  const before = count();
  const filler = [];
  for (;;) { try { filler.push(openSync('/dev/null', 'r')); } catch { break; } }
  for (let i = 0; i < free && filler.length; i++) closeSync(filler.pop());
  let outcome;
  try {
    const c = m.spawn('sh', ['-c', 'exit 0'], { cwd: '/tmp', stdio: ['pipe', 'pipe', 'pipe'] });
    c.on('error', (e) => (outcome = 'error ' + e.code));
    c.on('close', (code) => { setTimeout(() => { filler.forEach((x) => closeSync(x)); resolve([outcome ?? 'exit ' + code, count() - before]); }, 20); });
  } catch (e) { filler.forEach((x) => closeSync(x)); resolve(['threw ' + e.code, 0]); }
});
const rows = [];
for (let free = 0; free <= 14; free++) rows.push([free, await attempt(cp, free), await attempt(f, free)]);
const s = f.registerStats();
console.log(JSON.stringify({ rows, served: s.served, fallbacks: Object.keys(s.byReason) }));`,
  );
  const r = run(['sh', '-c', 'ulimit -n 96 && exec "$0" "$@"', process.execPath, file]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ rows: [number, [string, number], [string, number]][]; served: number; fallbacks: string[] }>(r);
  for (const [free, theirs, ours] of out.rows) {
    assert.match(theirs[0], /^(exit 0|error EMFILE)$/, `child_process, ${free} free`);
    assert.match(ours[0], /^(exit 0|error EMFILE)$/, `forklab, ${free} free`);
    // (child_process itself, there, leaves some open at a few of these counts: Node's, not compared)
    if (free > 0) assert.equal(ours[1], 0, `descriptors forklab left open with ${free} free`);
  }
  assert.deepEqual(out.rows[0]?.[2], out.rows[0]?.[1], 'none free: both EMFILE');
  assert.equal(out.rows.at(-1)?.[2][0], 'exit 0');
  // the first call, with no descriptor to open the addon with, was child_process's; every later one forklab's:
  // a limit reached once does not make the addon unavailable for good
  assert.equal(out.served, out.rows.length - 1);
  assert.equal(out.fallbacks.length, 1);
  assert.match(out.fallbacks[0] as string, /^unavailable: /);
});

test('run(): an unknown encoding, an input that is neither a string nor a Uint8Array, a negative maxBuffer reject before anything starts', async () => {
  const before = forklab.registerStats().served;
  await assert.rejects(forklab.run('sh', ['-c', 'echo x'], { ...LIMIT, encoding: 'nope' as BufferEncoding }), { code: 'ERR_INVALID_ARG_VALUE', name: 'TypeError' });
  await assert.rejects(forklab.run('cat', [], { ...LIMIT, input: 5 as unknown as string }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  await assert.rejects(forklab.run('cat', [], { ...LIMIT, maxBuffer: -1 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
  assert.equal(forklab.registerStats().served, before, 'no child was started');
  // and the good ones work: every Buffer encoding, Uint8Array input
  assert.equal((await forklab.run('cat', [], { ...LIMIT, encoding: 'hex', input: new Uint8Array([1, 255]) })).stdout, '01ff');
  assert.equal((await forklab.run('cat', [], { ...LIMIT, encoding: 'latin1', input: 'é' })).stdout, 'Ã©');
});
