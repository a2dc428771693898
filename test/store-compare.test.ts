// compareRuns on fixed datasets: what is the same stays 'same', a clear 2× is 'slower' with its interval
// around 2, a small noisy difference is not marked; matching, pooling and the machine header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, identityGroups } from '../src/store/compare.js';
import { verdictOf, VERDICT_RULE } from '../src/stats/compare.js';
import { Store } from '../src/store/db.js';
import { failed, fakeDocument, measurement, samples } from './fixtures/store/fake.js';
import type { Measurement } from '../src/experiments/contract/types.js';
import { runCli, sandbox } from './helpers/cli.js';

const spawnFields = (method: string, rssMb: number, extra: Record<string, string | number | null> = {}) => ({
  method,
  rssMb,
  thp: 'off',
  hugePagesKb: 0,
  stopReason: 'ci-reached',
  ...extra,
});

/** Two repeats of fork-exec and posix-spawn at 0 and 512 MB, samples scaled by `scale`. */
function run(seed: number, scale: number, n = 60, spread = 0.1): Measurement[] {
  const out: Measurement[] = [];
  for (const rssMb of [0, 512])
    for (const method of ['fork-exec', 'posix-spawn'])
      for (const repeat of [0, 1]) {
        const base = method === 'fork-exec' ? 200_000 + rssMb * 1000 : 150_000;
        const xs = samples(seed * 1000 + rssMb + repeat * 7 + method.length, n, base, spread).map((x) => Math.round(x * scale));
        out.push(measurement(method, spawnFields(method, rssMb, { hugePagesKb: repeat * 2048, stopReason: repeat ? 'budget' : 'ci-reached' }), repeat, xs));
      }
  return out;
}

test('identical samples: every figure the same, ratio 1, p = 1', () => {
  const a = fakeDocument(run(1, 1));
  const cmp = compareRuns(a, fakeDocument(run(1, 1)));
  assert.equal(cmp.figures.length, 4, 'measured fields (hugePagesKb, stopReason) do not split configurations');
  for (const f of cmp.figures) {
    assert.equal(f.verdict, 'same');
    assert.equal(f.ratio, 1);
    assert.equal(f.pValue, 1);
    assert.equal(f.a.repeats, 2, 'repeats pooled');
    assert.equal(f.a.n, 120);
  }
  assert.deepEqual(cmp.onlyInA, []);
  assert.deepEqual(cmp.onlyInB, []);
  assert.deepEqual(cmp.machineDifferences, []);
  assert.deepEqual(cmp.paramDifferences, []);
  assert.equal(cmp.experimentsDiffer, false);
});

test('B clearly 2× slower: slower, ratio interval around 2; and the other way round: faster', () => {
  const a = fakeDocument(run(1, 1));
  const b = fakeDocument(run(2, 2));
  const cmp = compareRuns(a, b);
  for (const f of cmp.figures) {
    assert.equal(f.verdict, 'slower', f.label);
    assert.ok(f.ratio! > 1.9 && f.ratio! < 2.1, `${f.label}: ratio ${f.ratio}`);
    assert.ok(f.ratioLow! > 1.8 && f.ratioLow! <= f.ratio! && f.ratioHigh! >= f.ratio! && f.ratioHigh! < 2.2, `${f.label}: [${f.ratioLow}, ${f.ratioHigh}]`);
    assert.ok(f.pValue < 1e-10, `${f.label}: p ${f.pValue}`);
  }
  const back = compareRuns(b, a);
  for (const f of back.figures) {
    assert.equal(f.verdict, 'faster', f.label);
    assert.ok(f.ratio! > 0.45 && f.ratio! < 0.55);
  }
});

test('a small noisy 2 % difference is not marked', () => {
  const cmp = compareRuns(fakeDocument(run(1, 1, 60, 0.3)), fakeDocument(run(2, 1.02, 60, 0.3)));
  for (const f of cmp.figures) assert.equal(f.verdict, 'same', `${f.label}: ratio ${f.ratio} p ${f.pValue}`);
  // Even a 2 % shift measured so precisely that it is statistically clear stays below the 5 % threshold.
  const precise = compareRuns(fakeDocument(run(1, 1, 400, 0.01)), fakeDocument(run(1, 1.02, 400, 0.01)));
  for (const f of precise.figures) {
    assert.ok(f.pValue < VERDICT_RULE.maxP && f.ratioLow! > 1, `${f.label}: clear (p ${f.pValue}, low ${f.ratioLow})`);
    assert.equal(f.verdict, 'same', f.label);
  }
});

test('the verdict rule at its edges', () => {
  assert.equal(verdictOf(1.2, 1.1, 1.3, 0.001), 'slower');
  assert.equal(verdictOf(0.8, 0.7, 0.9, 0.001), 'faster');
  assert.equal(verdictOf(1.2, 0.95, 1.3, 0.001), 'same', 'interval includes 1');
  assert.equal(verdictOf(1.2, 1.1, 1.3, 0.01), 'same', 'p not below 0.01');
  assert.equal(verdictOf(1.049, 1.04, 1.06, 1e-9), 'same', 'less than 5 %');
  assert.equal(verdictOf(1.05, 1.04, 1.06, 1e-9), 'slower', '5 % exactly counts');
  assert.equal(verdictOf(null, null, null, 0), 'same');
});

