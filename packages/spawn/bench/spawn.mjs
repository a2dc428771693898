#!/usr/bin/env node
// npm run bench:spawn — what one spawn costs a Node process as its memory grows.
// For each parent size (0, 256, 1024 MB; --sizes) and each kind of memory (touched Buffers; a V8 object
// heap of the same size) a fresh Node process holds that memory and, interleaved round by round in
// random order, measures spawn-to-exit of the probe's static target through child_process.spawn and
// through forklab/spawn, and asks the C probe (holding the same size) for posix_spawn+waitpid: the floor.
// Then the event loop: the longest gap of a 1 ms interval timer during 100 sequential spawns, and how
// long the spawn() call itself blocks; and, for scale, the longest gap with no spawn at all over the same time. Medians in µs. Never a test: timings on a shared machine swing.
//
// Options: --sizes 0,256,1024  --kinds buffers,heap  --rounds 20 (5 spawns per method per round)
//          --json FILE (the raw result)
import { spawn as cpSpawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const probe = join(repo, 'build', 'Release', 'forklab-probe');
const target = join(repo, 'build', 'Release', 'forklab-target-static');
const PER_ROUND = 5;

function fail(msg) {
  console.error(`bench:spawn: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { sizes: [0, 256, 1024], kinds: ['buffers', 'heap'], rounds: 20, json: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--sizes') {
      o.sizes = v.split(',').map(Number);
      if (o.sizes.some((s) => !Number.isInteger(s) || s < 0)) fail(`--sizes: whole numbers of MB expected, got "${v}"`);
    } else if (flag === '--kinds') {
      o.kinds = v.split(',');
      if (o.kinds.some((k) => k !== 'buffers' && k !== 'heap')) fail(`--kinds: buffers and/or heap, got "${v}"`);
    } else if (flag === '--rounds') {
      o.rounds = Number(v);
      if (!Number.isInteger(o.rounds) || o.rounds < 1) fail(`--rounds: a whole number >= 1, got "${v}"`);
    } else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag}`);
  }
  return o;
}

