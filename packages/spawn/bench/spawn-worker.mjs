// bench:spawn's worker: one fresh Node process per memory kind, size, environment and pass (spawn.mjs starts
// it). It holds the memory, then measures, interleaved round by round in random order: each function through
// child_process and through forklab; the addon alone (its spawn called directly, no ChildProcess around it);
// and the C floor holding the same size, started with this process's environment (floor.c: the same file
// actions, attributes and pidfd reaping as forklab's child). Then the event loop's longest gaps. One JSON
// line on stdout.
import * as childProcess from 'node:child_process';
import { spawn as cpSpawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envPairsOf, envSize } from './env.mjs';
import { startFloor } from './floor.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
export const TARGET = join(repo, 'build', 'Release', 'forklab-target-static');
const PER_ROUND = 5;
const FORK_PER_ROUND = 1;
const forkChild = join(here, 'fork-echo.cjs');
const requireHere = createRequire(import.meta.url);
export const FUNCTIONS = ['spawn', 'execFile', 'spawnSync', 'fork'];
/** The C floor's modes (floor.c) and the function each is the floor of. */
export const FLOOR_OF = { spawn: 'floor:ignore', spawnSync: 'floor:ignore', execFile: 'floor:pipe' };
const FLOOR_MODES = ['ignore', 'pipe', 'bare'];
export const SAMPLES = { perRound: PER_ROUND, forkPerRound: FORK_PER_ROUND };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function hold(kind, sizeMb) {
  const keep = [];
  if (kind === 'buffers') {
    for (let left = sizeMb; left > 0; left -= 16) keep.push(Buffer.allocUnsafe(Math.min(16, left) << 20).fill(0x5a));
  } else {
    const base = process.memoryUsage().heapUsed;
    while (process.memoryUsage().heapUsed - base < sizeMb * 2 ** 20) {
      const chunk = new Array(100_000);
      for (let i = 0; i < chunk.length; i++) chunk[i] = { i, next: null, tag: 'x' };
      keep.push(chunk);
    }
  }
  return keep;
}

function timeSpawn(spawnFn) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawnFn(TARGET, [], { stdio: 'ignore' });
    const callNs = Number(process.hrtime.bigint() - t0);
    const limit = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(limit);
      if (code !== 0) reject(new Error(`target exited ${code}`));
      else resolve({ totalNs: Number(process.hrtime.bigint() - t0), callNs });
    });
  });
}

/** One call of fn through module m, timed from the call to the child's end; callNs: how long the call blocks. */
function timeCall(m, fn) {
  if (fn === 'spawn') return timeSpawn(m.spawn);
  const t0 = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - t0);
  if (fn === 'spawnSync') {
    const r = m.spawnSync(TARGET, [], { stdio: 'ignore', timeout: 30_000 });
    if (r.status !== 0) throw new Error(`target: ${r.error ?? r.status}`);
    const ns = since();
    return Promise.resolve({ totalNs: ns, callNs: ns });
  }
  return new Promise((resolve, reject) => {
    if (fn === 'execFile') {
      let callNs = 0;
      m.execFile(TARGET, [], { timeout: 30_000 }, (err) => (err ? reject(err) : resolve({ totalNs: since(), callNs })));
      callNs = since();
      return;
    }
    const child = m.fork(forkChild, [], { timeout: 30_000 });
    const callNs = since();
    child.once('message', () => child.disconnect());
    child.send('ping');
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ totalNs: since(), callNs }) : reject(new Error(`fork child exited ${code}`))));
  });
}

/** The longest gap of a 1 ms interval timer while n spawns run one after another (spawnFn null: while
 * nothing runs, for the same time as the last measured batch: what the machine's load alone causes). */
let lastBatchMs = 100;
async function loopBlocking(spawnFn, n) {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 5));
  last = performance.now();
  const t0 = performance.now();
  if (spawnFn) for (let i = 0; i < n; i++) await timeSpawn(spawnFn);
  else await new Promise((r) => setTimeout(r, lastBatchMs));
  if (spawnFn) lastBatchMs = performance.now() - t0;
  clearInterval(timer);
  return maxGap;
}

const repeat = (once) => async (n) => {
  const r = [];
  for (let i = 0; i < n; i++) r.push(await once());
  return r;
};

export async function worker(kind, sizeMb, rounds, envSetting, floorExe) {
  const forklab = await import('../dist/index.js');
  const keep = hold(kind, sizeMb);
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  // What every child here gets: the envPairs child_process builds from this process's environment.
  const envPairs = envPairsOf(process.env);
  const floor = startFloor(floorExe, sizeMb, TARGET);
  const floorEnv = await floor.ready();
  const methods = {};
  for (const mode of FLOOR_MODES) methods[`floor:${mode}`] = async (n, warm) => (await floor.run(n, mode, warm)).map((ns) => ({ totalNs: ns, callNs: null }));
  // the addon alone: the same child with the same environment, no ChildProcess around it
  const addon = requireHere('../dist/locate.cjs').requireAddon().addon;
  methods.addon = repeat(
    () =>
      new Promise((resolve, reject) => {
        const t0 = process.hrtime.bigint();
        const [err] = addon.spawn(TARGET, [TARGET], envPairs, null, [-1, -1, -1], false, (status) =>
          status === 0 ? resolve({ totalNs: Number(process.hrtime.bigint() - t0), callNs }) : reject(new Error(`target exited ${status}`)),
        );
        const callNs = Number(process.hrtime.bigint() - t0);
        if (err !== 0) reject(new Error(`addon spawn: ${err}`));
      }),
  );
  for (const fn of FUNCTIONS)
    for (const [impl, m] of [
      ['child_process', childProcess],
      ['forklab', forklab],
    ])
      methods[`${fn}:${impl}`] = repeat(() => timeCall(m, fn));
  const samples = Object.fromEntries(Object.keys(methods).map((k) => [k, []]));
  for (const m of Object.keys(methods)) await methods[m](1, true); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(methods).sort(() => Math.random() - 0.5);
    for (const m of order) samples[m].push(...(await methods[m](m.startsWith('fork') ? FORK_PER_ROUND : PER_ROUND, false)));
  }
  await floor.stop();
  const gap = { child_process: await loopBlocking(cpSpawn, 100), forklab: await loopBlocking(forklab.spawn, 100) };
  gap.idle = await loopBlocking(null, 0);
  void keep.length; // the memory is held to here
  const env = { setting: envSetting, ...envSize(envPairs), floorCount: floorEnv.envCount, floorBytes: floorEnv.envBytes };
  const out = { kind, sizeMb, env, rssMb: Math.round(rssMb), rounds, medianUs: {}, callMedianUs: {}, maxGapMs: gap };
  for (const [m, s] of Object.entries(samples)) {
    out.medianUs[m] = median(s.map((x) => x.totalNs)) / 1000;
    if (!m.startsWith('floor')) out.callMedianUs[m] = median(s.map((x) => x.callNs)) / 1000;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--worker') {
  const [kind, sizeMb, rounds, envSetting, floorExe] = process.argv.slice(3);
  await worker(kind, Number(sizeMb), Number(rounds), envSetting, floorExe);
}
