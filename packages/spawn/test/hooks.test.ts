// forklab among other code that touches child_process, in plain Node processes (the package installed, compiled
// from the current sources): wrappers of ChildProcess.prototype.spawn installed before or after it keep working
// and forklab keeps serving; FORKLAB_SPAWN=off patches nothing; a ChildProcess spawned directly without envPairs
// inherits environ; a polluted Object.prototype.uid or gid is read as child_process reads it; under
// --pending-deprecation --throw-deprecation nothing throws (process.binding is not called: DEP0111).
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const inst = installed();

function script(name: string, text: string): string {
  const file = join(inst.project, name);
  writeFileSync(file, text);
  return file;
}

const DONE = `const done = (c) => new Promise((r) => { let out = ''; c.stdout?.on('data', (d) => (out += d)); c.on('close', (code) => r([code, out])); });`;

test('loading the package (and register) starts no handle and opens no descriptor that node:child_process does not', () => {
  // with stderr a pipe (nodeIn's): on Node 22 and later, loading node:util sets up process.stderr (a Pipe handle
  // and a descriptor); found by the differential campaign on Node 24 (seed 20261204), which compares both after a call
  const probe = (imports: string) =>
    lastJson<{ res: string[]; fds: number }>(
      nodeIn([
        '--input-type=module',
        '-e',
        `import { readdirSync, writeSync } from 'node:fs';\n${imports}\nawait new Promise((r) => setTimeout(r, 50));\nwriteSync(1, JSON.stringify({ res: process.getActiveResourcesInfo(), fds: readdirSync('/proc/self/fd').length }) + '\\n');`,
      ]),
    );
  const theirs = probe(`await import('node:child_process');`);
  const ours = probe(`await import('@forklab/spawn'); await import('@forklab/spawn/register');`);
  assert.deepEqual(ours, theirs);
});

test('a wrapper of ChildProcess.prototype.spawn installed after forklab’s first call keeps working, and forklab keeps serving', () => {
  const file = script(
    'after.mjs',
    `import cp from 'node:child_process';
import * as f from '@forklab/spawn';
${DONE}
const codes = [(await done(f.spawn('sh', ['-c', 'exit 1'])))[0]];
const proto = cp.ChildProcess.prototype, below = proto.spawn;
let wrapped = 0;
proto.spawn = function spawn(...a) { wrapped++; return below.apply(this, a); };
codes.push((await done(f.spawn('sh', ['-c', 'exit 2'])))[0], (await done(f.execFile('sh', ['-c', 'exit 3'])))[0], (await done(cp.spawn('sh', ['-c', 'exit 4'])))[0]);
console.log(JSON.stringify({ codes, wrapped, stillTheirs: proto.spawn !== below, served: f.registerStats().served, fallbacks: f.registerStats().fallbacks }));`,
  );
  const r = nodeIn([file]);
  assert.deepEqual(lastJson(r), { codes: [1, 2, 3, 4], wrapped: 3, stillTheirs: true, served: 3, fallbacks: 0 }, r.stderr);
});

test('a wrapper installed before forklab loads (node -r, then --import register) keeps working, and forklab serves every call', () => {
  const pre = script(
    'wrap-first.cjs',
    `const proto = require('node:child_process').ChildProcess.prototype, below = proto.spawn;
globalThis.wrapped = 0;
proto.spawn = function spawn(...a) { globalThis.wrapped++; return below.apply(this, a); };`,
  );
  const exit6 = script('exit6.cjs', 'process.exit(6);');
  const file = script(
    'before.mjs',
    `import cp, { spawn, execFileSync } from 'node:child_process';
import { registerStats } from '@forklab/spawn/register';
${DONE}
const codes = [(await done(spawn('sh', ['-c', 'exit 5'])))[0], (await done(cp.fork(${JSON.stringify(exit6)})))[0]];
execFileSync('true');
const s = registerStats();
console.log(JSON.stringify({ codes, wrapped: globalThis.wrapped, served: s.served, fallbacks: s.fallbacks }));`,
  );
  const r = nodeIn(['-r', pre, '--import', inst.register, file]);
  assert.deepEqual(lastJson(r), { codes: [5, 6], wrapped: 2, served: 3, fallbacks: 0 }, r.stderr);
});

