// Under register, node:child_process keeps Node's own exports (the same functions before and after, for require,
// the default import and named imports), and each call is counted under the function it came through, read from
// the stack: exec → execFile → spawn is 'exec', a promisified exec 'exec', cluster's workers 'fork', a ChildProcess
// spawned directly 'ChildProcess'. Where the stack cannot be read (Error frozen), calls are still served, counted as
// 'ChildProcess' and 'spawnSync'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';

const inst = installed();

const KEEP = join(inst.project, 'keep-exports.cjs');
writeFileSync(
  KEEP,
  `const cp = require('node:child_process');
globalThis.exportsBefore = ['spawn', 'exec', 'execFile', 'fork', 'spawnSync', 'execSync', 'execFileSync'].map((k) => [k, cp[k]]);`,
);

const WORKER = join(inst.project, 'cluster-worker.cjs');
writeFileSync(WORKER, 'process.exit(12);');

const APP = join(inst.project, 'register-names.mjs');
writeFileSync(
  APP,
  `import cp, { spawn as namedSpawn, execSync as namedExecSync } from 'node:child_process';
import cluster from 'node:cluster';
import { promisify } from 'node:util';
import { registerStats } from '@forklab/spawn/register';
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const codes = [
  await done(cp.spawn('sh', ['-c', 'exit 1'])),
  await done(cp.exec('exit 2')),
  await done(cp.execFile('sh', ['-c', 'exit 3'])),
  await done(cp.fork('-e', ['process.exit(4)'], { execArgv: [] })),
  cp.spawnSync('sh', ['-c', 'exit 5']).status,
  cp.execSync('echo 6').toString().trim(),
  cp.execFileSync('sh', ['-c', 'echo 7']).toString().trim(),
  (await promisify(cp.exec)('echo 8')).stdout.trim(),
  await done(namedSpawn('sh', ['-c', 'exit 9'])),
  namedExecSync('echo 10').toString().trim(),
];
const direct = new cp.ChildProcess();
direct.spawn({ file: 'sh', args: ['sh', '-c', 'exit 11'], stdio: ['ignore', 'ignore', 'inherit'] });
codes.push(await done(direct));
cluster.setupPrimary({ exec: ${JSON.stringify(WORKER)}, args: [], execArgv: [], silent: true });
const worker = cluster.fork();
codes.push(await new Promise((r) => worker.on('exit', (code) => r(code))));
const kept = globalThis.exportsBefore?.every(([k, f]) => cp[k] === f) ?? null;
const counted = {};
for (const [fn, s] of Object.entries(registerStats().byFunction)) counted[fn] = [s.served, s.fallbacks];
console.log(JSON.stringify({ codes, kept, counted }));`,
);

test('under register: node:child_process’s exports are Node’s own, and every call is counted under the function it came through', () => {
  const r = nodeIn(['-r', KEEP, '--import', inst.register, APP]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ codes: unknown[]; kept: boolean | null; counted: Record<string, [number, number]> }>(r);
  assert.deepEqual(out.codes, [1, 2, 3, 4, 5, '6', '7', '8', 9, '10', 11, 12]);
  assert.equal(out.kept, true, 'the functions node:child_process exported before register are the ones it exports after');
  assert.deepEqual(out.counted, {
    spawn: [2, 0],
    exec: [2, 0],
    execFile: [1, 0],
    fork: [2, 0],
    spawnSync: [1, 0],
    execSync: [2, 0],
    execFileSync: [1, 0],
    ChildProcess: [1, 0],
  });
});

test('under register with Error frozen (its stack unreadable as call sites): every call still served, counted without its name', () => {
  const frozen = join(inst.project, 'freeze-error.cjs');
  writeFileSync(frozen, 'Object.freeze(Error);');
  const app = join(inst.project, 'register-frozen.mjs');
  writeFileSync(
    app,
    `import cp from 'node:child_process';
import { registerStats } from '@forklab/spawn/register';
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const codes = [await done(cp.exec('exit 2')), cp.execSync('echo 3').toString().trim()];
const counted = {};
for (const [fn, s] of Object.entries(registerStats().byFunction)) counted[fn] = [s.served, s.fallbacks];
console.log(JSON.stringify({ codes, frozen: Object.isFrozen(Error), counted }));`,
  );
  const r = nodeIn(['-r', frozen, '--import', inst.register, app]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ codes: unknown[]; frozen: boolean; counted: Record<string, [number, number]> }>(r);
  assert.deepEqual(out, { codes: [2, '3'], frozen: true, counted: { ChildProcess: [1, 0], spawnSync: [1, 0] } });
});
