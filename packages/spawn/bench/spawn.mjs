#!/usr/bin/env node
// npm run bench:spawn — what one spawn costs a Node process as its memory grows.
// For each parent size (0, 256, 1024 MB; --sizes) and each kind of memory (touched Buffers; a V8 object
// heap of the same size) a fresh Node process holds that memory and, interleaved round by round in
// random order, measures each function through child_process and through forklab/spawn: spawn and execFile
// (to exit) and spawnSync of the probe's static target, fork with one message round trip (a Node child),
// and asks the C probe (holding the same size) for posix_spawn+waitpid: the floor. Between the two, the addon
// alone (its spawn called directly, the exit awaited, without child_process's JavaScript): what of the gap
// to the floor is forklab's own, and what is child_process's.
// Then the event loop: the longest gap of a 1 ms interval timer during 100 sequential spawns, and how
// long the spawn() call itself blocks; and, for scale, the longest gap with no spawn at all over the same time. Medians in µs. Never a test: timings on a shared machine swing.
//
// Fresh worker processes of one size differ from each other by more than their samples do, so each size is
// measured in --passes worker processes, the sizes in alternating order pass after pass (0, 256, 1024, then
// 1024, 256, 0, …); a figure is the median over the passes, with the range of the passes beside the ratios.
//
// Options: --sizes 0,256,1024  --kinds buffers,heap  --rounds 20 (5 spawns per method per round)  --passes 3
//          --json FILE (the raw result)
import * as childProcess from 'node:child_process';
import { spawn as cpSpawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const probe = join(repo, 'build', 'Release', 'forklab-probe');
const target = join(repo, 'build', 'Release', 'forklab-target-static');
const PER_ROUND = 5;
const FORK_PER_ROUND = 1;
const forkChild = join(here, 'fork-echo.cjs');
const requireHere = createRequire(import.meta.url);
const FUNCTIONS = ['spawn', 'execFile', 'spawnSync', 'fork'];

function fail(msg) {
  console.error(`bench:spawn: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { sizes: [0, 256, 1024], kinds: ['buffers', 'heap'], rounds: 20, passes: 3, json: null };
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
    } else if (flag === '--passes') {
      o.passes = Number(v);
      if (!Number.isInteger(o.passes) || o.passes < 1) fail(`--passes: a whole number >= 1, got "${v}"`);
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

/** One call of fn through module m, timed from the call to the child's end; callNs: how long the call blocks. */
function timeCall(m, fn) {
  if (fn === 'spawn') return timeSpawn(m.spawn);
  const t0 = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - t0);
  if (fn === 'spawnSync') {
    const r = m.spawnSync(target, [], { stdio: 'ignore', timeout: 30_000 });
    if (r.status !== 0) throw new Error(`target: ${r.error ?? r.status}`);
    const ns = since();
    return Promise.resolve({ totalNs: ns, callNs: ns });
  }
  return new Promise((resolve, reject) => {
    if (fn === 'execFile') {
      let callNs = 0;
      m.execFile(target, [], { timeout: 30_000 }, (err) => (err ? reject(err) : resolve({ totalNs: since(), callNs })));
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

async function worker(kind, sizeMb, rounds) {
  const forklab = await import('../dist/index.js');
  const keep = hold(kind, sizeMb);
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const pr = startProbe(sizeMb);
  await pr.ready();
  const methods = { floor: async (n, warm) => (await pr.run(n, warm)).map((ns) => ({ totalNs: ns, callNs: null })) };
  // the addon alone: the same child with the environment child_process would pass, no ChildProcess around it
  const addon = requireHere('../dist/locate.cjs').requireAddon().addon;
  const envPairs = Object.entries(process.env).map(([k, v]) => `${k}=${v}`);
  const addonOnce = () =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const [err] = addon.spawn(target, [target], envPairs, null, [-1, -1, -1], false, (status) =>
        status === 0 ? resolve({ totalNs: Number(process.hrtime.bigint() - t0), callNs }) : reject(new Error(`target exited ${status}`)),
      );
      const callNs = Number(process.hrtime.bigint() - t0);
      if (err !== 0) reject(new Error(`addon spawn: ${err}`));
    });
  methods.addon = async (n) => {
    const r = [];
    for (let i = 0; i < n; i++) r.push(await addonOnce());
    return r;
  };
  for (const fn of FUNCTIONS) {
    for (const [impl, m] of [
      ['child_process', childProcess],
      ['forklab', forklab],
    ]) {
      methods[`${fn}:${impl}`] = async (n) => {
        const r = [];
        for (let i = 0; i < n; i++) r.push(await timeCall(m, fn));
        return r;
      };
    }
  }
  const samples = Object.fromEntries(Object.keys(methods).map((k) => [k, []]));
  for (const m of Object.keys(methods)) await methods[m](1, true); // warm-up
  for (let r = 0; r < rounds; r++) {
    const order = Object.keys(methods).sort(() => Math.random() - 0.5);
    for (const m of order) samples[m].push(...(await methods[m](m.startsWith('fork') ? FORK_PER_ROUND : PER_ROUND, false)));
  }
  await pr.stop();
  const gap = { child_process: await loopBlocking(cpSpawn, 100), forklab: await loopBlocking(forklab.spawn, 100) };
  gap.idle = await loopBlocking(null, 0);
  void keep.length; // the heap is held to here
  const out = { kind, sizeMb, rssMb: Math.round(rssMb), rounds, medianUs: {}, callMedianUs: {}, maxGapMs: gap };
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

/** The median over passes of each figure of one kind and size (the passes' own figures kept in `passes`). */
function combine(passes) {
  const out = { ...passes[0], passes: passes.map((p) => ({ medianUs: p.medianUs, callMedianUs: p.callMedianUs, maxGapMs: p.maxGapMs, rssMb: p.rssMb })) };
  for (const field of ['medianUs', 'callMedianUs', 'maxGapMs']) {
    out[field] = {};
    for (const k of Object.keys(passes[0][field])) out[field][k] = median(passes.map((p) => p[field][k]));
  }
  return out;
}

async function main() {
  if (process.argv[2] === '--worker') return worker(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(probe) || !existsSync(target)) fail('the probe is not built: run `node scripts/build-native.mjs`');
  if (!existsSync(join(here, '..', 'dist', 'index.js'))) fail('@forklab/spawn is not built: run `npm run build`');
  const pressureBefore = cpuPressure();
  const f = (x, d = 0) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
  const byCell = new Map(); // `${kind} ${sizeMb}` → one result per pass
  const skipped = new Set();
  for (let pass = 0; pass < o.passes; pass++) {
    const sizes = pass % 2 === 0 ? o.sizes : [...o.sizes].reverse();
    for (const kind of o.kinds) {
      for (const sizeMb of sizes) {
        const key = `${kind} ${sizeMb}`;
        // the Node parent (a V8 heap needs about twice its live size) plus the probe holding the same
        const needMb = (kind === 'heap' ? 2.5 : 1.2) * sizeMb + sizeMb + 512;
        if (memAvailableMb() < needMb) {
          if (!skipped.has(key))
            console.log(`${kind.padEnd(8)} ${String(sizeMb).padStart(4)} | skipped: needs ~${Math.round(needMb)} MB, MemAvailable ${Math.round(memAvailableMb())} MB`);
          skipped.add(key);
          continue;
        }
        process.stderr.write(`bench:spawn: pass ${pass + 1} of ${o.passes}: ${kind} ${sizeMb} MB …\n`);
        const r = await runWorker(kind, sizeMb, o.rounds);
        byCell.set(key, [...(byCell.get(key) ?? []), r]);
      }
    }
  }
  const results = [];
  console.log(`medians over ${o.passes} pass(es) of fresh worker processes`);
  console.log('kind     MB   function  | child_process µs | forklab µs | cp/forklab | call cp µs | call forklab µs');
  for (const kind of o.kinds) {
    for (const sizeMb of o.sizes) {
      const passes = byCell.get(`${kind} ${sizeMb}`);
      if (!passes) continue;
      const r = combine(passes);
      results.push(r);
      const m = r.medianUs;
      for (const fn of FUNCTIONS) {
        const [cp, fl] = [m[`${fn}:child_process`], m[`${fn}:forklab`]];
        const [ccp, cfl] = [r.callMedianUs[`${fn}:child_process`], r.callMedianUs[`${fn}:forklab`]];
        console.log(
          `${kind.padEnd(8)} ${String(sizeMb).padStart(4)}  ${fn.padEnd(9)} | ${f(cp).padStart(15)} | ${f(fl).padStart(10)} | ${f(cp / fl, 2).padStart(10)} | ${f(ccp).padStart(10)} | ${f(cfl).padStart(15)}`,
        );
      }
      const perPass = (num, den) => {
        const xs = passes.map((p) => p.medianUs[num] / p.medianUs[den]);
        return passes.length > 1 ? ` [passes ${f(Math.min(...xs), 2)}-${f(Math.max(...xs), 2)}]` : '';
      };
      console.log(
        `${kind.padEnd(8)} ${String(sizeMb).padStart(4)}  C floor ${f(m.floor)} µs; forklab spawn / floor ${f(m['spawn:forklab'] / m.floor, 2)}${perPass('spawn:forklab', 'floor')} (the addon alone ${f(m.addon)} µs, / floor ${f(m.addon / m.floor, 2)}${perPass('addon', 'floor')}: the rest is child_process's JavaScript); event loop max gap over 100 spawns: cp ${f(r.maxGapMs.child_process, 1)} ms, forklab ${f(r.maxGapMs.forklab, 1)} ms, idle ${f(r.maxGapMs.idle, 1)} ms`,
      );
    }
  }
  // flatness: each function's median at the largest size over its median at 0 MB, per kind (the range: the same
  // ratio pass by pass, each pass's largest size over its own smallest)
  for (const kind of o.kinds) {
    const at = (mb) => results.find((r) => r.kind === kind && r.sizeMb === mb);
    const small = at(Math.min(...o.sizes));
    const large = at(Math.max(...o.sizes));
    if (!small || !large || small === large) continue;
    const ratio = (k) => {
      const xs = large.passes.map((p, i) => p.medianUs[k] / small.passes[i]?.medianUs[k]).filter((x) => Number.isFinite(x));
      const range = xs.length > 1 ? ` [${f(Math.min(...xs), 2)}-${f(Math.max(...xs), 2)}]` : '';
      return `${f(large.medianUs[k] / small.medianUs[k], 2)}${range}`;
    };
    const ratios = FUNCTIONS.map((fn) => `${fn} cp ${ratio(`${fn}:child_process`)} forklab ${ratio(`${fn}:forklab`)}`);
    console.log(`${kind}: ${large.sizeMb} MB ÷ ${small.sizeMb} MB: ${ratios.join('; ')}; addon alone ${ratio('addon')}; floor ${ratio('floor')}`);
  }
  const pressureAfter = cpuPressure();
  console.log(
    `samples per method, size and pass: ${o.rounds * PER_ROUND} (fork: ${o.rounds * FORK_PER_ROUND}); CPU pressure avg10 before/after: ${pressureBefore}/${pressureAfter}`,
  );
  if (o.json) writeFileSync(o.json, JSON.stringify({ rounds: o.rounds, perRound: PER_ROUND, passes: o.passes, cpuPressure: [pressureBefore, pressureAfter], results }, null, 2));
}

await main();
