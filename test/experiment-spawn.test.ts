// One short real probe run: structure and shape, never absolute time.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnExperiment } from '../src/experiments/spawn/index.js';
import { summarizeSpawn, perEntryCost, probeGroups } from '../src/experiments/spawn/summary.js';
import type { Measurement } from '../src/experiments/contract/types.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';

const thpEnabled = (() => {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? 'never';
  } catch {
    return 'never';
  }
})();

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ methods: 'fork-exec,spoon' }, '--methods'],
    [{ thp: 'sometimes' }, '--thp'],
    [{ rss: '-5' }, '--rss'],
    [{ rss: '12abc' }, '--rss'],
    [{ rss: '' }, '--rss'],
    [{ iterations: '0' }, '--iterations'],
    [{ repeats: 'x' }, '--repeats'],
    [{ ciTarget: '-1' }, '--ci-target'],
  ];
  assertRefused((raw) => spawnExperiment.parse(raw), cases);
});

test('an --rss that does not fit into memory is refused before any work', () => {
  const p = spawnExperiment.parse({ rss: String(4 * 1024 * 1024) }); // 4 TiB: parses, but fits no machine this runs on
  assert.throws(() => spawnExperiment.preflight(p), usageErrorFor('--rss', /does not fit/));
});

test('methods whose child copies the parent and those whose child shares it go to separate probes, in order', () => {
  assert.deepEqual(probeGroups(['posix-spawn', 'fork-exec', 'vfork-exec']), [['fork-exec'], ['posix-spawn', 'vfork-exec']]);
  assert.deepEqual(probeGroups(['vfork-exec', 'clone-vfork']), [['vfork-exec', 'clone-vfork']]);
  assert.deepEqual(probeGroups(['fork-exit', 'fork-exec']), [['fork-exit', 'fork-exec']]);
  assert.equal(spawnExperiment.parse({}).probes, 'child-memory');
  assert.deepEqual(spawnExperiment.probeKeys?.({ block: 1, probes: 'child-memory' }), ['rssMb', 'thp', 'childMemory']);
  assert.deepEqual(spawnExperiment.probeKeys?.({ block: 1 }), ['rssMb', 'thp'], 'runs stored with every method in one probe');
  assert.equal(spawnExperiment.probeKeys?.({}), null, 'runs stored with one probe per method');
});

test('per-entry cost from the slope reproduces the article arithmetic', () => {
  // 3.6 µs/MB over 256 PTEs per MB ≈ 14 ns; 0.22 µs/MB over half a PMD per MB = 440 ns.
  assert.equal(Math.round(perEntryCost(3.6, 'PTE')), 14);
  assert.equal(Math.round(perEntryCost(0.221, 'PMD')), 442);
});

test('summary: cells pool repeats, slopes fit each RSS’s pooled median', () => {
  const m = (method: string, rssMb: number, repeat: number, samplesNs: number[]): Measurement => ({
    series: method,
    identity: { method, rssMb, thp: 'off' },
    observed: { hugePagesKb: 0 },
    repeat,
    state: 'ok',
    failure: null,
    info: { hugePagesKb: 0 },
    samplesNs,
    columns: {},
    stats: { n: samplesNs.length, minNs: 0, medianNs: samplesNs[1]!, meanNs: 0, p90Ns: 0, p99Ns: 0, maxNs: 0, stdevNs: 0, cv: 0, ciLowNs: 0, ciHighNs: 0, ciConfidence: 0.95 },
  });
  // y = 100 µs + 2 µs/MB · x, exactly, in both repeats.
  const ms = [
    m('fork-exec', 0, 1, [99_000, 100_000, 101_000]),
    m('fork-exec', 100, 1, [299_000, 300_000, 301_000]),
    m('fork-exec', 0, 2, [99_500, 100_000, 100_500]),
    m('fork-exec', 100, 2, [299_500, 300_000, 300_500]),
  ];
  const s = summarizeSpawn(ms, 1);
  assert.equal(s.cells.length, 2);
  assert.equal(s.cells[0]!.n, 6);
  assert.equal(s.cells[0]!.medianNs, 100_000);
  const slope = s.slopes[0]!;
  assert.ok(Math.abs(slope.slopeUsPerMb - 2) < 1e-9);
  assert.ok(Math.abs(slope.r2 - 1) < 1e-9);
  assert.equal(slope.entry?.kind, 'PTE');
  assert.ok(Math.abs(slope.entry!.ns - 2000 / 256) < 1e-9);
});

test('real run: positive samples, huge pages where asked, posix-spawn flat while fork-exec grows', async () => {
  const params = spawnExperiment.parse({
    methods: 'fork-exec,posix-spawn',
    rss: '0,256',
    thp: 'on,off',
    iterations: '20',
    repeats: '1',
    warmup: '2',
    ciTarget: '0',
    budgetMs: '0',
  });
  const run = await spawnExperiment.run(params, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.measurements.filter((m) => m.state !== 'ok').map((m) => m.failure)));
  assert.equal(run.measurements.length, 8);
  for (const m of run.measurements) {
    assert.equal(m.samplesNs.length, 20);
    assert.ok(m.samplesNs.every((x) => x > 0));
    assert.ok(m.stats && m.stats.ciLowNs <= m.stats.medianNs && m.stats.medianNs <= m.stats.ciHighNs);
    assert.equal(typeof m.observed.hugePagesKb, 'number');
    // Article 000's trap, recorded by every probe: madvise() on a malloc()'d 1 MB buffer (not page-aligned) is EINVAL.
    assert.equal(typeof m.info.madviseMallocEinval, 'boolean');
    if (m.info.mallocPageOffset !== 0) assert.equal(m.info.madviseMallocEinval, true, JSON.stringify(m.info));
    assert.equal(m.info.madviseMmapOk, m.identity.rssMb !== 0);
    // fork-exec and posix-spawn are timed in probes of their own kind: each probe timed one method here.
    assert.equal(m.info.methods, 1, JSON.stringify(m.info));
    assert.equal(m.observed.childMemory, m.identity.method === 'fork-exec' ? 'copy' : 'shared');
    // The region's pages are backed before timing: by the kernel (Linux 5.14+) or by a write to each.
    if (m.identity.rssMb !== 0) assert.ok(['populate-write', 'write-loop'].includes(String(m.info.regionFill)), JSON.stringify(m.info));
  }
  const on = run.summary.cells.find((c) => c.method === 'fork-exec' && c.thp === 'on' && c.rssMb === 256)!;
  const off = run.summary.cells.find((c) => c.method === 'fork-exec' && c.thp === 'off' && c.rssMb === 256)!;
  assert.equal(off.hugePagesKb, 0, 'MADV_NOHUGEPAGE leaves no huge pages');
  if (thpEnabled !== 'never') assert.ok(on.hugePagesKb >= 256 * 1024 * 0.5, `THP on at 256 MB should hold huge pages, got ${on.hugePagesKb} kB`);
  // The shape (fork-exec grows with RSS, posix-spawn stays flat) is a figure of `forklab spawn` and of
  // `forklab reproduce`, judged there with its intervals; 20 samples on a shared machine cannot test it.
  for (const c of run.summary.cells) assert.ok(c.medianNs > 0 && Number.isFinite(c.medianNs), JSON.stringify(c));
  const rendered = renderView(spawnExperiment.view(run), { color: false });
  assert.match(rendered, /THP on: median µs/);
  assert.match(rendered, /THP off: median µs/);
  assert.match(rendered, /µs per MB/);
});