function memAvailableMb() {
  const m = /MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

function cpuPressure() {
  try {
    return Number(/avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))[1]);
  } catch {
    return null;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ---------------------------------------------------------------- worker (one parent size and kind)

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
    const child = spawnFn(target, [], { stdio: 'ignore' });
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

function startProbe(sizeMb) {
  const p = cpSpawn(probe, ['spawn', 'method=posix-spawn', `rss-mb=${sizeMb}`, `target=${target}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: p.stdout });
  const waiting = [];
  const queue = [];
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    if (m.type === 'error') fail(`probe: ${m.call}: ${m.message}`);
    if (waiting.length) waiting.shift()(m);
    else queue.push(m);
  });
  const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r)));
  const limit = setTimeout(() => p.kill('SIGKILL'), 30 * 60_000);
  return {
    async ready() {
      for (let m = await next(); m.type !== 'ready'; m = await next());
    },
    async run(n, warm) {
      p.stdin.write(`${warm ? 'warmup' : 'run'} ${n}\n`);
      const ns = [];
      for (let m = await next(); m.type !== 'end'; m = await next()) if (m.type === 'samples') ns.push(...m.ns);
      return ns;
    },
    stop() {
      clearTimeout(limit);
      p.stdin.end('stop\n');
      return new Promise((r) => p.on('close', r));
    },
  };
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

async function worker(kind, sizeMb, rounds) {
  const { spawn: forklabSpawn } = await import('../dist/index.js');
  const keep = hold(kind, sizeMb);
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const pr = startProbe(sizeMb);
  await pr.ready();
  const methods = {
    child_process: async (n) => {
      const r = [];
      for (let i = 0; i < n; i++) r.push(await timeSpawn(cpSpawn));
      return r;
    },
    forklab: async (n) => {
      const r = [];
      for (let i = 0; i < n; i++) r.push(await timeSpawn(forklabSpawn));
      return r;
    },
    floor: async (n, warm) => (await pr.run(n, warm)).map((ns) => ({ totalNs: ns, callNs: null })),
  };
  const samples = { child_process: [], forklab: [], floor: [] };
  for (const m of Object.keys(methods)) await methods[m](2, true); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(methods).sort(() => Math.random() - 0.5);
    for (const m of order) samples[m].push(...(await methods[m](PER_ROUND, false)));
  }
  await pr.stop();
  const gap = { child_process: await loopBlocking(cpSpawn, 100), forklab: await loopBlocking(forklabSpawn, 100) };
  gap.idle = await loopBlocking(null, 0);
  void keep.length; // the heap is held to here
  const out = { kind, sizeMb, rssMb: Math.round(rssMb), n: rounds * PER_ROUND, medianUs: {}, callMedianUs: {}, maxGapMs: gap };
  for (const [m, s] of Object.entries(samples)) {
    out.medianUs[m] = median(s.map((x) => x.totalNs)) / 1000;
    if (m !== 'floor') out.callMedianUs[m] = median(s.map((x) => x.callNs)) / 1000;
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

// ---------------------------------------------------------------- orchestrator

function runWorker(kind, sizeMb, rounds) {
  return new Promise((resolve, reject) => {
    const heapMb = kind === 'heap' ? sizeMb * 3 + 512 : 512;
    const w = cpSpawn(process.execPath, [`--max-old-space-size=${heapMb}`, fileURLToPath(import.meta.url), '--worker', kind, String(sizeMb), String(rounds)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    w.stdout.on('data', (d) => (out += d));
    const limit = setTimeout(() => w.kill('SIGKILL'), 30 * 60_000);
    w.on('close', (code, sig) => {
      clearTimeout(limit);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`worker ${kind} ${sizeMb} MB ended with ${sig ?? code}`));
    });
  });
}

async function main() {
  if (process.argv[2] === '--worker') return worker(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(probe) || !existsSync(target)) fail('the probe is not built: run `node scripts/build-native.mjs`');
  if (!existsSync(join(here, '..', 'dist', 'index.js'))) fail('@forklab/spawn is not built: run `npm run build`');
  const results = [];
  const pressureBefore = cpuPressure();
  console.log(
    'kind     MB  | child_process µs | forklab µs | C floor µs | cp/forklab | forklab/floor | max gap cp ms | max gap forklab ms | max gap idle ms | call cp µs | call forklab µs',
  );
  for (const kind of o.kinds) {
    for (const sizeMb of o.sizes) {
      // the Node parent (a V8 heap needs about twice its live size) plus the probe holding the same
      const needMb = (kind === 'heap' ? 2.5 : 1.2) * sizeMb + sizeMb + 512;
      if (memAvailableMb() < needMb) {
        console.log(`${kind.padEnd(8)} ${String(sizeMb).padStart(4)} | skipped: needs ~${Math.round(needMb)} MB, MemAvailable ${Math.round(memAvailableMb())} MB`);
        continue;
      }
      const r = await runWorker(kind, sizeMb, o.rounds);
      results.push(r);
      const m = r.medianUs;
      const f = (x, d = 0) => x.toFixed(d);
      console.log(
        `${kind.padEnd(8)} ${String(sizeMb).padStart(4)} | ${f(m.child_process).padStart(15)} | ${f(m.forklab).padStart(10)} | ${f(m.floor).padStart(10)} | ${f(m.child_process / m.forklab, 1).padStart(10)} | ${f(m.forklab / m.floor, 2).padStart(13)} | ${f(r.maxGapMs.child_process, 1).padStart(13)} | ${f(r.maxGapMs.forklab, 1).padStart(18)} | ${f(r.maxGapMs.idle, 1).padStart(15)} | ${f(r.callMedianUs.child_process).padStart(10)} | ${f(r.callMedianUs.forklab).padStart(15)}`,
      );
    }
  }
  const pressureAfter = cpuPressure();
  console.log(`samples per method and size: ${o.rounds * PER_ROUND}; CPU pressure avg10 before/after: ${pressureBefore}/${pressureAfter}`);
  if (o.json) writeFileSync(o.json, JSON.stringify({ rounds: o.rounds, perRound: PER_ROUND, cpuPressure: [pressureBefore, pressureAfter], results }, null, 2));
}

await main();
