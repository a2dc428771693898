// A process at its descriptor limit (a low `ulimit -n`), side by side with child_process: a Node started under
// `ulimit -n 64` fills its descriptor table with /dev/null, then frees 0, 1, 2 ... 14 descriptors and, with
// each number free, makes one call (spawn, then spawnSync) of `sh -c 'echo hi'`, waits for its end and fills the
// table again. What each call gave (EMFILE, or the exit status and stdout) must be child_process's for every
// number free: forklab may not fail where child_process starts the child (it did, opening /dev/null for
// 'ignore' and a copy of every inherited descriptor in the parent), nor start one where child_process fails.
// One Node per implementation makes every call in the same order, so both see the same history; forklab must
// have served its calls (else child_process answered for it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../../test/helpers/tmp.js';
import { pkgDir } from './helpers/addon.js';

const tmp = tempDir('forklab-spawn-nofile-');
const NOFILE = 64;
const MOST_FREE = 14;

const CHILD = `import * as cp from 'node:child_process';
import * as fs from 'node:fs';
const forklab = await import(${JSON.stringify(pathToFileURL(join(pkgDir, 'src', 'index.ts')).href)});
const [which, configs, mostFree] = process.argv.slice(2);
if (forklab.unavailableReason()) throw new Error(forklab.unavailableReason());
const impl = which === 'forklab' ? forklab : cp;
const args = ['-c', 'echo hi'];
const held = [];
const fill = () => { for (;;) { try { held.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; return; } } };
async function once(fn, stdio) {
  const opts = { stdio, timeout: 20000, killSignal: 'SIGKILL' };
  if (fn === 'spawnSync') {
    const r = impl.spawnSync('/bin/sh', args, opts);
    return r.error ? 'error ' + r.error.code : 'status ' + r.status + ' ' + JSON.stringify(String(r.stdout ?? ''));
  }
  let c;
  try { c = impl.spawn('/bin/sh', args, opts); } catch (e) { return 'threw ' + e.code; }
  let out = '';
  c.stdout?.on('data', (d) => (out += d));
  return await new Promise((res) => {
    c.on('error', (e) => res('error ' + e.code));
    c.on('close', (code) => res('status ' + code + ' ' + JSON.stringify(out)));
  });
}
const before = forklab.registerStats().served;
const results = {};
for (const config of JSON.parse(configs)) {
  const [fn, stdioArg] = config.split(' ');
  const stdio = stdioArg.includes(',') ? stdioArg.split(',').map((e) => (/^\\d+$/.test(e) ? Number(e) : e)) : stdioArg;
  results[config] = [];
  for (let free = 0; free <= Number(mostFree); free++) {
    fill();
    for (const fd of held.splice(0, free)) fs.closeSync(fd);
    results[config].push(await once(fn, stdio));
    for (const fd of held.splice(0)) fs.closeSync(fd);
  }
}
console.log(JSON.stringify({ results, served: forklab.registerStats().served - before }));
`;
const script = join(tmp, 'nofile-child.mjs');
writeFileSync(script, CHILD);

interface Run {
  results: Record<string, string[]>;
  served: number;
}

const STDIO = ['ignore', 'inherit', 'pipe', 'ignore,pipe,inherit', 'ignore,0,ignore'];
const CONFIGS = ['spawn', 'spawnSync'].flatMap((fn) => STDIO.map((stdio) => `${fn} ${stdio}`));

function run(which: 'child_process' | 'forklab', configs: string[], mostFree: number, env: NodeJS.ProcessEnv): Promise<Run> {
  const argv = ['-c', `ulimit -n ${NOFILE} && exec "$0" "$@"`, process.execPath, '--import', 'tsx', script, which, JSON.stringify(configs), String(mostFree)];
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', argv, { cwd: pkgDir, timeout: 240_000, killSignal: 'SIGKILL', env: { ...process.env, NODE_OPTIONS: '', ...env } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${which}: ${err.message}\n${stderr}${stdout}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as Run);
    });
  });
}

async function sameAsChildProcess(configs: string[], mostFree = MOST_FREE, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const [theirs, ours] = await Promise.all([run('child_process', configs, mostFree, env), run('forklab', configs, mostFree, env)]);
  for (const config of configs) {
    const reference = theirs.results[config] ?? [];
    // the range spans both outcomes, so the limit really was reached and really was left
    assert.ok(
      reference.some((r) => r === 'error EMFILE'),
      `${config}: child_process never failed: ${reference}`,
    );
    assert.ok(
      reference.some((r) => r.startsWith('status ')),
      `${config}: child_process never started it: ${reference}`,
    );
    assert.deepEqual(ours.results[config], reference, config);
  }
  // an EMFILE from forklab's own attempt counts as served: only a call handed to child_process does not
  assert.equal(ours.served, configs.length * (mostFree + 1), 'forklab served every call');
}

test(`under ulimit -n ${NOFILE}, with 0 to ${MOST_FREE} descriptors free, spawn and spawnSync give what child_process gives`, () => sameAsChildProcess(CONFIGS));

// Node's spawnSync makes a libuv loop per call, and libuv sets up io_uring rings with each loop where it can:
// one from libuv 1.49 on (Node 22 and later; the descriptor that made forklab start a child at 6 free where
// child_process failed, before src/loop-rings.ts), two on Node 20 when UV_USE_IO_URING asks for them (there
// three pipes need 15 free: up to 20 here).
test('spawnSync near the limit with UV_USE_IO_URING=1: libuv’s rings held as child_process’s loop holds them', () =>
  sameAsChildProcess(['spawnSync ignore', 'spawnSync pipe', 'spawnSync inherit'], 20, { UV_USE_IO_URING: '1' }));
