// Under Node's permission model (--permission; --experimental-permission on Node 20) forklab refuses exactly what
// Node refuses and serves the rest: register never dies at start-up; without --allow-child-process every function
// throws ERR_ACCESS_DENIED as child_process does (forklab checks process.permission.has('child') itself, and its
// addon refuses too); with it, spawn is forklab's and the sync family child_process's (process.binding is refused
// there). FORKLAB_SPAWN_ADDON is ignored, with a warning: an environment variable must not choose native code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';

const inst = installed();
const major = Number(process.versions.node.split('.')[0]);
const PERMISSION = major >= 22 ? '--permission' : '--experimental-permission';
// From the Node that knows --allow-net (26) on, the model refuses Pipe.open without it: calls with pipes are then
// Node's own (counted), and only the last spawn of APP (stdio 'ignore') is forklab's.
const netGate = process.allowedNodeEnvironmentFlags.has('--allow-net');
const SERVED = netGate ? 1 : 5;

const APP = join(inst.project, 'app.mjs');
writeFileSync(
  APP,
  `import cp from 'node:child_process';
import { registerStats } from '@forklab/spawn/register';
import * as f from '@forklab/spawn';
const tryIt = (fn) => { try { const r = fn(); return r && typeof r.on === 'function' ? 'started' : JSON.stringify(r?.status ?? String(r)); } catch (e) { return 'threw ' + e.code; } };
const started = [];
const outcome = async (m) => {
  const r = { spawn: tryIt(() => { const c = m.spawn('sh', ['-c', 'exit 4']); started.push(c); return c; }),
    spawnSync: tryIt(() => m.spawnSync('sh', ['-c', 'exit 5'])), execSync: tryIt(() => m.execSync('echo x').toString()),
    execFile: tryIt(() => { const c = m.execFile('true'); started.push(c); return c; }) };
  return r;
};
const theirs = await outcome(cp);
const ours = await outcome(f);
const codes = await Promise.all(started.map((c) => new Promise((r) => c.on('close', r))));
let addon = 'not tried';
try { f.spawn('true', [], { stdio: 'ignore' }).on('error', () => {}); addon = 'ok'; } catch (e) { addon = e.code; }
const s = registerStats();
console.log(JSON.stringify({ theirs, ours, codes, served: s.served, reasons: Object.keys(s.byReason), unavailable: f.unavailableReason() }));`,
);

test('no right to start children: register loads, and every function throws ERR_ACCESS_DENIED as child_process’s', () => {
  const r = nodeIn([PERMISSION, '--allow-fs-read=*', '--import', inst.register, APP]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ theirs: unknown; ours: unknown; served: number; reasons: string[] }>(r);
  assert.deepEqual(out.ours, out.theirs);
  assert.deepEqual(out.ours, { spawn: 'threw ERR_ACCESS_DENIED', spawnSync: 'threw ERR_ACCESS_DENIED', execSync: 'threw ERR_ACCESS_DENIED', execFile: 'threw ERR_ACCESS_DENIED' });
  assert.equal(out.served, 0);
});

test('children allowed (and addons): spawn and execFile are forklab’s, the sync family child_process’s, the same results', () => {
  const r = nodeIn([PERMISSION, '--allow-fs-read=*', '--allow-child-process', '--allow-addons', '--import', inst.register, APP]);
  assert.equal(r.status, 0, r.stderr);
  const out = lastJson<{ theirs: unknown; ours: unknown; codes: number[]; served: number; reasons: string[]; unavailable: string | null }>(r);
  assert.deepEqual(out.ours, out.theirs);
  assert.deepEqual(out.ours, { spawn: 'started', spawnSync: '5', execSync: '"x\\n"', execFile: 'started' });
  assert.deepEqual(out.codes, [4, 0, 4, 0]);
  assert.equal(out.unavailable, null);
  // the two cp calls (register routes them through forklab), the two forklab ones, and the last spawn
  assert.equal(out.served, SERVED);
  assert.ok(
    out.reasons.every((x) => /permission model/.test(x)),
    out.reasons.join('; '),
  );
  if (netGate) {
    const net = nodeIn([PERMISSION, '--allow-fs-read=*', '--allow-child-process', '--allow-addons', '--allow-net', '--import', inst.register, APP]);
    const withNet = lastJson<{ theirs: unknown; ours: unknown; served: number }>(net);
    assert.deepEqual(withNet.ours, withNet.theirs);
    assert.equal(withNet.served, 5, 'with --allow-net the pipes are forklab’s too');
  }
});

