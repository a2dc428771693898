#!/usr/bin/env node
// npm run bench:trace — does forklab trace's estimate match what the change really saves here? For each parent
// size, a Node script holding that much in Buffers starts N children (/bin/true, one after another) with
// child_process.spawn; the bench times its loop untraced with child_process and with `--import
// @forklab/spawn/register` (the change forklab trace advises), then runs `forklab trace` on the child_process
// version and sets its estimated saving beside the measured one. Also prints the tracer's overhead per creation.
// Prints figures; never a test (timings on a shared machine swing).
//
// Options: --rss 0,256,1024 (MB)  --children 40  --reps 3  --json FILE
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opt, repo } from './bench-args.mjs';

const sizes = opt('rss', '0,256,1024').split(',').map(Number);
const children = Number(opt('children', '40'));
const reps = Number(opt('reps', '3'));
const jsonOut = opt('json', undefined);
if (sizes.some((x) => !Number.isInteger(x) || x < 0) || !Number.isInteger(children) || children < 1 || !Number.isInteger(reps) || reps < 1) {
  console.error('bench:trace: --rss takes MB sizes (0,256,1024), --children and --reps positive integers');
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'forklab-bench-trace-'));
const script = join(tmp, 'spawner.mjs');
writeFileSync(
  script,
  `import { spawn } from 'node:child_process';
const mb = Number(process.argv[2]), n = Number(process.argv[3]);
const keep = []; for (let i = 0; i < mb / 16; i++) keep.push(Buffer.alloc(16 << 20, 1));
await new Promise((r) => setTimeout(r, 60));
const t0 = performance.now();
for (let i = 0; i < n; i++) await new Promise((res, rej) => spawn('/bin/true', [], { stdio: 'ignore' }).on('exit', res).on('error', rej));
process.stdout.write(String(performance.now() - t0));
`,
);
const register = import.meta.resolve('@forklab/spawn/register');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function loopMs(extra, mb) {
  const r = spawnSync(process.execPath, [...extra, script, String(mb), String(children)], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`the spawner failed (${r.status}): ${r.stderr}`);
  return Number(r.stdout);
}

const rows = [];
try {
  for (const mb of sizes) {
    const plain = [];
    const posix = [];
    for (let i = 0; i < reps; i++) {
      plain.push(loopMs([], mb));
      posix.push(loopMs(['--import', register], mb));
    }
    const json = join(tmp, `trace-${mb}.json`);
    const t = spawnSync(
      process.execPath,
      [join(repo, 'bin', 'forklab.js'), 'trace', '--no-store', '--json', json, '--model', 'measure', '--', process.execPath, script, String(mb), String(children)],
      { encoding: 'utf8', timeout: 600_000, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (t.status !== 0) throw new Error(`forklab trace failed (${t.status}): ${t.stderr}`);
    const s = JSON.parse(readFileSync(json, 'utf8')).summary;
    const node = s.processes.find((p) => p.runtime === 'node' && p.byMechanism.fork > 0);
    rows.push({
      rssMb: mb,
      sampledRssMb: node?.rssMb?.median ?? null,
      childProcessMs: median(plain),
      forklabSpawnMs: median(posix),
      measuredSavingMs: median(plain) - median(posix),
      inForkTracedMs: node?.estimate ? node.estimate.inForkNs / 1e6 : null,
      estimatedSavingMs: node?.estimate ? node.estimate.savingNs / 1e6 : null,
      estimatedWithForkMs: node?.estimate ? node.estimate.withForkNs / 1e6 : null,
      overheadPerCreationUs: s.overhead.state === 'measured' ? s.overhead.perCreationNs / 1000 : null,
    });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const f = (x, d = 1) => (x === null || x === undefined ? '—' : x.toFixed(d));
console.log(`${children} children per run, median of ${reps} untraced runs per variant; forklab trace --model measure on the child_process one`);
console.log('RSS MB  sampled  child_process ms  @forklab/spawn ms  saving measured ms  saving estimated ms  in fork (traced) ms  tracer µs/creation');
for (const r of rows)
  console.log(
    [
      String(r.rssMb).padStart(6),
      f(r.sampledRssMb, 0).padStart(7),
      f(r.childProcessMs).padStart(16),
      f(r.forklabSpawnMs).padStart(17),
      f(r.measuredSavingMs).padStart(18),
      f(r.estimatedSavingMs).padStart(19),
      f(r.inForkTracedMs).padStart(19),
      f(r.overheadPerCreationUs, 0).padStart(18),
    ].join('  '),
  );
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ children, reps, rows }, null, 1)}\n`);
