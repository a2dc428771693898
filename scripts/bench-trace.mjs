#!/usr/bin/env node
// npm run bench:trace — three questions about forklab trace, each answered by paired runs interleaved in one process
// (never a test: timings on a shared machine swing; run it on a quiet machine for figures to quote).
//   estimate: does the estimated saving match what the change really saves? For each parent size, a Node script
//     holding that much in Buffers starts N children (/bin/true, one after another) with child_process.spawn; the
//     bench times its loop untraced with child_process and with `-r @forklab/spawn/register` (the change advised),
//     then runs `forklab trace` on the child_process version and sets its estimated saving beside the measured one.
//   recorder: what the call-site recorders cost the traced program: per child_process / subprocess call (a loop of
//     N calls with the recorder loaded and without, the difference per call, beside the recorder's own figure),
//     at start-up (`node -e 0`, `python3 -c pass`), and for Python per audit event it does not record (open()).
//   overhead: forklab trace's wall time for the same Node spawner with the recorders and with --no-recorders.
//
// Options: --parts estimate,recorder,overhead  --rss 0,256,1024 (MB)  --children 40  --reps 3  --calls 200  --json FILE
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opt, repo } from './bench-args.mjs';

const parts = opt('parts', 'estimate,recorder,overhead').split(',');
const sizes = opt('rss', '0,256,1024').split(',').map(Number);
const children = Number(opt('children', '40'));
const reps = Number(opt('reps', '3'));
const calls = Number(opt('calls', '200'));
const jsonOut = opt('json', undefined);
const ints = [children, reps, calls];
if (sizes.some((x) => !Number.isInteger(x) || x < 0) || ints.some((x) => !Number.isInteger(x) || x < 1) || parts.some((p) => !['estimate', 'recorder', 'overhead'].includes(p))) {
  console.error('bench:trace: --parts takes estimate,recorder,overhead; --rss MB sizes (0,256,1024); --children, --reps and --calls positive integers');
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'forklab-bench-trace-'));
const spawner = join(tmp, 'spawner.mjs');
writeFileSync(
  spawner,
  `import { spawn } from 'node:child_process';
const mb = Number(process.argv[2]), n = Number(process.argv[3]);
const keep = []; for (let i = 0; i < mb / 16; i++) keep.push(Buffer.alloc(16 << 20, 1));
await new Promise((r) => setTimeout(r, 60));
const t0 = performance.now();
for (let i = 0; i < n; i++) await new Promise((res, rej) => spawn('/bin/true', [], { stdio: 'ignore' }).on('exit', res).on('error', rej));
process.stdout.write(String(performance.now() - t0));
`,
);
const register = new URL(import.meta.resolve('@forklab/spawn/register').replace(/\/register\.js$/, '/cjs/register.js')).pathname;
const forklab = join(repo, 'bin', 'forklab.js');
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
const out = { children, reps, calls };

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 600_000, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

function traceJson(args) {
  const json = join(tmp, `t-${Math.random().toString(36).slice(2)}.json`);
  run(process.execPath, [forklab, 'trace', '--no-store', '--json', json, ...args]);
  return JSON.parse(readFileSync(json, 'utf8')).summary;
}