test('a spy restored to Node’s own method after forklab wrapped it: the next forklab call is child_process’s (counted), then forklab wraps again', () => {
  const file = script(
    'restore.mjs',
    `import cp from 'node:child_process';
import * as f from '@forklab/spawn';
${DONE}
const proto = cp.ChildProcess.prototype, nodes = proto.spawn;
proto.spawn = function spy(...a) { return nodes.apply(this, a); };
const codes = [(await done(f.spawn('sh', ['-c', 'exit 1'])))[0]];
proto.spawn = nodes; // the spy is restored: forklab's wrapper (over the spy) is gone with it
codes.push((await done(f.spawn('sh', ['-c', 'exit 2'])))[0], (await done(f.spawn('sh', ['-c', 'exit 3'])))[0]);
const s = f.registerStats().byFunction.spawn;
console.log(JSON.stringify({ codes, served: s.served, fallbacks: s.fallbacks, reasons: Object.keys(s.byReason) }));`,
  );
  const r = nodeIn([file]);
  const out = lastJson<{ codes: number[]; served: number; fallbacks: number; reasons: string[] }>(r);
  assert.deepEqual(out.codes, [1, 2, 3]);
  assert.deepEqual([out.served, out.fallbacks], [2, 1]);
  assert.match(out.reasons[0] as string, /ChildProcess\.prototype\.spawn was replaced/);
});

test('under register, Node’s own ChildProcess.prototype.spawn put back: the next child_process call is counted as child_process’s, then forklab wraps again', () => {
  // (nothing of forklab's is on that path: Node's 'child_process' diagnostics channel tells of the ChildProcess)
  const keep = script('keep-node-spawn.cjs', "globalThis.nodeSpawn = require('node:child_process').ChildProcess.prototype.spawn;");
  const file = script(
    'restore-registered.mjs',
    `import cp from 'node:child_process';
import { registerStats } from '@forklab/spawn/register';
${DONE}
const codes = [(await done(cp.spawn('sh', ['-c', 'exit 1'])))[0]];
cp.ChildProcess.prototype.spawn = globalThis.nodeSpawn; // forklab's wrapper is gone with it
codes.push((await done(cp.spawn('sh', ['-c', 'exit 2'])))[0], (await done(cp.spawn('sh', ['-c', 'exit 3'])))[0]);
const s = registerStats().byFunction.spawn;
console.log(JSON.stringify({ codes, served: s.served, fallbacks: s.fallbacks, reasons: Object.keys(s.byReason) }));`,
  );
  const r = nodeIn(['-r', keep, '--import', inst.register, file]);
  const out = lastJson<{ codes: number[]; served: number; fallbacks: number; reasons: string[] }>(r);
  assert.deepEqual(out.codes, [1, 2, 3]);
  assert.deepEqual([out.served, out.fallbacks], [2, 1], r.stderr);
  assert.match(out.reasons[0] as string, /ChildProcess\.prototype\.spawn was replaced/);
});

test('FORKLAB_SPAWN=off: register and every function patch nothing (the prototype, the sync binding, getActiveResourcesInfo)', () => {
  const file = script(
    'off.mjs',
    `import cp from 'node:child_process';
const binding = process.binding('spawn_sync');
const before = [cp.ChildProcess.prototype.spawn, binding.spawn, process.getActiveResourcesInfo, cp.spawn];
const f = await import('@forklab/spawn');
await import('@forklab/spawn/register');
${DONE}
const codes = [(await done(f.spawn('sh', ['-c', 'exit 7'])))[0], f.spawnSync('sh', ['-c', 'exit 8']).status, (await done(f.exec('exit 9')))[0]];
const after = [cp.ChildProcess.prototype.spawn, binding.spawn, process.getActiveResourcesInfo, cp.spawn];
console.log(JSON.stringify({ codes, same: before.map((x, i) => x === after[i]), served: f.registerStats().served, fallbacks: f.registerStats().fallbacks }));`,
  );
  const r = nodeIn([file], { FORKLAB_SPAWN: 'off' });
  assert.deepEqual(lastJson(r), { codes: [7, 8, 9], same: [true, true, true, true], served: 0, fallbacks: 3 }, r.stderr);
});

