// "runtimes": a Node-only run end to end (the other runtimes are optional on a user's machine), its
// summary's shape, the mechanism observed when strace is there, and the slope/verdict logic on made data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plan, runtimesExperiment } from '../src/experiments/runtimes/index.js';
import { parseRuntimes } from '../src/experiments/runtimes/params.js';
import type { RuntimeEntry } from '../src/experiments/runtimes/discover.js';
import { which } from '../src/experiments/runtimes/discover.js';
import { growthVerdict, heapSlope } from '../src/experiments/runtimes/slope.js';
import { libuvLabel, libuvNote, libuvSpawn } from '../src/experiments/runtimes/libuv.js';
import { forklabChildrenOf } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { renderView } from '../src/report/terminal.js';

test('a Node-only run: every configuration measured, the mechanism observed, a verdict per variant', { timeout: 300_000 }, async () => {
  const p = runtimesExperiment.parse({
    runtimes: 'node',
    variants: 'node/spawn,node/spawnSync',
    heapKinds: 'buffers',
    heapMb: '0,8',
    repeats: '1',
    iterations: '6',
    warmup: '1',
    budgetMs: '0',
    ciTarget: '0',
  });
  runtimesExperiment.preflight(p);
  const run = await runtimesExperiment.run(p, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.equal(run.measurements.length, 4);
  for (const m of run.measurements) {
    assert.equal(m.state, 'ok', m.failure ?? '');
    assert.equal(m.samplesNs.length, 6);
    assert.equal(m.observed.family, 'node');
    assert.equal(m.observed.runtimeVersion, process.versions.node);
    assert.equal(m.identity.heapKind, 'buffers');
    assert.equal(typeof m.observed.rssMb, 'number');
  }
  const s = run.summary;
  assert.equal(s.cells.length, 4);
  assert.equal(s.lines.length, 2);
  for (const l of s.lines) {
    assert.equal(l.libuv, process.versions.uv, "each Node line carries its libuv version, from the driver's info line");
    assert.ok(l.slope, 'two heap sizes give a slope');
    assert.ok(['flat', 'grows', 'unclear'].includes(l.verdict));
  }
  // Absent runtimes are listed, not errors; the other families were not run.
  assert.ok(s.runtimes.some((e) => e.family === 'node' && e.state === 'found'));
  assert.ok(run.measurements.every((m) => m.observed.family === 'node'));
  if (which('strace', process.env)) {
    assert.equal(s.mechanismsSkipped, null);
    assert.equal(s.mechanisms.length, 2);
    for (const m of s.mechanisms) assert.equal(m.result.state, 'observed', m.text);
    // A stored document gives the same mechanisms back, from the measurements' observed fields.
    const stored = runtimesExperiment.summarize(run.measurements, p, 1);
    assert.deepEqual(
      stored.mechanisms.map((m) => [m.runtime, m.variant, m.result.state === 'observed' && m.result.mechanism, m.text]).sort(),
      s.mechanisms.map((m) => [m.runtime, m.variant, m.result.state === 'observed' && m.result.mechanism, m.text]).sort(),
    );
    assert.equal(stored.mechanismsSkipped, null);
  } else {
    assert.equal(s.mechanismsSkipped, 'unknown (install strace)');
  }
  const text = renderView(runtimesExperiment.view(run), { color: false });
  assert.match(text, /node\/spawnSync/);
  assert.match(text, /absent|measured/);
  assert.deepEqual(forklabChildrenOf(process.pid), [], 'no driver or target left behind');
});

test('--no-strace says the mechanism was not traced', { timeout: 120_000 }, async () => {
  const p = runtimesExperiment.parse({ runtimes: 'node', variants: 'spawnSync', heapKinds: 'buffers', heapMb: '0', repeats: '1', iterations: '3', warmup: '0', strace: false });
  const run = await runtimesExperiment.run(p, testContext());
  assert.equal(run.summary.mechanismsSkipped, 'not traced (--no-strace)');
  assert.deepEqual(run.summary.mechanisms, []);
  assert.equal(run.summary.lines[0]!.verdict, 'one-heap');
  assert.equal(run.summary.lines[0]!.claimHolds, null);
});

test('a heap that does not fit is refused before anything starts', () => {
  const p = runtimesExperiment.parse({ heapMb: String(1 << 20) });
  assert.throws(() => runtimesExperiment.preflight(p), /--heap-mb: 1048576 MB does not fit/);
});

test('slope and verdict: flat, grows and unclear are told apart by the interval', () => {
  const flat = [0, 256, 1024].map((heapMb, i) => ({ heapMb, repeats: [Array.from({ length: 40 }, (_, j) => 1000 + ((i * 7 + j * 13) % 20))] }));
  const f = heapSlope(flat, { seed: 1 })!;
  assert.equal(growthVerdict(f, 1024), 'flat');
  const grows = [0, 256, 1024].map((heapMb) => ({ heapMb, repeats: [Array.from({ length: 40 }, (_, j) => 1000 + heapMb * 50 + (j % 7))] }));
  const g = heapSlope(grows, { seed: 1 })!;
  assert.ok(Math.abs(g.slopeUsPerMb - 50) < 1);
  assert.ok(g.lowUsPerMb! <= g.slopeUsPerMb && g.slopeUsPerMb <= g.highUsPerMb!);
  assert.equal(growthVerdict(g, 1024), 'grows');
  // Two wildly different processes at each size: the interval spans flat and growing.
  const noisy = [0, 1024].map((heapMb) => ({ heapMb, repeats: [Array(20).fill(1000), Array(20).fill(heapMb ? 5000 : 1000)] }));
  assert.equal(growthVerdict(heapSlope(noisy, { seed: 1 })!, 1024), 'unclear');
  assert.equal(heapSlope([{ heapMb: 0, repeats: [[1, 2, 3]] }], { seed: 1 }), null, 'one heap size gives no slope');
  // Faster than linear (a fork at 0, 256, 1024 MB: 1.9, 8.3, 48 ms): the fitted line starts below zero, but the
  // cost clearly grows against the measured 1.9 ms at the smallest heap.
  const convex = [
    [0, 1935],
    [256, 8341],
    [1024, 48145],
  ].map(([heapMb, us]) => ({ heapMb: heapMb!, repeats: [Array.from({ length: 30 }, (_, j) => us! + (j % 5) * 10)] }));
  const c = heapSlope(convex, { seed: 1 })!;
  assert.ok(c.fromUs < 0, 'the fitted line starts below zero');
  assert.equal(growthVerdict(c, 1024), 'grows');
});

test('the plan leaves out a variant its runtime cannot run, and says why', () => {
  const entries: RuntimeEntry[] = [
    { state: 'found', name: 'node20', family: 'node', path: '/x/node', version: '20.1.0', selected: true, origin: 'this-node', unavailable: { 'forklab-spawn': 'not importable' } },
    { state: 'found', name: 'python3.9', family: 'python', path: '/x/py', version: '3.9.1', selected: false, origin: 'pyenv', unavailable: {} },
    { state: 'absent', family: 'java', install: 'apt-get install default-jre-headless' },
  ];
  const all = plan(entries, parseRuntimes({}));
  assert.deepEqual(
    all.runs.map((r) => r.runtime.name),
    ['node20'],
    'an interpreter found but not selected is not run',
  );
  assert.deepEqual(
    all.runs[0]!.variants.map((v) => v.id),
    ['node/spawn', 'node/spawnSync', 'node/execFile'],
  );
  assert.deepEqual(all.runs[0]!.heapKinds, ['buffers', 'objects']);
  const pairs = (r: ReturnType<typeof plan>) => r.runs[0]!.pairs.map((x) => `${x.variant.caseName}:${x.heapKind}`);
  assert.deepEqual(pairs(all), ['spawn:buffers', 'spawn:objects', 'spawnSync:buffers', 'execFile:buffers'], 'by default the second heap kind only for spawn');
  assert.deepEqual(pairs(plan(entries, parseRuntimes({ quick: true }))), ['spawn:buffers', 'spawnSync:buffers', 'execFile:buffers'], '--quick: one heap kind');
  assert.deepEqual(
    pairs(plan(entries, parseRuntimes({ heapKinds: 'objects,buffers' }))),
    ['spawn:buffers', 'spawn:objects', 'spawnSync:buffers', 'spawnSync:objects', 'execFile:buffers', 'execFile:objects'],
    'named kinds run for every variant',
  );
  assert.deepEqual(all.absent, [{ runtime: 'node20', variant: 'node/forklab-spawn', why: 'not importable' }]);
  const named = plan(entries, parseRuntimes({ runtimes: 'python3.9,ruby', heapKinds: 'bytearray' }));
  assert.deepEqual(
    named.runs.map((r) => r.runtime.name),
    ['python3.9'],
  );
  assert.deepEqual(
    named.warnings.map((w) => w.code),
    ['runtime-not-found'],
  );
  assert.deepEqual(plan(entries, parseRuntimes({ heapKinds: 'bytearray' })).runs, [], 'no heap kind of Node was asked for');
});

test('--node picks one Node per release line asked for, and names the flag that fetches a missing one', () => {
  const node = (name: string, version: string, selected: boolean): RuntimeEntry => ({
    state: 'found',
    name,
    family: 'node',
    path: `/x/${name}`,
    version,
    selected,
    origin: 'cache',
    unavailable: {},
  });
  const entries: RuntimeEntry[] = [
    node('node20', '20.20.2', true),
    node('node22', '22.23.5', true),
    node('node24-2', '24.1.0', false),
    node('node24', '24.22.3', true),
    { state: 'found', name: 'perl5.36', family: 'perl', path: '/x/perl', version: '5.36.0', selected: true, origin: 'path', unavailable: {} },
  ];
  const r = plan(entries, parseRuntimes({ node: '24,26,20' }));
  assert.deepEqual(
    r.runs.map((x) => x.runtime.name),
    ['perl5.36', 'node20', 'node24'],
    'other families still run; Node only on the lines asked for',
  );
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0]!.message, /--node 26: .*--fetch node@26/);
});

