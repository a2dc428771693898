#!/usr/bin/env node
// npm run bench:cpu — the server's CPU time per spawn, without the HTTP around it: bench:http's child (`echo hi`,
// stdout piped and collected, stdin and stderr ignored, the result on 'close'), --concurrency of them in flight,
// in a fresh Node holding a small or a 1 GiB heap of Buffers (as bench:http's server), under each register module
// given (--register NAME=SPEC, so that two builds of the package can be compared in the same minutes) and, when
// named, Node's own child_process (--child-process). CPU time, not wall time: the process's user + system time
// (every thread) and its main thread's alone (/proc/self/task/PID/stat, clock ticks), over --spawns spawns after
// --warmup. Every variant and heap runs in --passes fresh processes, in a new random order each pass; a figure is
// the median over the passes, with their range. Each worker has a time limit and is killed at the end.
// Options: --spawns 2000  --concurrency 10  --heaps 0,1024  --warmup 200  --passes 3  --command echo
//          --register NAME=SPEC[,NAME=SPEC]  (default forklab=@forklab/spawn/register)  --child-process
//          --cpu-prof DIR (each worker writes a V8 CPU profile there)  --json FILE
//   worker:  node [--import SPEC] spawn-cpu.mjs --worker SPAWNS CONCURRENCY HEAP_MB WARMUP COMMAND [SPEC]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { live, machineLoad } from './server-process.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);
const repo = join(here, '..', '..', '..');
const MIB = 1024 * 1024;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function fail(msg) {
  console.error(`bench:cpu: ${msg}`);
  process.exit(2);
}

/** The main thread's user + system time in ms (clock ticks of 10 ms), or null where /proc cannot tell. */
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime, stime (fields 14 and 15), USER_HZ 100
  } catch {
    return null;
  }
}