try {
  if (parts.includes('estimate')) {
    const rows = [];
    for (const mb of sizes) {
      const plain = [];
      const posix = [];
      for (let i = 0; i < reps; i++) {
        plain.push(Number(run(process.execPath, [spawner, String(mb), String(children)])));
        posix.push(Number(run(process.execPath, ['-r', register, spawner, String(mb), String(children)])));
      }
      const s = traceJson(['--model', 'measure', '--', process.execPath, spawner, String(mb), String(children)]);
      const node = s.processes.find((p) => p.runtime === 'node' && p.byMechanism.fork > 0);
      const site = s.callSites?.find((c) => c.byMechanism.fork > 0);
      rows.push({
        rssMb: mb,
        sampledRssMb: node?.rssMb?.median ?? null,
        childProcessMs: median(plain),
        forklabSpawnMs: median(posix),
        measuredSavingMs: median(plain) - median(posix),
        estimatedSavingMs: node?.estimate ? node.estimate.savingNs / 1e6 : null,
        callSiteSavingMs: site?.savingNs != null ? site.savingNs / 1e6 : null,
        inForkTracedMs: node?.estimate ? node.estimate.inForkNs / 1e6 : null,
        overheadPerCreationUs: s.overhead.state === 'measured' ? s.overhead.perCreationNs / 1000 : null,
      });
    }
    out.estimate = rows;
    console.log(`estimate: ${children} children per run, median of ${reps} untraced runs per variant; forklab trace --model measure on the child_process one`);
    console.log(
      'RSS MB  sampled  child_process ms  @forklab/spawn ms  saving measured ms  estimated (process) ms  estimated (call site) ms  in fork (traced) ms  tracer µs/creation',
    );
    for (const r of rows)
      console.log(
        [
          String(r.rssMb).padStart(6),
          f(r.sampledRssMb, 0).padStart(7),
          f(r.childProcessMs).padStart(16),
          f(r.forklabSpawnMs).padStart(17),
          f(r.measuredSavingMs).padStart(18),
          f(r.estimatedSavingMs).padStart(22),
          f(r.callSiteSavingMs).padStart(24),
          f(r.inForkTracedMs).padStart(19),
          f(r.overheadPerCreationUs, 0).padStart(18),
        ].join('  '),
      );
  }

  if (parts.includes('recorder')) {
    const { installRecorders, recordingEnv, readRecords } = await import(join(repo, 'dist', 'experiments', 'trace', 'recorder.js'));
    const rec = installRecorders(join(tmp, 'recorders'));
    if (typeof rec === 'string') throw new Error(rec);
    const withRec = recordingEnv({ NODE_OPTIONS: process.env.NODE_OPTIONS, PYTHONPATH: process.env.PYTHONPATH }, rec);
    const clear = () => {
      for (const x of readdirSync(rec.outDir)) rmSync(join(rec.outDir, x));
    };
    const selfCost = () => {
      const c = readRecords(rec.outDir).calls.map((x) => x.costUs);
      clear();
      return c.length ? median(c) : null;
    };
    const nodeLoop = join(tmp, 'loop.cjs');
    writeFileSync(
      nodeLoop,
      "const { spawnSync } = require('child_process'); const n = Number(process.argv[2]); const t = performance.now(); for (let i = 0; i < n; i++) spawnSync('/bin/true'); process.stdout.write(String(performance.now() - t));\n",
    );
    const pyLoop = join(tmp, 'loop.py');
    writeFileSync(
      pyLoop,
      'import subprocess, sys, time\nn = int(sys.argv[1])\nt = time.perf_counter()\nfor _ in range(n):\n    subprocess.run(["/bin/true"])\nsys.stdout.write(str((time.perf_counter() - t) * 1000))\n',
    );
    const pyOpen = join(tmp, 'open.py');
    writeFileSync(
      pyOpen,
      'import sys, time\nn = int(sys.argv[1])\nt = time.perf_counter()\nfor _ in range(n):\n    open("/dev/null").close()\nsys.stdout.write(str((time.perf_counter() - t) * 1000))\n',
    );
    // The interpreter itself (a version manager's shim on PATH would add its own start-up to every run).
    const py = spawnSync('python3', ['-c', 'import sys; assert sys.version_info >= (3, 8); print(sys.executable)'], { encoding: 'utf8' });
    const python = py.status === 0 ? py.stdout.trim() : null;
    /** Paired, interleaved: [ms without, ms with] per rep of a program that prints its own loop time (or, for start-up, the wall time). */
    const paired = (cmd, args, { wall = false } = {}) => {
      const a = [];
      const b = [];
      const self = [];
      for (let i = 0; i < reps; i++)
        for (const on of i % 2 ? [true, false] : [false, true]) {
          const t = performance.now();
          const printed = run(cmd, args, on ? withRec : {});
          const ms = wall ? performance.now() - t : Number(printed);
          (on ? b : a).push(ms);
          if (on) self.push(selfCost());
        }
      clear();
      const selfUs = self.filter((x) => x !== null);
      return { withoutMs: median(a), withMs: median(b), selfUs: selfUs.length ? median(selfUs) : null };
    };
    const rows = [];
    const perCall = (name, r, n) => rows.push({ name, withoutMs: r.withoutMs, withMs: r.withMs, perUnitUs: ((r.withMs - r.withoutMs) / n) * 1000, selfUs: r.selfUs });
    perCall(`node: ${calls} × spawnSync('/bin/true')`, paired(process.execPath, [nodeLoop, String(calls)]), calls);
    perCall('node: start-up (node -e 0)', paired(process.execPath, ['-e', '0'], { wall: true }), 1);
    if (python) {
      perCall(`python: ${calls} × subprocess.run(['/bin/true'])`, paired(python, [pyLoop, String(calls)]), calls);
      perCall('python: start-up (python3 -c pass)', paired(python, ['-c', 'pass'], { wall: true }), 1);
      perCall(`python: ${calls * 50} × open('/dev/null') (events it does not record)`, paired(python, [pyOpen, String(calls * 50)]), calls * 50);
    }
    out.recorder = rows;
    console.log(`\nrecorder: median of ${reps} runs with the recorder and without, interleaved`);
    console.log('what                                                   without ms   with ms   Δ µs per call (or start)   recorder’s own µs per call');
    for (const r of rows)
      console.log(`${r.name.padEnd(52)} ${f(r.withoutMs).padStart(11)} ${f(r.withMs).padStart(9)} ${f(r.perUnitUs, 2).padStart(26)} ${f(r.selfUs).padStart(28)}`);
  }

  if (parts.includes('overhead')) {
    const mb = sizes[Math.min(1, sizes.length - 1)];
    const on = [];
    const off = [];
    for (let i = 0; i < reps; i++)
      for (const recorders of i % 2 ? [false, true] : [true, false]) {
        const s = traceJson([
          '--model',
          'none',
          '--overhead-iterations',
          '0',
          ...(recorders ? [] : ['--no-recorders']),
          '--',
          process.execPath,
          spawner,
          String(mb),
          String(children),
        ]);
        (recorders ? on : off).push(s.wallNs / 1e6);
      }
    const untraced = [];
    for (let i = 0; i < reps; i++) {
      const t = performance.now();
      run(process.execPath, [spawner, String(mb), String(children)]);
      untraced.push(performance.now() - t);
    }
    out.overhead = { rssMb: mb, untracedMs: median(untraced), tracedMs: median(off), tracedWithRecordersMs: median(on) };
    console.log(`\noverhead: the spawner (${mb} MB, ${children} children), wall ms, median of ${reps}`);
    console.log(`untraced ${f(median(untraced))}   forklab trace --no-recorders ${f(median(off))}   forklab trace (recorders) ${f(median(on))}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(out, null, 1)}\n`);