test('configurations only in one run, without samples, and machine and parameter differences', () => {
  const a = run(1, 1).filter((m) => m.identity.rssMb === 0);
  a.push(failed('vfork-exec', spawnFields('vfork-exec', 0), 0));
  const b = run(1, 1).filter((m) => m.identity.method === 'fork-exec');
  b.push(measurement('vfork-exec', spawnFields('vfork-exec', 0), 0, [1, 2, 3]));
  const phase = (kb: number) => ({ ...measurement('phase', { layout: 'dense', phase: 'before', parentVmPteKb: kb }, 1, [1]), samplesNs: [], stats: null });
  a.push(phase(12));
  b.push(phase(16));
  const cmp = compareRuns(
    fakeDocument(a),
    fakeDocument(b, { machine: { kernel: '6.5.0', thpEnabled: 'always' }, params: { methods: ['fork-exec'], rssMb: [0, 512] }, runId: '11111111-2222-4333-8444-555555555555' }),
  );
  assert.deepEqual(
    cmp.figures.map((f) => f.label),
    ['fork-exec (rss 0 MB, thp off)'],
  );
  assert.deepEqual(cmp.onlyInA, ['posix-spawn (rss 0 MB, thp off)']);
  assert.deepEqual(cmp.onlyInB, ['fork-exec (rss 512 MB, thp off)']);
  // the same, with what a reader needs to say them in its own words (the compare report does)
  assert.deepEqual(
    cmp.onlyIn.map((o) => [o.side, o.label, o.series, o.identity.rssMb]),
    [
      ['A', 'posix-spawn (rss 0 MB, thp off)', 'posix-spawn', 0],
      ['B', 'fork-exec (rss 512 MB, thp off)', 'fork-exec', 512],
    ],
  );
  assert.deepEqual(cmp.noSamples, [{ label: 'vfork-exec (rss 0 MB, thp off)', side: 'A' }], 'a configuration of fields only is no figure and no gap');
  assert.deepEqual(cmp.machineDifferences, [
    { name: 'kernel', a: '6.1.0-test', b: '6.5.0' },
    { name: 'thpEnabled', a: 'madvise', b: 'always' },
  ]);
  assert.deepEqual(
    cmp.paramDifferences.map((d) => d.name),
    ['methods', 'rssMb', 'thp', 'iterations'],
  );
  assert.equal(cmp.b.runId, '11111111-2222-4333-8444-555555555555');
  // deadlock: pids and what the child did are observed, the variant and times are chosen (its identity)
  const d = fakeDocument(
    [
      measurement('lock', { variant: 'mutex', holdMs: 50, childPid: 123, childHung: true, probePid: 9 }, 0, [5, 6], {}, 'deadlock'),
      measurement('lock', { variant: 'mutex', holdMs: 50, childPid: 456, childHung: false, probePid: 10 }, 1, [7], {}, 'deadlock'),
    ],
    { experiment: 'deadlock' },
  );
  const groups = identityGroups(d);
  assert.equal(groups.length, 1);
  assert.deepEqual(groups[0]!.identity, { variant: 'mutex', holdMs: 50 });
  assert.deepEqual(groups[0]!.samplesNs, [5, 6, 7]);
  // vma-like: the slab readings differ per probe, the VMA count and method identify
  const vmaRuns = [0, 1].map((r) => measurement('fork-exit', { vmas: 1000, method: 'fork-exit', vmasInRegion: 1000 + r, slabGrowthKb: 40 + r }, r, [9], {}, 'vma'));
  const v = identityGroups(fakeDocument(vmaRuns, { experiment: 'vma' }));
  assert.deepEqual(
    v.map((g) => g.label),
    ['fork-exit (vmas 1000)'],
  );
});

test('forklab compare: per-figure table, only real differences marked, machines-differ header', (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'forklab-compare-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const db = join(tmp, 'h.db');
  const s = Store.open(db);
  s.importDocument(fakeDocument(run(1, 1)));
  // B: the same at 0 MB, twice as slow at 512 MB, measured on another host
  s.importDocument(fakeDocument([...run(2, 1).slice(0, 4), ...run(2, 2).slice(4)], { machine: { hostname: 'otherhost' } }));
  s.close();
  const box = sandbox();
  const r = runCli(box, ['compare', '1', '2', '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^A: run 1 .* host testhost$/m);
  assert.match(r.stdout, /^machines differ: hostname testhost → otherhost$/m);
  assert.match(r.stdout, /^fork-exec \(rss 0 MB, thp off\) .* same$/m);
  assert.match(r.stdout, /^fork-exec \(rss 512 MB, thp off\) .* 2\.0\d\d \[\d\.\d+–\d\.\d+\] +<0\.001 +▲ slower$/m);
  assert.equal((r.stdout.match(/▲ slower/g) ?? []).length, 2);
  const json = runCli(box, ['compare', '1', 'latest', '--db', db, '--json']);
  assert.equal(JSON.parse(json.stdout).figures.length, 4);
});
