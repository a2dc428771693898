// On a Node whose libuv starts children with posix_spawn itself (libuv PR #3520: 1.53.0 and later, and some
// 1.52.2-dev builds), forklab steps aside: register installs nothing, the functions are child_process's own, said
// once on the diagnostics channel; except where that libuv still forks for a call forklab serves without fork
// (detached, with a libuv compiled without POSIX_SPAWN_SETSID): then forklab serves those and Node every other. On
// any libuv after 1.52.1 the mechanism is looked at (a spawnSync through Node, plain and detached, calls fork() or
// not). No such Node exists yet: a preload fakes its libuv version (process.versions.uv) and what the look sees
// (child_process.spawnSync answers the look's path without forking, or forks only for detached), before forklab
// loads; FORKLAB_SPAWN_NODE_MECHANISM says it either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';
import { sideBySide } from './helpers/reference.js';
import * as childProcess from 'node:child_process';
import { type MechanismLook, nodeMechanism, nodeSpawnsItself, parseUvVersion, stepAsideReason } from '../src/aside.js';
import { spawnSync } from '../src/index.js';
import { native } from '../src/native.js';

const inst = installed();
// child_process's own spawnSync, from a process where register is not loaded (under it, node:child_process is forklab's)
const unregisteredTest = sideBySide(import.meta.url);

const look = (plain: boolean | null, detached: boolean | null = plain): MechanismLook => ({ nodeForks: (d) => (d ? detached : plain) });

test('the decision: after libuv 1.52.1, as the look at the mechanism says; when it cannot tell, 1.53.0 and later posix_spawn, 1.52.2-dev fork', () => {
  assert.deepEqual(parseUvVersion('1.52.2-dev'), [1, 52, 2]);
  assert.equal(parseUvVersion('x'), null);
  for (const [uv, forked, mechanism] of [
    ['1.46.0', null, 'fork'],
    ['1.52.1', false, 'fork'],
    ['1.52.2-dev', true, 'fork'],
    ['1.52.2-dev', null, 'fork'],
    ['1.52.2-dev', false, 'posix_spawn'],
    ['1.52.9', false, 'posix_spawn'],
    ['1.53.0', true, 'fork'],
    ['1.53.0', false, 'posix_spawn'],
    ['2.0.0', null, 'posix_spawn'],
    [undefined, false, 'fork'],
  ] as const) {
    assert.equal(nodeMechanism({}, uv, look(forked)).mechanism, mechanism, `${uv} ${forked}`);
  }
  assert.equal(nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'fork' }, '1.53.0', look(null)).mechanism, 'fork');
  assert.equal(nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'posix_spawn' }, '1.46.0', look(null)).mechanism, 'posix_spawn');
  const odd = nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'vfork' }, '1.46.0', look(null));
  assert.equal(odd.mechanism, 'fork');
  assert.match(odd.warning as string, /FORKLAB_SPAWN_NODE_MECHANISM="vfork" is not understood/);
  assert.equal(stepAsideReason(nodeMechanism({}, '1.46.0', look(null))), null);
  assert.match(stepAsideReason(nodeMechanism({}, '1.53.0', look(null))) as string, /^node spawns with posix_spawn: libuv 1\.53\.0/);
  assert.match(stepAsideReason(nodeMechanism({}, '1.52.2-dev', look(false))) as string, /did not call fork\(\)/);
});

test('per call, on a posix_spawn libuv that forks detached calls (compiled without POSIX_SPAWN_SETSID): forklab serves those, Node the rest', () => {
  const partial = nodeMechanism({}, '1.53.0', look(false, true));
  assert.deepEqual([partial.mechanism, partial.served], ['posix_spawn', ['detached']]);
  assert.equal(stepAsideReason(partial), null, 'not aside: forklab serves some calls');
  assert.equal(nodeSpawnsItself({ detached: true }, partial), null);
  assert.match(nodeSpawnsItself({ detached: false }, partial) as string, /^node spawns with posix_spawn: libuv 1\.53\.0/);
  const whole = nodeMechanism({}, '1.53.0', look(false, false));
  assert.deepEqual(whole.served, []);
  assert.equal(nodeSpawnsItself({ detached: true }, nodeMechanism({}, '1.46.0', look(null))), null, 'a forking Node: forklab serves');
});

