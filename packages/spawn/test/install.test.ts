// From another Node project: `forklab/spawn` and `@forklab/spawn` import; `--import .../register`, on
// the command line or in NODE_OPTIONS, routes child_process.spawn (require and ESM named import) through
// forklab; a call it cannot serve falls back to node:child_process, counted, published, logged on request.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { addonPath, pkgDir } from './helpers/addon.js';

// An installed layout: node_modules/forklab (its package.json and lib/) and node_modules/@forklab/spawn
// (package.json, the addon, dist/ compiled from the current sources).
const repoDir = dirname(dirname(pkgDir));
const project = mkdtempSync(join(tmpdir(), 'forklab-spawn-project-'));
const forklabDir = join(project, 'node_modules', 'forklab');
const spawnDir = join(project, 'node_modules', '@forklab', 'spawn');
mkdirSync(forklabDir, { recursive: true });
mkdirSync(join(spawnDir, 'build', 'Release'), { recursive: true });
cpSync(join(repoDir, 'package.json'), join(forklabDir, 'package.json'));
cpSync(join(repoDir, 'lib'), join(forklabDir, 'lib'), { recursive: true });
cpSync(join(pkgDir, 'package.json'), join(spawnDir, 'package.json'));
cpSync(join(pkgDir, 'binding.gyp'), join(spawnDir, 'binding.gyp'));
cpSync(addonPath, join(spawnDir, 'build', 'Release', 'forklab_spawn.node'));
const tscBin = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
const builds = [
  ['tsconfig.json', join(spawnDir, 'dist')],
  ['tsconfig.cjs.json', join(spawnDir, 'dist', 'cjs')],
].map(([config, out]) => spawnSync(process.execPath, [tscBin, '-p', join(pkgDir, config!), '--outDir', out!], { encoding: 'utf8', timeout: 120_000 }));
writeFileSync(join(spawnDir, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
after(() => rmSync(project, { recursive: true, force: true }));

test('the package compiles on its own, as ES modules and as CommonJS', () => {
  for (const b of builds) assert.equal(b.status, 0, b.stdout + b.stderr);
});

function node(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('both import paths work from another project', () => {
  writeFileSync(
    join(project, 'paths.mjs'),
    `import { run } from 'forklab/spawn';
import * as direct from '@forklab/spawn';
const a = await run('sh', ['-c', 'echo via forklab']);
const b = await direct.run('sh', ['-c', 'echo via package; exit 3']);
console.log(JSON.stringify([a, b, typeof direct.spawn]));`,
  );
  const r = node(['paths.mjs']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [
    { stdout: 'via forklab\n', stderr: '', exitCode: 0, signal: null },
    { stdout: 'via package\n', stderr: '', exitCode: 3, signal: null },
    'function',
  ]);
});

test('require() works too: both paths, and node -r forklab/spawn/register', () => {
  writeFileSync(
    join(project, 'paths.cjs'),
    `const viaForklab = require('forklab/spawn');
const direct = require('@forklab/spawn');
const { registerStats } = require('forklab/spawn/register');
const cp = require('node:child_process');
Promise.all([viaForklab.run('sh', ['-c', 'echo cjs']), new Promise((r) => cp.spawn('sh', ['-c', 'exit 4']).on('close', r))])
  .then(([a, code]) => console.log(JSON.stringify([a.stdout, code, viaForklab.spawn === direct.spawn, registerStats().served])));`,
  );
  // served: run() and child_process.spawn (the script requires register itself)
  for (const [args, served] of [
    [['paths.cjs'], 2],
    [['-r', 'forklab/spawn/register', 'paths.cjs'], 2],
  ] as const) {
    const r = node([...args]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), ['cjs\n', 4, true, served], args.join(' '));
  }
});

const APP = `import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { subscribe } from 'node:diagnostics_channel';
import { ChildProcess } from 'forklab/spawn';
import { registerStats } from 'forklab/spawn/register';
const published = [];
subscribe('forklab:spawn:fallback', (m) => published.push(m));
const cjs = createRequire(import.meta.url)('child_process');
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const viaEsm = spawn('sh', ['-c', 'exit 5']);
const viaCjs = cjs.spawn('sh', ['-c', 'exit 6']);
const fallback = cjs.spawn('sh', ['-c', 'exit 7'], { uid: process.getuid() });
const codes = await Promise.all([done(viaEsm), done(viaCjs), done(fallback)]);
console.log(JSON.stringify({ codes, esm: viaEsm instanceof ChildProcess, cjs: viaCjs instanceof ChildProcess,
  fallbackIsForklab: fallback instanceof ChildProcess, stats: registerStats(), published }));`;

test('--import forklab/spawn/register and NODE_OPTIONS route spawn through forklab; fallbacks are observable', () => {
  writeFileSync(join(project, 'app.mjs'), APP);
  const runs = [node(['--import', 'forklab/spawn/register', 'app.mjs']), node(['app.mjs'], { NODE_OPTIONS: '--import forklab/spawn/register', FORKLAB_SPAWN_LOG: '1' })];
  for (const [i, r] of runs.entries()) {
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.codes, [5, 6, 7]);
    assert.equal(out.esm, true, 'ESM named import patched');
    assert.equal(out.cjs, true, 'require() patched');
    assert.equal(out.fallbackIsForklab, true, "the uid call is a ChildProcess too, on Node's own handle");
    const spawnStats = { served: 2, fallbacks: 1, byReason: { uid: 1 } };
    assert.deepEqual(out.stats, { ...spawnStats, byFunction: { spawn: spawnStats } });
    assert.deepEqual(out.published, [{ reason: 'uid', function: 'spawn', command: 'sh' }]);
    if (i === 1) assert.match(r.stderr, /@forklab\/spawn: node:child_process serves spawn\(sh\): uid/);
    else assert.equal(r.stderr, '');
  }
});

test('from a worker thread: its own copy of process.env reaches the child', () => {
  writeFileSync(
    join(project, 'worker.mjs'),
    `import { Worker } from 'node:worker_threads';
const code = \`process.env.FORKLAB_SPAWN_WORKER = 'worker copy';
import('@forklab/spawn').then(({ run }) => run('sh', ['-c', 'echo "$FORKLAB_SPAWN_WORKER"; exit 9']))
  .then((r) => require('node:worker_threads').parentPort.postMessage(r));\`;
const w = new Worker(code, { eval: true });
w.once('message', (r) => { console.log(JSON.stringify(r)); w.terminate(); });`,
  );
  const r = node(['worker.mjs']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { stdout: 'worker copy\n', stderr: '', exitCode: 9, signal: null });
});
