// The campaign's runner observes a case that leaves it no descriptor, and says so when it cannot observe one.
// Under `ulimit -n 64` with one descriptor free, child_process's spawnSync on Node 20 fails with EMFILE and
// keeps the epoll descriptor of the loop it could not finish making (its libuv's uv_loop_init does not close
// it on that failure; Node 22, 24 and 26 do): the last descriptor is gone, and the runner, which needed one to
// list /proc/self/fd and one to write its result, wrote none, so that run could not be compared with one
// through forklab (seed 20261212 stopped there, at its 57th case). The runner now opens its result first and
// lists descriptors without one; what a program can see (the descriptors left) is compared as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/helpers/tmp.js';
import { pkgDir } from './helpers/addon.js';
import { fuzz, runtime } from './helpers/fuzz.js';
import { installed } from './helpers/installed.js';

const tmp = tempDir('forklab-spawn-runner-');
const inst = installed();
const subject = ['--module', new URL(inst.index).pathname, '--register', new URL(inst.register).pathname];
const LIMIT_MS = 180_000;

/** The case seed 20261212 stopped on: spawnSync through a shell, one descriptor free of 64. */
const lastDescriptor = (fn: string) =>
  JSON.stringify({
    fn,
    command: 'script',
    steps: [{ out: 1 }],
    opts: { shell: true },
    parent: {},
    state: { nofile: 64, fdsFree: 1, env: 'replaced', pollute: { key: 'shell', value: '/bin/sh' } },
  });

test('spawnSync with one descriptor free: both runs are observed, and forklab gives what child_process gives', { timeout: LIMIT_MS + 10_000 }, async () => {
  const r = await fuzz(['--case', lastDescriptor('spawnSync'), ...subject], LIMIT_MS);
  assert.doesNotMatch(r.out, /noResult|runnerFailed/, r.out);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /^no difference \(replay of this one case\)/m);
});

test('a module that takes the last descriptor is caught by the descriptors it leaves, not by a run without a result', { timeout: LIMIT_MS + 10_000 }, async () => {
  const r = await fuzz(['--case', lastDescriptor('spawnSync'), '--module', join(pkgDir, 'test', 'fixtures', 'planted', 'leak-fd.mjs'), '--strict-known'], LIMIT_MS);
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /^ {4}after\.fds\.\/dev\/null: child_process \d+ {2}≠ {2}\d+$/m, r.out);
  assert.doesNotMatch(r.out, /noResult|runnerFailed/, r.out);
});

test('a run the runner could not finish is reported as the runner’s failure, with its reason', { timeout: LIMIT_MS + 10_000 }, async () => {
  const broken = join(tmp, 'throws-on-load.mjs');
  writeFileSync(broken, "throw new Error('planted: this module cannot be loaded');\n");
  const kase = JSON.stringify({ fn: 'spawn', command: 'script', steps: [{ out: 1 }], opts: {}, parent: {}, state: {} });
  const r = await fuzz(['--case', kase, '--module', broken, '--strict-known'], LIMIT_MS);
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /^ {4}runnerFailed\.message: child_process \(absent\) {2}≠ {2}"planted: this module cannot be loaded"$/m, r.out);
  assert.match(r.out, /^ {4}\(runner: the runner itself failed in a run/m, r.out);
});

test('a stream set to hex is compared decoded, so the case directory in it is normalised (seed 20261210, Debian 11)', { timeout: LIMIT_MS + 10_000 }, async () => {
  // exec sets the encoding on the streams: the child's cwd and PATH lines reach 'data' as hex, which held each
  // run's own directory where the comparison could not see it
  const kase = JSON.stringify({ fn: 'exec', command: 'script', steps: [{ ident: true }], opts: { env: 'custom', encoding: 'hex' }, parent: {}, state: { env: 'replaced' } });
  const r = await fuzz(['--case', kase, ...subject], LIMIT_MS);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /^no difference \(replay of this one case\)/m);
});

const node26 = runtime(26);
test("input as a DataView gives the child the text alone, not the rest of Node's buffer pool (seed 20261211, Node 26)", {
  skip: node26 ? false : 'no Node 26 in FORKLAB_TEST_RUNTIMES (.ci/fetch-runtimes.sh fetches it)',
  timeout: LIMIT_MS + 10_000,
}, async () => {
  // the runner's DataView was over Buffer.from(text).buffer: the whole 8 KiB pool, whose other bytes differ from
  // process to process on Node 26, so a child that echoed its input differed between two runs of child_process
  const kase = JSON.stringify({
    fn: 'spawnSync',
    command: 'script',
    steps: [{ ident: true }, { readIn: true }, { kill: 'TERM' }],
    opts: { detached: false, input: 'dataview', gid: 'self' },
    parent: {},
    state: { env: 'replaced' },
  });
  const r = await fuzz(['--case', kase, '--node', node26 as string, ...subject], LIMIT_MS);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /^no difference \(replay of this one case\)/m);
});
