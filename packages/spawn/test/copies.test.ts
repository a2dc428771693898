// Two copies of the package in one thread (the ES module and the CommonJS build, as a program that both imports and
// requires @forklab/spawn holds them; register through both -r and --import) share one state, under one global
// symbol: one set of counts that either copy reports, register installed once (by the entry that ran first), one
// patch of process.getActiveResourcesInfo() listing each running child once, and neither copy's handle swapped by
// the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';

const inst = installed();

const APP = join(inst.project, 'two-copies.mjs');
writeFileSync(
  APP,
  `import cp from 'node:child_process';
import { createRequire } from 'node:module';
const esm = await import('@forklab/spawn');
const cjs = createRequire(import.meta.url)('@forklab/spawn');
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const codes = [await done(esm.spawn('sh', ['-c', 'exit 1'])), await done(cjs.spawn('sh', ['-c', 'exit 2'])), await done(cp.spawn('sh', ['-c', 'exit 3']))];
const sync = [esm.spawnSync('sh', ['-c', 'exit 4']).status, cjs.spawnSync('sh', ['-c', 'exit 5']).status];
const sleeper = esm.spawn('sleep', ['30'], { stdio: 'ignore', timeout: 30000 });
const handle = sleeper._handle.constructor.name;
const listed = process.getActiveResourcesInfo().filter((r) => r === 'ProcessWrap').length;
sleeper.kill('SIGKILL');
await done(sleeper);
const keys = Object.getOwnPropertySymbols(globalThis).map((s) => s.description).filter((d) => d?.startsWith('forklab.spawn'));
const { spawn: named } = await import('node:child_process');
const exportsKept = cp.spawn !== cjs.spawn && cp.spawn !== esm.spawn && named === cp.spawn && cp.spawn.name === 'spawn';
console.log(JSON.stringify({ aside: esm.stepAsideReason(), codes, sync, handle, listed, keys, exportsKept, esm: esm.registerStats(), cjs: cjs.registerStats() }));`,
);

interface Out {
  aside: string | null;
  codes: number[];
  sync: number[];
  handle: string;
  listed: number;
  keys: string[];
  exportsKept: boolean;
  esm: { served: number; fallbacks: number; byFunction: Record<string, { served: number; fallbacks: number }> };
  cjs: unknown;
}

test('the ES module and the CommonJS copy, register through -r and --import: one state under one global symbol', () => {
  const r = nodeIn(['-r', inst.registerCjs, '--import', inst.register, APP]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<Out>(r);
  assert.deepEqual(
    [out.codes, out.sync],
    [
      [1, 2, 3],
      [4, 5],
    ],
  );
  assert.deepEqual(out.keys, ['forklab.spawn'], 'one global symbol of the package');
  assert.deepEqual(out.cjs, out.esm, 'either copy reports the same counts');
  if (out.aside !== null) return; // (Node spawns with posix_spawn: the functions are child_process's, nothing is counted)
  assert.equal(out.exportsKept, true, 'node:child_process’s exports are Node’s own under register');
  const calls = (fn: string) => (out.esm.byFunction[fn]?.served ?? 0) + (out.esm.byFunction[fn]?.fallbacks ?? 0);
  assert.deepEqual([calls('spawn'), calls('spawnSync')], [4, 2], 'each call counted once, under its function');
  assert.equal(out.handle, 'ForklabProcessHandle');
  assert.equal(out.listed, 1, 'a running child listed once by getActiveResourcesInfo(), patched once');
});