unregisteredTest('the look at the mechanism: a spawn through Node’s child_process calls fork() on this Node, forklab’s posix_spawn does not', () => {
  const forks = native().forks as () => number;
  const a = forks();
  childProcess.spawnSync('true', { stdio: 'ignore', timeout: 30_000 });
  const b = forks();
  spawnSync('true', { stdio: 'ignore', timeout: 30_000 });
  const c = forks();
  assert.ok(b > a, `child_process: ${a} -> ${b}`);
  assert.equal(c, b, 'forklab');
  const here = nodeMechanism({}, '1.52.2-dev');
  assert.equal(here.mechanism, 'fork');
  assert.match(here.why, /a spawn through Node called fork\(\)/);
});

const PRELOAD = join(inst.project, 'fake-uv.cjs');
writeFileSync(
  PRELOAD,
  `if (process.env.FAKE_UV) Object.defineProperty(process.versions, 'uv', { value: process.env.FAKE_UV, enumerable: true, configurable: true });
if (process.env.FAKE_SPAWN) {
  const cp0 = require('node:child_process'), real = cp0.spawnSync;
  cp0.spawnSync = function spawnSync(file, args, o) {
    const forks = process.env.FAKE_SPAWN === 'detached' && o && o.detached;
    if (file !== '/dev/null/forklab-spawn-mechanism-probe' || forks) return real.apply(this, arguments);
    return { error: Object.assign(new Error('spawnSync ' + file + ' ENOTDIR'), { code: 'ENOTDIR' }) };
  };
}
globalThis.published = [];
require('node:diagnostics_channel').subscribe('forklab:spawn:fallback', (m) => globalThis.published.push(m));
const cp = require('node:child_process');
globalThis.before = [cp.ChildProcess.prototype.spawn, process.binding('spawn_sync').spawn, process.getActiveResourcesInfo, cp.spawn, cp.spawnSync, cp.exec, cp.fork];`,
);
const APP = join(inst.project, 'aside.mjs');
writeFileSync(
  APP,
  `import cp from 'node:child_process';
const f = await import('@forklab/spawn');
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const codes = [await done(cp.spawn('sh', ['-c', 'exit 3'])), await done(f.spawn('sh', ['-c', 'exit 4'])), f.spawnSync('sh', ['-c', 'exit 5']).status, f.execSync('echo x').toString()];
const after = [cp.ChildProcess.prototype.spawn, process.binding('spawn_sync').spawn, process.getActiveResourcesInfo, cp.spawn, cp.spawnSync];
console.log(JSON.stringify({ codes, untouched: after.map((x, i) => x === globalThis.before[i]), own: [f.spawn === globalThis.before[3], f.spawnSync === globalThis.before[4], f.exec === globalThis.before[5], f.fork === globalThis.before[6]],
  served: f.registerStats().served, fallbacks: f.registerStats().fallbacks, published: globalThis.published, reason: f.stepAsideReason() }));`,
);

type Out = {
  codes: unknown[];
  untouched: boolean[];
  own: boolean[];
  served: number;
  fallbacks: number;
  published: { reason: string; function: null; command: null }[];
  reason: string | null;
};

for (const fake of ['1.53.0', '2.0.0']) {
  test(`libuv ${fake}: register installs nothing, the functions are child_process's own, said once on the channel`, () => {
    const r = nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FAKE_UV: fake, FAKE_SPAWN: 'posix_spawn' });
    const out = lastJson<Out>(r);
    assert.deepEqual(out.codes, [3, 4, 5, 'x\n']);
    assert.deepEqual(out.untouched, [true, true, true, true, true]);
    assert.deepEqual(out.own, [true, true, true, true]);
    assert.deepEqual([out.served, out.fallbacks], [0, 0]);
    assert.equal(out.published.length, 1, JSON.stringify(out.published));
    assert.equal(out.published[0]?.function, null);
    assert.equal(out.published[0]?.reason, out.reason);
    assert.match(out.reason as string, new RegExp(`^node spawns with posix_spawn: libuv ${fake.replace(/\./g, '\\.')}: a spawn through Node did not call fork\\(\\)`));
  });
}

