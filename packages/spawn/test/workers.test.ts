// Worker threads: the addon loads in a worker, spawns there, and the worker ends (terminate, natural end,
// process.exit()) while its children still run: the process never crashes, and the children are reaped
// (no zombie left) by the process-wide reaper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after } from 'node:test';
import { addonPath, pkgDir } from './helpers/addon.js';

// Worker threads do not get tsx's hooks: they import the package compiled from the current sources.
const out = mkdtempSync(join(tmpdir(), 'forklab-spawn-workers-'));
after(() => rmSync(out, { recursive: true, force: true }));
const tsc = spawnSync(process.execPath, [join(pkgDir, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(pkgDir, 'tsconfig.json'), '--outDir', out], {
  encoding: 'utf8',
  timeout: 120_000,
});
const index = pathToFileURL(join(out, 'index.js')).href;
const env = { ...process.env, FORKLAB_SPAWN_ADDON: addonPath };

function zombiesOf(pid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=,stat=', '--ppid', String(pid)], { encoding: 'utf8', timeout: 10_000 }).stdout;
  return out
    .split('\n')
    .filter((l) => /\sZ/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

for (const ending of ['terminate', 'natural end', 'process.exit()'] as const) {
  test(`a worker that ends by ${ending} with live children: no crash, children reaped`, () => {
    const workerCode = `const { spawn } = await import(${JSON.stringify(index)});
const { parentPort } = await import('node:worker_threads');
const kids = [spawn('sleep', ['0.3']), spawn('sh', ['-c', 'sleep 0.3; exit 3'], { stdio: 'pipe' })];
kids.forEach((k) => k.on('exit', () => {}));
parentPort.postMessage(kids.map((k) => k.pid));
${ending === 'process.exit()' ? 'setTimeout(() => process.exit(0), 100);' : ending === 'natural end' ? 'kids.forEach((k) => k.unref()); kids[1].stdout.destroy(); kids[1].stderr.destroy(); kids[1].stdin.destroy();' : 'await new Promise(() => setInterval(() => {}, 1000));'}`;
    const main = `import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
const pids = [];
for (let i = 0; i < 4; i++) {
  const w = new Worker(${JSON.stringify(workerCode)}, { eval: true });
  w.on('error', (e) => { console.error('worker error', e); process.exitCode = 1; });
  const got = await new Promise((r) => w.once('message', r));
  pids.push(...got);
  ${ending === 'terminate' ? 'await w.terminate();' : "await new Promise((r) => w.once('exit', r));"}
}
await new Promise((r) => setTimeout(r, 1200));
const states = pids.map((p) => { try { return readFileSync('/proc/' + p + '/stat', 'utf8').split(') ')[1][0]; } catch { return 'gone'; } });
console.log(JSON.stringify(states));`;
    assert.equal(tsc.status, 0, tsc.stdout);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', main], { encoding: 'utf8', timeout: 60_000, env });
    assert.equal(r.signal, null, `crashed: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    const states = JSON.parse(r.stdout) as string[];
    assert.equal(states.length, 8);
    assert.deepEqual(states, Array(8).fill('gone'), 'every child exited and was reaped (none left as a zombie)');
  });
}

test('zombie helper sanity: this process has no zombie children', () => {
  assert.deepEqual(zombiesOf(process.pid), []);
  assert.ok(readFileSync('/proc/self/stat', 'utf8').length > 0);
});

test('workers terminated at random moments while spawning with pipes: every pipe end and pidfd has an owner (none left in /proc/self/fd)', () => {
  // Each worker spawns without pause and is terminated 0-20 ms after its first round. Most of its calls look
  // for a missing command along 2,000 PATH entries (in the addon: a termination asked for meanwhile strikes
  // as soon as JS runs again), whose pipes child_process still opens after the ENOENT; the others start a
  // child. A pipe end handed to JS as a bare descriptor was leaked when the termination fell between the
  // addon's spawn and the Pipe's open(fd) (here 33-57 of 30 workers' descriptors before the fix).
  const workerCode = `const { spawn } = await import(${JSON.stringify(index)});
const { parentPort } = await import('node:worker_threads');
const PATH = Array.from({ length: 2000 }, (_, i) => '/nonexistent/' + i).join(':');
for (let round = 0; ; round++) {
  if (round === 1) parentPort.postMessage('ready');
  for (let i = 0; i < 8; i++) (i % 4 ? spawn('forklab-no-such-program', [], { stdio: 'pipe', env: { PATH } }) : spawn('true', [], { stdio: 'pipe' })).on('error', () => {});
  await new Promise((r) => setImmediate(r));
}`;
  const main = `import { Worker } from 'node:worker_threads';
import { readdirSync, readlinkSync } from 'node:fs';
const kinds = () => {
  const n = { socket: 0, pidfd: 0 };
  for (const f of readdirSync('/proc/self/fd')) {
    let l = '';
    try { l = readlinkSync('/proc/self/fd/' + f); } catch { continue; }
    if (l.startsWith('socket:')) n.socket++;
    else if (l === 'anon_inode:[pidfd]') n.pidfd++;
  }
  return n;
};
const before = kinds();
for (let i = 0; i < 30; i++) {
  const w = new Worker(${JSON.stringify(workerCode)}, { eval: true });
  w.on('error', (e) => { console.error('worker error', e); process.exitCode = 1; });
  await new Promise((r) => w.once('message', r));
  await new Promise((r) => setTimeout(r, Math.random() * 20));
  await w.terminate();
}
// the children of terminated workers are reaped by the process-wide reaper, which then closes their pidfds
let after = kinds();
for (let waited = 0; waited < 5000 && (after.socket > before.socket || after.pidfd > before.pidfd); waited += 100) {
  await new Promise((r) => setTimeout(r, 100));
  after = kinds();
}
console.log(JSON.stringify({ before, after }));`;
  assert.equal(tsc.status, 0, tsc.stdout);
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', main], { encoding: 'utf8', timeout: 120_000, env });
  assert.equal(r.signal, null, `crashed: ${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  const { before, after } = JSON.parse(r.stdout) as Record<string, { socket: number; pidfd: number }>;
  assert.deepEqual(after, before, 'descriptors left without an owner');
});
