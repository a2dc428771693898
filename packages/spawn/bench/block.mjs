#!/usr/bin/env node
// npm run bench:block — the number users feel: how long one spawn blocks the event loop, beside its spawn-to-exit
// time, for Node's child_process, Node under `--import @forklab/spawn/register` (forklab), Bun (node:child_process
// and Bun.spawn) and Deno (node:child_process and Deno.Command), each in a fresh process holding a small or a 1 GiB
// heap of Buffers (bench/block-worker.mjs, the same file in the three runtimes; the variant ids are bench:http's).
// Per spawn, one after another: the spawn call's own time (sync), the longest gap of a 1 ms timer from the call
// until the exit was handled (the loop's longest stall, which holds the call), and spawn-to-exit; the same timer's
// longest gap in idle windows of the same length is printed beside it (the machine alone). Every variant and heap
// runs in --passes fresh processes, in a new random order each pass; a figure is the median over the passes of
// each process's median (p50) or 99th percentile. Each worker has a time limit and is killed at the end.
// Options: --variants LIST  --heaps 0,1024  --spawns 100  --passes 3  --command true  --node PATH  --bun PATH
//          --deno PATH  --json FILE
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VARIANTS, findRuntime, VARIANTS } from './http-variants.mjs';
import { live, machineLoad, runPasses } from './server-process.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const readText = (f) => readFileSync(f, 'utf8');

function fail(msg) {
  console.error(`bench:block: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { variants: [...DEFAULT_VARIANTS], heaps: [0, 1024], spawns: 100, passes: 3, command: 'true' };
  const whole = (flag, v, min) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) fail(`${flag}: a whole number >= ${min}, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--variants') {
      o.variants = v.split(',');
      const bad = o.variants.filter((x) => !DEFAULT_VARIANTS.includes(x));
      if (bad.length) fail(`--variants: unknown ${bad.join(', ')} (known: ${DEFAULT_VARIANTS.join(', ')})`);
    } else if (flag === '--heaps') o.heaps = v.split(',').map((x) => whole('--heaps', x, 0));
    else if (flag === '--spawns') o.spawns = whole(flag, v, 1);
    else if (flag === '--passes') o.passes = whole(flag, v, 1);
    else if (flag === '--command') o.command = v;
    else if (['--node', '--bun', '--deno'].includes(flag)) {
      if (!existsSync(v)) fail(`${flag}: no such file ${v}`);
      o[flag.slice(2)] = v;
    } else if (flag === '--json') o.json = v;
    else fail(`unknown option ${flag}`);
  }
  return o;
}

/** One worker process, killed after limitS; resolves with its JSON line. */
function runWorker(argv, limitS) {
  const [exe, ...rest] = argv;
  return new Promise((resolve, reject) => {
    const p = spawn(exe, rest, { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
    live.add(p);
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    const limit = setTimeout(() => p.kill('SIGKILL'), limitS * 1000);
    p.once('error', reject);
    p.once('close', (code, sig) => {
      clearTimeout(limit);
      live.delete(p);
      const line = out.trim().split('\n').pop();
      if (code === 0 && line) resolve(JSON.parse(line));
      else reject(new Error(`${exe} ended with ${sig ?? code}${sig === 'SIGKILL' ? ` (time limit ${limitS} s)` : ''}`));
    });
  });
}

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f = (x, d = 1) => (typeof x === 'number' ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');

function report(runs, o, meta) {
  console.log(`\nmedians over ${o.passes} pass(es) of fresh processes, ${o.spawns} spawns of \`${o.command}\` each, one after another, stdio ignored`);
  console.log('variant             heap MB | version  | spawn call µs p50 / p99 | loop stall ms p50 / p99 | idle stall ms p50 / p99 | spawn-to-exit ms p50 / p99 | forklab');
  for (const heapMb of o.heaps)
    for (const v of VARIANTS) {
      if (!o.variants.includes(v.id)) continue;
      const ok = runs.filter((r) => r.variant === v.id && r.heapMb === heapMb && !r.failed);
      if (!ok.length) {
        console.log(`${v.id.padEnd(19)} ${String(heapMb).padStart(7)} | no run`);
        continue;
      }
      const m = (k, p) => median(ok.map((r) => r[k][p]));
      const fk = ok.every((r) => r.forklab) ? `served ${ok.reduce((a, r) => a + r.forklab.served, 0)}, fallbacks ${ok.reduce((a, r) => a + r.forklab.fallbacks, 0)}` : '';
      console.log(
        `${v.id.padEnd(19)} ${String(heapMb).padStart(7)} | ${String(ok[0].version).padEnd(8)} | ${`${f(m('syncUs', 'p50'), 0)} / ${f(m('syncUs', 'p99'), 0)}`.padEnd(23)} | ${`${f(m('stallMs', 'p50'))} / ${f(m('stallMs', 'p99'))}`.padEnd(23)} | ${`${f(m('idleStallMs', 'p50'))} / ${f(m('idleStallMs', 'p99'))}`.padEnd(23)} | ${`${f(m('spawnToExitMs', 'p50'))} / ${f(m('spawnToExitMs', 'p99'))}`.padEnd(26)} | ${fk}`,
      );
    }
  console.log(
    `runtimes: ${Object.entries(meta.runtimes)
      .map(([k, v]) => `${k} ${v ?? 'absent'}`)
      .join(
        ', ',
      )}; wall ${meta.wallS} s; CPU pressure (some avg10) before/after ${meta.before.cpuPressureAvg10}/${meta.after.cpuPressureAvg10} %, load average ${meta.before.loadAvg1}/${meta.after.loadAvg1}`,
  );
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  o.node ??= process.execPath;
  const runtimes = { node: o.node, bun: o.bun ?? findRuntime('bun'), deno: o.deno ?? findRuntime('deno') };
  if (o.variants.includes('node-register') && !existsSync(join(here, '..', 'dist', 'register.js'))) fail('@forklab/spawn is not built: run `npm run build`');
  const variants = VARIANTS.filter((v) => o.variants.includes(v.id));
  for (const v of variants.filter((x) => !runtimes[x.runtime]))
    console.log(`${v.id}: absent (no ${v.runtime}: give --${v.runtime} PATH, put it on PATH, or set FORKLAB_TEST_RUNTIMES)`);
  const present = variants.filter((v) => runtimes[v.runtime]);
  const startedMs = Date.now();
  const { runs, before } = await runPasses({
    name: 'bench:block',
    passes: o.passes,
    heaps: o.heaps,
    variants: present,
    json: o.json,
    options: o,
    runtimes,
    one: async (v, heapMb) => {
      const argv = [...v.command(runtimes[v.runtime], join(here, 'block-worker.mjs')), `heap-mb=${heapMb}`, `n=${o.spawns}`, `command=${o.command}`];
      const machine = { before: machineLoad(readText) };
      const r = await runWorker(argv, 120 + o.spawns * 20); // a fork of 1 GiB under heavy load took over 4 s a spawn here
      return { variant: v.id, ...r, machine: { ...machine, after: machineLoad(readText) } };
    },
  });
  const wallS = Math.round((Date.now() - startedMs) / 1000);
  const after = machineLoad(readText);
  report(runs, o, { runtimes, wallS, before, after });
  if (o.json) writeFileSync(o.json, JSON.stringify({ options: o, runtimes, runs, wallS, complete: true, machine: { before, after } }, null, 2));
}

await main();