test('FORKLAB_SPAWN_NODE_MECHANISM=fork keeps forklab on such a Node; =posix_spawn steps aside on this one', () => {
  const kept = lastJson<Out>(nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FAKE_UV: '1.53.0', FORKLAB_SPAWN_NODE_MECHANISM: 'fork' }));
  assert.deepEqual(kept.codes, [3, 4, 5, 'x\n']);
  assert.deepEqual(kept.own, [false, false, false, false]);
  assert.equal(kept.served, 4);
  assert.equal(kept.reason, null);
  const aside = lastJson<Out>(nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FORKLAB_SPAWN_NODE_MECHANISM: 'posix_spawn' }));
  assert.deepEqual([aside.served, aside.untouched.every(Boolean), aside.own.every(Boolean)], [0, true, true]);
  assert.match(aside.reason as string, /FORKLAB_SPAWN_NODE_MECHANISM=posix_spawn/);
});

test('a value of FORKLAB_SPAWN_NODE_MECHANISM that is not understood: a warning, and libuv’s version decides', () => {
  const r = nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FORKLAB_SPAWN_NODE_MECHANISM: 'yes' });
  assert.match(r.stderr, /FORKLAB_SPAWN_NODE_MECHANISM="yes" is not understood \(fork or posix_spawn\)/);
  assert.equal(lastJson<Out>(r).served, 4);
});

for (const fake of ['1.52.2-dev', '1.53.0']) {
  test(`libuv ${fake} on a Node that forks (the look at the mechanism sees a fork(): a build before PR #3520, or a failed vfork probe): forklab serves every call`, () => {
    const r = nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FAKE_UV: fake });
    const out = lastJson<Out>(r);
    assert.deepEqual(out.codes, [3, 4, 5, 'x\n']);
    assert.deepEqual(out.own, [false, false, false, false]);
    assert.deepEqual([out.served, out.fallbacks, out.reason], [4, 0, null]);
  });
}

const PARTIAL = join(inst.project, 'partial.mjs');
writeFileSync(
  PARTIAL,
  `import cp from 'node:child_process';
const f = await import('@forklab/spawn');
const done = (c) => new Promise((r) => c.on('close', (code) => r(code)));
const codes = [
  await done(cp.spawn('sh', ['-c', 'exit 3'])),
  await done(cp.spawn('sh', ['-c', 'exit 4'], { detached: true, stdio: 'ignore' })),
  cp.spawnSync('sh', ['-c', 'exit 5'], { detached: true }).status,
  cp.spawnSync('sh', ['-c', 'exit 6']).status,
  await done(cp.spawn('sh', ['-c', 'exit 7'], { uid: process.getuid() })),
];
const s = f.registerStats().byFunction;
console.log(JSON.stringify({ codes, spawn: s.spawn, spawnSync: s.spawnSync, published: globalThis.published, reason: f.stepAsideReason(), served: f.nodeMechanism().served }));`,
);

test('libuv 1.53.0 that forks detached calls (compiled without POSIX_SPAWN_SETSID): register stays; forklab serves those, Node the others', () => {
  const r = nodeIn(['-r', PRELOAD, '--import', inst.register, PARTIAL], { FAKE_UV: '1.53.0', FAKE_SPAWN: 'detached' });
  type Stats = { served: number; fallbacks: number; byReason: Record<string, number> };
  const out = lastJson<{ codes: number[]; spawn: Stats; spawnSync: Stats; published: { reason: string; function: string | null }[]; reason: string | null; served: string[] }>(r);
  assert.deepEqual(out.codes, [3, 4, 5, 6, 7]);
  assert.equal(out.reason, null);
  assert.deepEqual(out.served, ['detached']);
  assert.deepEqual([out.spawn.served, out.spawn.fallbacks], [1, 2], JSON.stringify(out.spawn));
  assert.deepEqual([out.spawnSync.served, out.spawnSync.fallbacks], [1, 1], JSON.stringify(out.spawnSync));
  const reasons = Object.keys(out.spawn.byReason).sort();
  assert.equal(reasons.length, 2);
  assert.match(reasons[0] as string, /^node spawns with posix_spawn: libuv 1\.53\.0/);
  assert.equal(reasons[1], 'uid');
  // the reason about the process is said once, whatever the number of calls
  assert.equal(out.published.filter((p) => p.reason.startsWith('node spawns')).length, 1, JSON.stringify(out.published));
});