test('a ChildProcess spawned directly without envPairs inherits environ (process.env changes included), as child_process', () => {
  const file = script(
    'direct.mjs',
    `import cp from 'node:child_process';
${DONE}
process.env.FORKLAB_DIRECT = 'set by the program';
const c = new cp.ChildProcess();
c.spawn({ file: 'sh', args: ['sh', '-c', 'echo "$FORKLAB_DIRECT|$PATH|$HOME"'], stdio: ['ignore', 'pipe', 'inherit'] });
const [code, out] = await done(c);
const stats = process.env.WITH_REGISTER ? (await import('@forklab/spawn')).registerStats().byFunction.ChildProcess : null;
console.log(JSON.stringify({ code, out, stats }));`,
  );
  const theirs = lastJson<{ out: string }>(nodeIn([file]));
  const r = nodeIn(['--import', inst.register, file], { WITH_REGISTER: '1' });
  const ours = lastJson<{ code: number; out: string; stats: { served: number } }>(r);
  assert.equal(ours.out, theirs.out, r.stderr);
  assert.equal(ours.out, `set by the program|${process.env.PATH}|${process.env.HOME ?? ''}\n`);
  assert.equal(ours.stats.served, 1);
});

test('Object.prototype.uid and gid polluted: read as child_process reads them (no abort), and forklab serves what it can', async () => {
  const proto = Object.prototype as Record<string, unknown>;
  for (const key of ['uid', 'gid']) {
    proto[key] = 'x';
    try {
      const outcome = async (spawn: typeof childProcess.spawn, options?: object) => {
        try {
          const c = options ? spawn('sh', ['-c', 'exit 4'], options) : spawn('sh', ['-c', 'exit 4']);
          const timer = setTimeout(() => c.kill('SIGKILL'), LIMIT.timeout);
          return await new Promise((r) => c.on('close', (code) => r(clearTimeout(timer) ?? `exit ${code}`)));
        } catch (e) {
          return `threw ${(e as NodeJS.ErrnoException).code}`;
        }
      };
      for (const options of [undefined, {}]) {
        const before = forklab.registerStats().byFunction.spawn?.served ?? 0;
        const theirs = await outcome(childProcess.spawn, options);
        const ours = await outcome(forklab.spawn, options);
        assert.equal(ours, theirs, `${key} with ${JSON.stringify(options)}`);
        if (theirs === 'exit 4') assert.equal(forklab.registerStats().byFunction.spawn?.served, before + 1);
      }
    } finally {
      delete proto[key];
    }
  }
});

test('--pending-deprecation --throw-deprecation with register: nothing throws; the sync family is child_process’s, said once', () => {
  const file = script(
    'dep.mjs',
    `import cp from 'node:child_process';
import { registerStats } from '@forklab/spawn/register';
${DONE}
const out = [cp.spawnSync('sh', ['-c', 'exit 3']).status, cp.execSync('echo sync').toString(), (await done(cp.spawn('sh', ['-c', 'exit 4'])))[0]];
const s = registerStats().byFunction;
console.log(JSON.stringify({ out, spawn: s.spawn.served, sync: s.spawnSync ?? null }));`,
  );
  const r = nodeIn(['--pending-deprecation', '--throw-deprecation', '--import', inst.register, file], { FORKLAB_SPAWN_LOG: '1' });
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ out: unknown[]; spawn: number; sync: unknown }>(r);
  assert.deepEqual(out.out, [3, 'sync\n', 4]);
  assert.equal(out.spawn, 1);
  assert.equal(out.sync, null, 'forklab does not see the sync calls: nothing counted');
  const said = r.stderr.split('\n').filter((line) => /DEP0111.*spawnSync, execSync and execFileSync are node:child_process's/.test(line));
  assert.equal(said.length, 1, r.stderr);
});
