// "create": parse errors, the series-splitting helper, and one short real run through the CLI path
// (--json). Shape only: both series present and positive, never which one is faster.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREATE_SERIES_IDENTITY, createExperiment } from '../src/experiments/create/index.js';
import { seriesWarnings } from '../src/experiments/shared/series.js';
import { measurementsPerSeries } from '../src/experiments/shared/measure.js';
import { CREATE_FIELDS } from '../src/experiments/create/configuration.js';
import type { ProbeResult } from '../src/runner/probe.js';
import { childrenOf } from './helpers/procs.js';
import { runCli, sandbox } from './helpers/cli.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';
const childrenOfThisProcess = () => childrenOf(process.pid);

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ iterations: '0' }, '--iterations'],
    [{ iterations: '2k' }, '--iterations'],
    [{ repeats: '0' }, '--repeats'],
    [{ warmup: '-1' }, '--warmup'],
  ];
  assertRefused((raw) => createExperiment.parse(raw), cases);
  assert.deepEqual(createExperiment.parse({}), { iterations: 2000, warmup: 50, repeats: 3, maxRepeats: 3, repeatsCiTarget: 0.05, repeatsBudgetS: 20 });
});

test('samples that cannot fit in memory are refused before any work', () => {
  const p = createExperiment.parse({ iterations: '1000000', repeats: '1000' }); // 2e9 samples
  assert.throws(() => createExperiment.preflight(p), usageErrorFor('--iterations', /MB/));
});

const PER_SERIES = { thread: { identity: CREATE_SERIES_IDENTITY.thread, observed: {} }, fork: { identity: CREATE_SERIES_IDENTITY.fork, observed: {} } };

test('measurementsPerSeries: own fields per series; a failed probe gives a failed measurement for each', () => {
  const base: ProbeResult = {
    state: 'ok',
    caseName: 'create',
    args: {},
    info: { threadStackKb: 8192 },
    series: [
      { series: 'thread', samplesNs: [10, 20, 30], columns: {} },
      { series: 'fork', samplesNs: [40, 50, 60], columns: {} },
    ],
    durationMs: 1,
    stderr: '',
  };
  const ok = measurementsPerSeries(CREATE_FIELDS, base, PER_SERIES, 1, 1);
  assert.deepEqual(
    ok.map((m) => [m.series, m.identity.method, m.state, m.stats?.medianNs]),
    [
      ['thread', 'pthread-create-join', 'ok', 20],
      ['fork', 'fork-waitpid', 'ok', 50],
    ],
  );
  const failed = measurementsPerSeries(
    CREATE_FIELDS,
    { ...base, series: [], state: 'failed', reason: { kind: 'probe-error', call: 'pthread_create', errno: 11, message: 'Resource temporarily unavailable' } },
    PER_SERIES,
    2,
    1,
  );
  assert.deepEqual(
    failed.map((m) => [m.series, m.state]),
    [
      ['thread', 'failed'],
      ['fork', 'failed'],
    ],
  );
  assert.match(failed[0]!.failure!, /pthread_create failed: Resource temporarily unavailable \(errno 11\)/);
  const warnings = seriesWarnings(failed);
  assert.equal(warnings.length, 1, 'one warning per failed probe process, not per series');
  assert.equal(warnings[0]!.code, 'probe-failed');
});

test('real run: both series, positive samples, finite medians and ratio, nothing left behind', async () => {
  const before = new Set(childrenOfThisProcess()); // tsx's esbuild service is a child too
  const params = createExperiment.parse({ iterations: '200', warmup: '5', repeats: '2' });
  const run = await createExperiment.run(params, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.equal(run.measurements.length, 4);
  for (const m of run.measurements) {
    assert.ok(['thread', 'fork'].includes(m.series));
    assert.equal(m.identity.method, m.series === 'thread' ? 'pthread-create-join' : 'fork-waitpid');
    assert.equal(m.state, 'ok');
    assert.equal(m.samplesNs.length, 200);
    assert.ok(m.samplesNs.every((x) => x > 0));
    assert.ok(m.stats && m.stats.ciLowNs <= m.stats.medianNs && m.stats.medianNs <= m.stats.ciHighNs);
  }
  const s = run.summary;
  for (const x of [s.thread, s.fork]) {
    assert.ok(x);
    assert.equal(x.n, 400);
    assert.ok(Number.isFinite(x.medianNs) && x.medianNs > 0);
    assert.ok(x.minNs > 0 && x.minNs <= x.medianNs);
    assert.equal(x.repeatMediansNs.length, 2);
  }
  const r = s.forkOverThreadMedian!;
  assert.ok(r.ratio > 0 && Number.isFinite(r.ratio));
  assert.ok(r.low <= r.ratio && r.ratio <= r.high);
  assert.ok(s.forkOverThreadMin! > 0 && Number.isFinite(s.forkOverThreadMin!));
  assert.equal(typeof s.threadStackKb, 'number');
  const rendered = renderView(createExperiment.view(run), { color: false });
  assert.match(rendered, /pthread_create \+[\s\S]*?pthread_join/, '(a cell may wrap to fit 100 columns)');
  assert.match(rendered, /fork ÷ thread: medians/);
  assert.deepEqual(
    childrenOfThisProcess().filter((pid) => !before.has(pid)),
    [],
    'no probe or child left behind',
  );
});

test('--json through the CLI: a forklab.run document with both series at the top level', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-create-'));
  const file = join(dir, 'run.json');
  try {
    const box = sandbox();
    const r = runCli(box, ['create', '--iterations', '50', '--warmup', '2', '--repeats', '1', '--no-color', '--json', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /fork ÷ thread/);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.schema, 'forklab.run');
    assert.equal(doc.experiment, 'create');
    assert.equal(doc.complete, true);
    assert.deepEqual(doc.params, {
      iterations: 50,
      warmup: 2,
      repeats: 1,
      maxRepeats: 1,
      repeatsCiTarget: 0.05,
      repeatsBudgetS: 20,
      repeatsStop: { reason: 'planned', rounds: 1, widestCiFraction: doc.params.repeatsStop.widestCiFraction },
    });
    assert.deepEqual(
      doc.configurations.map((c: { series: string; method: string }) => [c.series, c.method]),
      [
        ['thread', 'pthread-create-join'],
        ['fork', 'fork-waitpid'],
      ],
    );
    assert.ok(doc.configurations.every((c: { samplesNs: number[] }) => c.samplesNs.length === 50));
    assert.ok(doc.summary.forkOverThreadMedian.ratio > 0);
    const bad = runCli(box, ['create', '--iterations', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--iterations/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
