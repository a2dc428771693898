// On a Node whose libuv starts children with posix_spawn itself (libuv after 1.52.1: PR #3520 on its v1.x
// branch), forklab steps aside: register installs nothing, the functions are child_process's own, said once on
// the diagnostics channel. No such Node exists yet: its libuv version is faked here (process.versions.uv is
// redefined by a preload before forklab loads), and FORKLAB_SPAWN_NODE_MECHANISM says it either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';
import { nodeMechanism, parseUvVersion, stepAsideReason } from '../src/aside.js';

const inst = installed();

test('the decision: libuv after 1.52.1 starts children with posix_spawn; the variable overrides; anything else is ignored', () => {
  assert.deepEqual(parseUvVersion('1.52.2-dev'), [1, 52, 2]);
  assert.equal(parseUvVersion('x'), null);
  for (const [uv, mechanism] of [
    ['1.46.0', 'fork'],
    ['1.52.1', 'fork'],
    ['1.52.2-dev', 'posix_spawn'],
    ['1.53.0', 'posix_spawn'],
    ['2.0.0', 'posix_spawn'],
    [undefined, 'fork'],
  ] as const) {
    assert.equal(nodeMechanism({}, uv).mechanism, mechanism, String(uv));
  }
  assert.equal(nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'fork' }, '1.53.0').mechanism, 'fork');
  assert.equal(nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'posix_spawn' }, '1.46.0').mechanism, 'posix_spawn');
  const odd = nodeMechanism({ FORKLAB_SPAWN_NODE_MECHANISM: 'vfork' }, '1.46.0');
  assert.equal(odd.mechanism, 'fork');
  assert.match(odd.warning as string, /FORKLAB_SPAWN_NODE_MECHANISM="vfork" is not understood/);
  assert.equal(stepAsideReason(nodeMechanism({}, '1.46.0')), null);
  assert.match(stepAsideReason(nodeMechanism({}, '1.53.0')) as string, /^node spawns with posix_spawn: libuv 1\.53\.0/);
});

const PRELOAD = join(inst.project, 'fake-uv.cjs');
writeFileSync(
  PRELOAD,
  `if (process.env.FAKE_UV) Object.defineProperty(process.versions, 'uv', { value: process.env.FAKE_UV, enumerable: true, configurable: true });
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

for (const fake of ['1.53.0', '1.52.2-dev']) {
  test(`libuv ${fake}: register installs nothing, the functions are child_process's own, said once on the channel`, () => {
    const r = nodeIn(['-r', PRELOAD, '--import', inst.register, APP], { FAKE_UV: fake });
    const out = lastJson<Out>(r);
    assert.deepEqual(out.codes, [3, 4, 5, 'x\n']);
    assert.deepEqual(out.untouched, [true, true, true, true, true]);
    assert.deepEqual(out.own, [true, true, true, true]);
    assert.deepEqual([out.served, out.fallbacks], [0, 0]);
    assert.equal(out.published.length, 1, JSON.stringify(out.published));
    assert.equal(out.published[0]?.function, null);
    assert.equal(out.published[0]?.reason, out.reason);
    assert.match(out.reason as string, new RegExp(`^node spawns with posix_spawn: libuv ${fake.replace(/\./g, '\\.')} `));
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
