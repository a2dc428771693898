// The async context of a child's events and callbacks, side by side with child_process, after garbage
// collections: an AsyncLocalStorage store set around spawn, exec and execFile is the one seen in 'exit',
// 'close', 'data' and the callbacks. The children close their stdio first and exit later, so that 'close' and
// exec's callback come from the exit itself; gc() runs several times while they live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { installed, lastJson, nodeIn } from './helpers/installed.js';

const inst = installed();
const APP = join(inst.project, 'async-context.mjs');
writeFileSync(
  APP,
  `import { AsyncLocalStorage } from 'node:async_hooks';
import cp from 'node:child_process';
import { promisify } from 'node:util';
const f = process.env.UNDER_REGISTER ? cp : await import('@forklab/spawn');
const mod = process.env.WHICH === 'forklab' ? f : (await import('node:module')).createRequire(import.meta.url)('node:child_process');
const als = new AsyncLocalStorage();
const QUIET = 'exec >&- 2>&- <&-; sleep 1';
const seen = {};
const inStore = (store, fn) => new Promise((res) => als.run(store, () => fn(res)));
const timers = [150, 300, 450, 600, 750].map((ms) => setTimeout(() => { for (let i = 0; i < 4; i++) globalThis.gc(); }, ms));
await Promise.all([
  inStore('spawn', (res) => { const c = mod.spawn('sh', ['-c', QUIET]); c.stdout.resume(); c.stderr.resume(); c.on('exit', () => (seen.spawnExit = als.getStore() ?? null)); c.on('close', () => { seen.spawnClose = als.getStore() ?? null; res(); }); }),
  inStore('ignore', (res) => { const c = mod.spawn('sh', ['-c', 'sleep 1'], { stdio: 'ignore' }); c.on('exit', () => { seen.ignoreExit = als.getStore() ?? null; res(); }); }),
  inStore('chatty', (res) => { const c = mod.spawn('sh', ['-c', 'echo x; sleep 1; echo y']); c.stdout.on('data', () => (seen.chattyData = als.getStore() ?? null)); c.on('close', () => { seen.chattyClose = als.getStore() ?? null; res(); }); }),
  inStore('exec', (res) => mod.exec(QUIET, () => { seen.exec = als.getStore() ?? null; res(); })),
  inStore('execFile', (res) => mod.execFile('sh', ['-c', QUIET], () => { seen.execFile = als.getStore() ?? null; res(); })),
  inStore('promisified', (res) => promisify(mod.execFile)('sh', ['-c', QUIET]).then(() => { seen.promisified = als.getStore() ?? null; res(); })),
]);
for (const t of timers) clearTimeout(t);
const served = (await import('@forklab/spawn')).registerStats().served;
console.log(JSON.stringify({ seen, served }));`,
);

const EXPECTED = {
  spawnExit: 'spawn',
  spawnClose: 'spawn',
  ignoreExit: 'ignore',
  chattyData: 'chatty',
  chattyClose: 'chatty',
  exec: 'exec',
  execFile: 'execFile',
  promisified: 'promisified',
};

for (const [how, pre, env] of [
  ['the package’s functions', [], {}],
  ['child_process under register', ['--import', inst.register], { UNDER_REGISTER: '1' }],
] as const) {
  test(`an AsyncLocalStorage store survives garbage collection into every event and callback (${how}), as with child_process`, () => {
    const theirs = nodeIn(['--expose-gc', APP], { WHICH: 'child_process' });
    const ours = nodeIn(['--expose-gc', ...pre, APP], { ...env, WHICH: 'forklab' });
    const t = lastJson<{ seen: Record<string, unknown> }>(theirs);
    const o = lastJson<{ seen: Record<string, unknown>; served: number }>(ours);
    assert.deepEqual(t.seen, EXPECTED, `child_process: ${theirs.stderr}`);
    assert.deepEqual(o.seen, t.seen, ours.stderr);
    assert.equal(o.served, 6, 'every call was forklab’s');
  });
}
