#!/usr/bin/env node
// npm run bench:runtimes — the full runtimes comparison as a user runs it: `forklab runtimes` with every runtime
// this machine has (default settings), then `forklab runtimes --quick`, each timed, with the machine's load
// before and after and the run's own noise witness. Goals (docs/experiments/runtimes.md): default under 4
// minutes, --quick under 90 s, here. Prints the figures and each run's first table; never a test (timings on
// a shared machine swing).
//
// Options: --only default|quick   --seed N (default 1)   --json DIR (keep both run documents there)
//          FORKLAB_TEST_RUNTIMES=DIR also finds the runtimes .ci/fetch-runtimes.sh put there (other Node lines,
//          Bun, Deno), through a temporary $XDG_CACHE_HOME whose runtime cache links to it.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { opt, repo } from './bench-args.mjs';

const only = opt('only', undefined);
if (only !== undefined && only !== 'default' && only !== 'quick') {
  console.error('bench:runtimes: --only must be default or quick');
  process.exit(2);
}
const seed = opt('seed', '1');
const keep = opt('json', undefined);
const GOALS_S = { default: 240, quick: 90 };

const tmp = mkdtempSync(join(tmpdir(), 'forklab-bench-runtimes-'));
const env = { ...process.env };
if (process.env.FORKLAB_TEST_RUNTIMES) {
  // The runtimes cache of a temporary XDG_CACHE_HOME is the fetched runtimes; the Go and Rust drivers are built
  // there too (once per bench run, said in its output), never in the user's cache.
  env.XDG_CACHE_HOME = join(tmp, 'cache');
  mkdirSync(join(env.XDG_CACHE_HOME, 'forklab'), { recursive: true });
  symlinkSync(process.env.FORKLAB_TEST_RUNTIMES, join(env.XDG_CACHE_HOME, 'forklab', 'runtimes'));
}

function cpuPressureUs() {
  try {
    return Number(/some avg10=\S+ avg60=\S+ avg300=\S+ total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? NaN);
  } catch {
    return Number.NaN;
  }
}

const results = [];
try {
  for (const mode of ['default', 'quick']) {
    if (only && only !== mode) continue;
    const file = join(tmp, `${mode}.json`);
    const load0 = loadavg()[0];
    const p0 = cpuPressureUs();
    const t0 = Date.now();
    process.stderr.write(`bench:runtimes: forklab runtimes${mode === 'quick' ? ' --quick' : ''} …\n`);
    const r = spawnSync(
      process.execPath,
      [join(repo, 'bin', 'forklab.js'), 'runtimes', ...(mode === 'quick' ? ['--quick'] : []), '--seed', seed, '--json', file, '--no-store', '--no-color'],
      { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30 * 60_000, maxBuffer: 64 << 20 },
    );
    const wallS = (Date.now() - t0) / 1000;
    const pressure = (cpuPressureUs() - p0) / 1e6 / wallS;
    if (r.status !== 0 && r.status !== 1) {
      process.stderr.write(r.stderr.slice(-4000));
      throw new Error(`forklab runtimes ${mode} exited with ${r.status ?? r.signal}`);
    }
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const ms = doc.configurations;
    const configs = new Set(ms.map((m) => `${m.runtime}|${m.variant}|${m.heapKind}|${m.heapMb}`));
    const runtimes = [...new Set(ms.map((m) => m.runtime))];
    const failed = ms.filter((m) => m.state !== 'ok').length;
    // The run's own witness when it has one (CPU pressure over the run), else what /proc/pressure/cpu said around it.
    const witnessed = typeof doc.witness?.cpuPressurePercent === 'number' ? doc.witness.cpuPressurePercent / 100 : pressure;
    results.push({ mode, wallS, goalS: GOALS_S[mode], load0, load1: loadavg()[0], pressure: witnessed, configs: configs.size, runtimes, failed });
    if (keep) cpSync(file, join(keep, `runtimes-${mode}.json`));
    const answer = r.stdout.split('\n\n')[0];
    process.stdout.write(`\n${mode}: ${answer}\n`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

process.stdout.write('\nbench:runtimes\n');
for (const x of results)
  process.stdout.write(
    `  ${x.mode.padEnd(7)} ${x.wallS.toFixed(0).padStart(4)} s (goal < ${x.goalS} s: ${x.wallS < x.goalS ? 'met' : 'missed'}), ` +
      `${x.configs} configurations over ${x.runtimes.length} runtimes (${x.runtimes.join(', ')}), ${x.failed} failed; ` +
      `load ${x.load0.toFixed(1)} → ${x.load1.toFixed(1)} on ${navigatorCpus()} CPUs, CPU pressure ${Number.isFinite(x.pressure) ? `${(x.pressure * 100).toFixed(0)} %` : 'unknown'}\n`,
  );

function navigatorCpus() {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/^processor\s*:/gm)?.length ?? '?';
  } catch {
    return '?';
  }
}