async function worker([spawnsArg, concurrencyArg, heapArg, warmupArg, command, spec]) {
  const keep = [];
  for (let left = Number(heapArg); left > 0; left -= 64) keep.push(Buffer.alloc(Math.min(64, left) * MIB, 1));
  const stats = spec ? (await import(spec)).registerStats : null;
  const one = () =>
    new Promise((resolve) => {
      const child = spawn(command, ['hi'], { stdio: ['ignore', 'pipe', 'ignore'] });
      const chunks = [];
      child.stdout.on('data', (d) => chunks.push(d));
      child.on('error', (e) => resolve(String(e.code ?? e)));
      child.on('close', (code) => resolve(code === 0 ? Buffer.concat(chunks).toString() : `exit ${code}`));
    });
  let failed = 0;
  const batch = async (n, width) => {
    let next = 0;
    const lane = async () => {
      while (next < n) {
        next++;
        if ((await one()) !== 'hi\n') failed++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
  };
  await batch(Number(warmupArg), Number(concurrencyArg));
  failed = 0;
  const s0 = stats?.();
  const main0 = mainThreadCpuMs();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const spawns = Number(spawnsArg);
  await batch(spawns, Number(concurrencyArg));
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const main1 = mainThreadCpuMs();
  const s1 = stats?.();
  void keep.length;
  const out = {
    spawns,
    failed,
    wallMs,
    cpuUsPerSpawn: (c.user + c.system) / spawns,
    mainThreadCpuUsPerSpawn: main0 === null || main1 === null ? null : ((main1 - main0) * 1000) / spawns,
    forklab: s0 && s1 ? { served: s1.served - s0.served, fallbacks: s1.fallbacks - s0.fallbacks } : null,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function parseArgs(argv) {
  const o = { spawns: 2000, concurrency: 10, heaps: [0, 1024], warmup: 200, passes: 3, command: 'echo', register: [{ name: 'forklab', spec: '@forklab/spawn/register' }] };
  const whole = (flag, v, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`${flag}: a whole number >= ${min}, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--child-process') {
      o.childProcess = true;
      continue;
    }
    const v = argv[++i];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--spawns') o.spawns = whole(flag, v, 1);
    else if (flag === '--concurrency') o.concurrency = whole(flag, v, 1);
    else if (flag === '--heaps') o.heaps = v.split(',').map((x) => whole(flag, x, 0));
    else if (flag === '--warmup') o.warmup = whole(flag, v, 0);
    else if (flag === '--passes') o.passes = whole(flag, v, 1);
    else if (flag === '--command') o.command = v;
    else if (flag === '--register')
      o.register = v.split(',').map((x) => {
        const at = x.indexOf('=');
        if (at < 1 || at === x.length - 1) fail(`--register: NAME=SPEC expected, got "${x}"`);
        return { name: x.slice(0, at), spec: x.slice(at + 1) };
      });
    else if (flag === '--cpu-prof') o.cpuProf = v;
    else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag}`);
  }
  return o;
}

/** One fresh worker: its JSON line, or a thrown error (it is killed after its time limit). */
function runWorker(variant, heapMb, o) {
  const prof = o.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', o.cpuProf] : [];
  const load = variant.spec ? ['--import', variant.spec] : [];
  const args = [...prof, ...load, self, '--worker', o.spawns, o.concurrency, heapMb, o.warmup, o.command, ...(variant.spec ? [variant.spec] : [])];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args.map(String), { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
    live.add(p);
    const limit = setTimeout(() => p.kill('SIGKILL'), 600_000);
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.on('close', (code, sig) => {
      clearTimeout(limit);
      live.delete(p);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()));
      else reject(new Error(`worker ended with ${sig ?? code}`));
    });
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const variants = [...o.register, ...(o.childProcess ? [{ name: 'child_process', spec: null }] : [])];
  const before = machineLoad((f) => readFileSync(f, 'utf8'));
  const runs = [];
  for (let pass = 0; pass < o.passes; pass++) {
    for (const heapMb of pass % 2 === 0 ? o.heaps : [...o.heaps].reverse())
      for (const v of [...variants].sort(() => Math.random() - 0.5)) {
        process.stderr.write(`bench:cpu: pass ${pass + 1} of ${o.passes}: ${v.name} heap ${heapMb} MB …\n`);
        const r = await runWorker(v, heapMb, o);
        runs.push({ pass, variant: v.name, heapMb, ...r });
      }
  }
  const after = machineLoad((f) => readFileSync(f, 'utf8'));
  const f = (x) => (x === null || x === undefined ? '-' : Math.round(x).toLocaleString('en-US'));
  console.log(`medians over ${o.passes} pass(es) of fresh processes; ${o.spawns} spawns of \`${o.command} hi\` (stdout piped) after ${o.warmup}, ${o.concurrency} in flight`);
  console.log('variant          heap MB | CPU µs/spawn [passes]   | main thread µs/spawn [passes] | wall µs/spawn | failed | forklab served / fallbacks');
  for (const heapMb of o.heaps)
    for (const v of variants) {
      const rs = runs.filter((r) => r.variant === v.name && r.heapMb === heapMb);
      const cpu = rs.map((r) => r.cpuUsPerSpawn);
      const main = rs.map((r) => r.mainThreadCpuUsPerSpawn).filter((x) => x !== null);
      const served = rs.reduce((n, r) => n + (r.forklab?.served ?? 0), 0);
      const fallbacks = rs.reduce((n, r) => n + (r.forklab?.fallbacks ?? 0), 0);
      console.log(
        `${v.name.padEnd(16)} ${String(heapMb).padStart(7)} | ${`${f(median(cpu))} [${f(Math.min(...cpu))}-${f(Math.max(...cpu))}]`.padEnd(23)} | ${(main.length ? `${f(median(main))} [${f(Math.min(...main))}-${f(Math.max(...main))}]` : '-').padEnd(29)} | ${f(median(rs.map((r) => (r.wallMs * 1000) / r.spawns))).padStart(13)} | ${String(rs.reduce((n, r) => n + r.failed, 0)).padStart(6)} | ${v.spec ? `${served} / ${fallbacks}` : '-'}`,
      );
    }
  console.log(
    `the machine: CPU pressure (some avg10) ${before.cpuPressureAvg10}/${after.cpuPressureAvg10} %, load average (1 min) ${before.loadAvg1}/${after.loadAvg1} (before/after)`,
  );
  if (o.json) writeFileSync(o.json, JSON.stringify({ options: o, runs, machine: { before, after } }, null, 2));
}

if (process.argv[2] === '--worker') await worker(process.argv.slice(3));
else await main();
