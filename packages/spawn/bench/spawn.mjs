#!/usr/bin/env node
// npm run bench:spawn — what one spawn costs a Node process as its memory grows, against a fair C floor.
// For each environment (the bench's own, and one of 135 variables: --envs), each kind of memory (touched
// Buffers; a V8 object heap of the same size: --kinds) and each parent size (0, 256, 1024 MB: --sizes), a fresh
// Node process (spawn-worker.mjs) holds that memory and measures, interleaved round by round in random order:
// spawn and execFile (to exit) and spawnSync of the probe's static target, fork with one message round trip,
// each through child_process and through forklab; the addon alone; and the C floor (floor.c), holding the same
// size and started with the same environment, so that its children get what forklab's get: the envPairs Node
// builds, /dev/null (read-only for 0) or socketpairs (libuv's 64 KiB buffers where it sets them) dup2'd onto 0-2,
// an empty signal mask with signals 1-31 at their defaults, and reaping through a pidfd (poll, waitid P_PIDFD),
// checked against what forklab's child is given before anything is measured (floor-check.mjs). Medians in µs.
// Then the event loop's longest gaps. Never a test: timings on a shared machine swing.
//
// Fresh worker processes of one size differ from each other by more than their samples do, so each cell is
// measured in --passes worker processes, the sizes in alternating order pass after pass (0, 256, 1024, then
// 1024, 256, 0, …); a figure is the median over the passes, with the range of the passes beside the ratios.
// The targets of issue 29 are judged at the end (spawn-report.mjs).
//
// Options: --sizes 0,256,1024  --kinds buffers,heap  --envs inherited,npm135  --rounds 20 (5 spawns per method
//          per round)  --passes 3  --json FILE (the raw result)
import { spawn as cpSpawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENV_SETTINGS, envFor } from './env.mjs';
import { checkFloor } from './floor-check.mjs';
import { buildFloor } from './floor.mjs';
import { combine, printTables, printVerdicts, verdicts } from './spawn-report.mjs';
import { SAMPLES, TARGET } from './spawn-worker.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function fail(msg) {
  console.error(`bench:spawn: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { sizes: [0, 256, 1024], kinds: ['buffers', 'heap'], envs: [...ENV_SETTINGS], rounds: 20, passes: 3, json: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, v] = [argv[i], argv[i + 1]];
    if (v === undefined) fail(`${flag}: a value is required`);
    if (flag === '--sizes') {
      o.sizes = v.split(',').map(Number);
      if (o.sizes.some((s) => !Number.isInteger(s) || s < 0)) fail(`--sizes: whole numbers of MB expected, got "${v}"`);
    } else if (flag === '--kinds') {
      o.kinds = v.split(',');
      if (o.kinds.some((k) => k !== 'buffers' && k !== 'heap')) fail(`--kinds: buffers and/or heap, got "${v}"`);
    } else if (flag === '--envs') {
      o.envs = v.split(',');
      if (o.envs.some((e) => !ENV_SETTINGS.includes(e))) fail(`--envs: ${ENV_SETTINGS.join(' and/or ')}, got "${v}"`);
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

function runWorker(kind, sizeMb, rounds, envSetting, floorExe) {
  return new Promise((resolve, reject) => {
    const heapMb = kind === 'heap' ? sizeMb * 3 + 512 : 512;
    const args = [`--max-old-space-size=${heapMb}`, join(here, 'spawn-worker.mjs'), '--worker', kind, String(sizeMb), String(rounds), envSetting, floorExe];
    const w = cpSpawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: envFor(envSetting) });
    let out = '';
    w.stdout.on('data', (d) => (out += d));
    const limit = setTimeout(() => w.kill('SIGKILL'), 30 * 60_000);
    w.on('close', (code, sig) => {
      clearTimeout(limit);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`worker ${envSetting} ${kind} ${sizeMb} MB ended with ${sig ?? code}`));
    });
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(TARGET)) fail('the probe is not built: run `node scripts/build-native.mjs`');
  if (!existsSync(join(here, '..', 'dist', 'index.js'))) fail('@forklab/spawn is not built: run `npm run build`');
  const floor = buildFloor();
  const differences = await checkFloor(floor).catch((e) => [`the check itself failed: ${e.message}`]);
  if (differences.length > 0) {
    floor.remove();
    fail(`the C floor does not give its child what forklab gives it, so it is no fair floor:\n${differences.join('\n')}`);
  }
  console.log("the C floor's child is given what forklab's is (stdio ignore and pipe: descriptors, access modes, socket buffers, signal mask, ignored signals)");
  const startedMs = Date.now();
  const pressureBefore = cpuPressure();
  const byCell = new Map(); // `${env} ${kind} ${sizeMb}` → one result per pass
  const skipped = new Set();
  try {
    for (let pass = 0; pass < o.passes; pass++) {
      const sizes = pass % 2 === 0 ? o.sizes : [...o.sizes].reverse();
      for (const env of o.envs)
        for (const kind of o.kinds)
          for (const sizeMb of sizes) {
            const key = `${env} ${kind} ${sizeMb}`;
            // the Node parent (a V8 heap needs about twice its live size) plus the C floor holding the same
            const needMb = (kind === 'heap' ? 2.5 : 1.2) * sizeMb + sizeMb + 512;
            if (memAvailableMb() < needMb) {
              if (!skipped.has(key)) console.log(`${key}: skipped: needs ~${Math.round(needMb)} MB, MemAvailable ${Math.round(memAvailableMb())} MB`);
              skipped.add(key);
              continue;
            }
            process.stderr.write(`bench:spawn: pass ${pass + 1} of ${o.passes}: ${key} MB …\n`);
            const r = await runWorker(kind, sizeMb, o.rounds, env, floor.exe);
            byCell.set(key, [...(byCell.get(key) ?? []), r]);
          }
    }
  } finally {
    floor.remove();
  }
  const results = [];
  for (const env of o.envs)
    for (const kind of o.kinds) for (const sizeMb of o.sizes) if (byCell.has(`${env} ${kind} ${sizeMb}`)) results.push(combine(byCell.get(`${env} ${kind} ${sizeMb}`)));
  console.log(`medians over ${o.passes} pass(es) of fresh worker processes`);
  printTables(results, o);
  const vs = verdicts(results, o);
  printVerdicts(vs);
  const pressureAfter = cpuPressure();
  const wallS = Math.round((Date.now() - startedMs) / 1000);
  console.log(
    `\nsamples per method, cell and pass: ${o.rounds * SAMPLES.perRound} (fork: ${o.rounds * SAMPLES.forkPerRound}); wall ${wallS} s; CPU pressure avg10 before/after: ${pressureBefore}/${pressureAfter} %`,
  );
  if (o.json)
    writeFileSync(
      o.json,
      JSON.stringify(
        { rounds: o.rounds, perRound: SAMPLES.perRound, passes: o.passes, envs: o.envs, cpuPressure: [pressureBefore, pressureAfter], wallS, results, verdicts: vs },
        null,
        2,
      ),
    );
}

await main();