test('FORKLAB_SPAWN_ADDON is ignored under the permission model, with a warning; the package’s own addon serves', () => {
  const r = nodeIn([PERMISSION, '--allow-fs-read=*', '--allow-child-process', '--allow-addons', '--import', inst.register, APP], {
    FORKLAB_SPAWN_ADDON: join(inst.project, 'elsewhere.node'),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /FORKLAB_SPAWN_ADDON=.*elsewhere\.node is ignored under Node's permission model/);
  assert.equal(lastJson<{ served: number }>(r).served, SERVED);
  // outside the permission model it is what it says: the path is tried first (it does not exist)
  const plain = nodeIn(['--import', inst.register, APP], { FORKLAB_SPAWN_ADDON: join(inst.project, 'elsewhere.node') });
  assert.equal(lastJson<{ served: number }>(plain).served, 9, plain.stderr); // the sync family too, there
  assert.doesNotMatch(plain.stderr, /ignored/);
});

test('the addon itself refuses a spawn without the right to start children (ERR_ACCESS_DENIED), even called directly', () => {
  const file = join(inst.project, 'direct-addon.cjs');
  writeFileSync(
    file,
    `const addon = require(${JSON.stringify(join(inst.project, 'node_modules', '@forklab', 'spawn', 'build', 'Release', 'forklab_spawn.node'))});
const out = [];
try { addon.spawn('/bin/true', ['true'], [], null, [-1, -1, -1], false, () => {}); out.push('spawned'); } catch (e) { out.push(e.code); }
try { addon.spawnSync({ file: '/bin/true', args: ['true'], envPairs: [], stdio: [-1, -1, -1], input: [null, null, null], readable: [false, false, false] }); out.push('spawned'); } catch (e) { out.push(e.code); }
process.permission.has = () => true; // too late: the addon keeps the function it found when it loaded
try { addon.spawn('/bin/true', ['true'], [], null, [-1, -1, -1], false, () => {}); out.push('spawned'); } catch (e) { out.push(e.code); }
try { addon.spawnSync({ file: '/bin/true', args: ['true'], envPairs: [], stdio: [-1, -1, -1], input: [null, null, null], readable: [false, false, false] }); out.push('spawned'); } catch (e) { out.push(e.code); }
console.log(JSON.stringify(out));`,
  );
  const r = nodeIn([PERMISSION, '--allow-fs-read=*', '--allow-addons', file]);
  assert.deepEqual(lastJson(r), ['ERR_ACCESS_DENIED', 'ERR_ACCESS_DENIED', 'ERR_ACCESS_DENIED', 'ERR_ACCESS_DENIED'], r.stderr);
});

// process.permission.has is an ordinary property of an ordinary object: any code can replace it. Node's own
// handle checks the permission in C++ whatever it says; forklab must refuse what Node refuses, whether the
// replacement came before forklab loaded or after, and start nothing (a started child would leave its marker).
const HIJACK = join(inst.project, 'hijack.cjs');
writeFileSync(HIJACK, `process.permission.has = () => true;\n`);
const HIJACKED = join(inst.project, 'hijacked.mjs');
writeFileSync(
  HIJACKED,
  `import cp from 'node:child_process';
import { existsSync } from 'node:fs';
const f = await import('@forklab/spawn');
if (process.env.HIJACK_AFTER) process.permission.has = () => true;
const dir = process.env.MARKERS;
const kids = [];
const tryIt = (fn) => { try { const c = fn(); kids.push(c); c.on('error', () => {}); return 'started'; } catch (e) { return 'threw ' + e.code; } };
const calls = (m, who) => ({
  spawn: tryIt(() => m.spawn('sh', ['-c', 'echo > ' + dir + '/' + who + '-spawn'])),
  spawnIgnore: tryIt(() => m.spawn('sh', ['-c', 'echo > ' + dir + '/' + who + '-ignore'], { stdio: 'ignore' })),
  execFile: tryIt(() => m.execFile('sh', ['-c', 'echo > ' + dir + '/' + who + '-execFile'])),
  exec: tryIt(() => m.exec('echo > ' + dir + '/' + who + '-exec')),
  direct: tryIt(() => { const c = new m.ChildProcess(); c.spawn({ file: 'sh', args: ['sh', '-c', 'echo > ' + dir + '/' + who + '-direct'], stdio: 'ignore' }); return c; }),
});
const theirs = calls(cp, 'cp');
const ours = calls(f, 'forklab');
await Promise.all(kids.map((c) => new Promise((r) => { c.on('close', r); c.on('error', r); setTimeout(r, 5000).unref(); })));
const s = f.registerStats();
console.log(JSON.stringify({ theirs, ours, served: s.served }));`,
);

for (const [what, pre, env] of [
  ['before forklab loads (node -r)', ['-r', HIJACK], {}],
  ['after forklab loaded', [], { HIJACK_AFTER: '1' }],
  ['before register loads', ['-r', HIJACK, '--import', inst.register], {}],
  ['after register loaded', ['--import', inst.register], { HIJACK_AFTER: '1' }],
] as const) {
  test(`process.permission.has replaced ${what}: forklab refuses what Node refuses (ERR_ACCESS_DENIED), and starts nothing`, () => {
    const markers = mkdtempSync(join(inst.project, 'markers-'));
    const r = nodeIn([PERMISSION, '--allow-fs-read=*', '--allow-addons', ...pre, HIJACKED], { ...env, MARKERS: markers });
    assert.equal(r.status, 0, r.stderr);
    const out = lastJson<{ theirs: Record<string, string>; ours: Record<string, string>; served: number }>(r);
    const refused = {
      spawn: 'threw ERR_ACCESS_DENIED',
      spawnIgnore: 'threw ERR_ACCESS_DENIED',
      execFile: 'threw ERR_ACCESS_DENIED',
      exec: 'threw ERR_ACCESS_DENIED',
      direct: 'threw ERR_ACCESS_DENIED',
    };
    assert.deepEqual(out.theirs, refused, 'child_process (under register: forklab’s handle)');
    assert.deepEqual(out.ours, refused);
    assert.deepEqual(readdirSync(markers), [], 'no child ran');
    assert.equal(out.served, 0);
  });
}