test('the view answers first: runtime · version · call · mechanism · µs at the smallest and largest heap · grows?, cheapest at the largest heap first', () => {
  const cell = (runtime: string, variant: string, heapMb: number, us: number) => ({
    runtime,
    variant,
    heapKind: variant.startsWith('go/') ? 'slices' : 'buffers',
    heapMb,
    n: 20,
    medianNs: us * 1000,
    ciLowNs: us * 900,
    ciHighNs: us * 1100,
    cv: 0.1,
    rssMb: null,
    repeatMediansNs: [us * 1000],
    failedRepeats: 0,
  });
  const line = (runtime: string, variant: string, version: string, verdict: 'flat' | 'grows', libuv: string | null = null) => ({
    runtime,
    runtimeVersion: version,
    libuv,
    variant,
    heapKind: variant.startsWith('go/') ? 'slices' : 'buffers',
    slope: null,
    verdict,
    expected: null,
    claimHolds: null,
  });
  const observed = (mechanism: 'fork' | 'posix_spawn') => ({ state: 'observed' as const, mechanism, syscall: 'clone', flags: null, helpers: [] });
  const run = {
    experiment: 'runtimes',
    params: {},
    measurements: [],
    warnings: [],
    complete: true,
    summary: {
      runtimes: [],
      absentVariants: [],
      mechanismsSkipped: null,
      mechanisms: [
        { runtime: 'node24', variant: 'node/spawn', result: observed('fork'), text: 'fork' },
        { runtime: 'go1.19', variant: 'go/exec', result: observed('posix_spawn'), text: 'posix_spawn' },
      ],
      cells: [cell('node24', 'node/spawn', 0, 1800), cell('node24', 'node/spawn', 1024, 17000), cell('go1.19', 'go/exec', 0, 700), cell('go1.19', 'go/exec', 1024, 750)],
      lines: [line('node24', 'node/spawn', '24.22.3', 'grows', '1.52.1'), line('go1.19', 'go/exec', '1.19.8', 'flat')],
    },
  } as unknown as Parameters<typeof runtimesExperiment.view>[0];
  const blocks = runtimesExperiment.view(run);
  const first = blocks.find((b) => b.kind === 'table');
  assert.ok(first && first.kind === 'table');
  assert.deepEqual(first.header, ['runtime', 'version', 'call', 'mechanism', 'µs at 0 MB', 'µs at 1 GiB', 'grows?']);
  assert.deepEqual(first.rows, [
    ['go1.19', '1.19.8', 'os/exec Cmd.Run', 'posix_spawn', '700', '750', 'no'],
    ['node24', '24.22.3', 'child_process.spawn (buffers)', 'fork · libuv 1.52.1', '1,800', '17,000', 'grows'], // thousands separators, as every report writes them,
  ]);
  const text = renderView(blocks, { color: false });
  assert.match(text, /libuv 1\.52\.1 here\)\. Every libuv release up to 1\.52\.1 forks on Linux; its posix_spawn path \(libuv\/libuv#3520\)/);
  assert.match(text, /makes child_process flat by itself/);
  assert.equal(text.split('fork · libuv 1.52.1').length - 1, 2, 'the growth table shows the libuv beside the mechanism too');
  assert.match(text, /By mechanism/);
  assert.match(text, /JDK|golang\/go#5838/, 'the documented history of the runtimes in the run, with sources');
  assert.ok(text.indexOf('Does it fork?') < text.indexOf('Runtimes\n'), 'the answer comes before the inventory');
  assert.ok(
    blocks.some((b) => b.kind === 'latency-chart'),
    'a chart per mechanism',
  );
});

test("a Node's libuv version says whether its child_process forks: every release up to 1.52.1 does, a newer one may not", () => {
  assert.deepEqual(libuvSpawn('1.46.0'), { state: 'forks', version: '1.46.0' });
  assert.deepEqual(libuvSpawn('1.52.1'), { state: 'forks', version: '1.52.1' });
  assert.deepEqual(libuvSpawn('1.53.0'), { state: 'may-posix-spawn', version: '1.53.0' });
  assert.deepEqual(libuvSpawn('2.0.0-dev'), { state: 'may-posix-spawn', version: '2.0.0-dev' });
  assert.deepEqual(libuvSpawn(null), { state: 'unknown' });
  assert.deepEqual(libuvSpawn('x'), { state: 'unknown' });
  assert.equal(libuvLabel('1.51.0'), 'libuv 1.51.0');
  assert.match(libuvLabel('1.53.0'), /newer than 1\.52\.1: may have libuv\/libuv#3520/);
  assert.equal(libuvNote([null]), null, 'no note without a libuv version');
  assert.match(libuvNote(['1.52.1', '1.46.0', '1.52.1'])!, /libuv 1\.46\.0, 1\.52\.1 here/);
  assert.match(libuvNote(['1.53.0'])!, /1\.53\.0 is newer than every release checked/);
});
