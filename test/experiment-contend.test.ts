// "contend": parse errors, the creators' default, the probe case's two series and what they add up to, and one
// short real run of every kind of creator. Shape only: never which method or mode is faster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../src/report/terminal.js';
import { autoCreators, contendExperiment } from '../src/experiments/contend/index.js';
import { fixedPlan } from '../src/runner/plans.js';
import { runProbe } from '../src/runner/probe.js';
import { nativePaths, requireNative } from '../src/runner/paths.js';
import { childrenOf } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';

const childrenOfThisProcess = () => childrenOf(process.pid);

test('bad input names the flag', () => {
  assertRefused(
    (raw) => contendExperiment.parse(raw),
    [
      [{ methods: 'fork-exit' }, '--methods'],
      [{ methods: 'clone-vfork' }, '--methods'],
      [{ creatorKinds: 'fiber' }, '--creator-kinds'],
      [{ creators: '0' }, '--creators'],
      [{ creators: '1,x' }, '--creators'],
      [{ creators: '513' }, '--creators'],
      [{ rss: '-1' }, '--rss'],
      [{ iterations: '0' }, '--iterations'],
      [{ warmup: '-1' }, '--warmup'],
      [{ repeats: '0' }, '--repeats'],
      [{ siblings: '0,2' }, '--siblings'],
      [{ siblings: '65' }, '--siblings'],
      [{ stallRss: '0' }, '--stall-rss'],
      [{ stallIterations: '0' }, '--stall-iterations'],
    ],
  );
});

test('creators: auto is 1, 2, … up to twice the CPUs; max is twice the CPUs; lists are sorted and unique', () => {
  assert.deepEqual(autoCreators(1), [1, 2]);
  assert.deepEqual(autoCreators(2), [1, 2, 3, 4]);
  assert.deepEqual(autoCreators(16), [1, 2, 3, 4, 5, 6, 7, 8, 16, 32]);
  assert.deepEqual(autoCreators(6), [1, 2, 3, 4, 5, 6, 7, 8, 12]);
  const most = autoCreators().at(-1)!;
  assert.deepEqual(
    contendExperiment.parse({ creators: 'max,1,1' }).creators,
    [...new Set([1, most])].sort((a, b) => a - b),
  );
  assert.deepEqual(contendExperiment.parse({}).creators, autoCreators());
});

test('too many launches for one probe are refused before any work', () => {
  const p = contendExperiment.parse({ iterations: '100000', creators: '64' });
  assert.throws(() => contendExperiment.preflight(p), usageErrorFor('--iterations'));
});

test('the probe case: n aggregate samples, n × creators latencies, the aggregate covering every creator’s launches', async () => {
  const native = requireNative(nativePaths());
  for (const mode of ['process', 'thread'] as const) {
    const before = new Set(childrenOfThisProcess());
    const r = await runProbe({
      probePath: native.probe,
      caseName: 'contend',
      args: { method: 'posix-spawn', mode, creators: 3, 'rss-mb': 4, target: native.targetStatic },
      plan: fixedPlan(1, 6),
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    assert.equal(r.state, 'ok', JSON.stringify(r));
    assert.equal(r.info.creators, 3);
    assert.equal(r.info.mode, mode);
    const agg = r.series.find((s) => s.series === 'aggregate')!.samplesNs;
    const lat = r.series.find((s) => s.series === 'latency')!.samplesNs;
    assert.equal(agg.length, 6);
    assert.equal(lat.length, 18);
    assert.ok(lat.every((x) => x > 0));
    // The aggregate is the wall time ÷ creators: × 3 it spans each creator's own launches (one after another).
    const wallNs = agg.reduce((a, b) => a + b, 0) * 3 + agg.length * 3;
    for (let c = 0; c < 3; c++) {
      const own = lat.slice(c * 6, c * 6 + 6).reduce((a, b) => a + b, 0);
      assert.ok(wallNs >= own, `creator ${c}: ${own} ns of launches within ${wallNs} ns of wall time`);
    }
    assert.deepEqual(
      childrenOfThisProcess().filter((pid) => !before.has(pid)),
      [],
      `${mode}: no creator or child left behind`,
    );
  }
});

test('the probe refuses a method it does not time concurrently', async () => {
  const native = requireNative(nativePaths());
  const r = await runProbe({
    probePath: native.probe,
    caseName: 'contend',
    args: { method: 'fork-exit', target: native.targetStatic },
    plan: fixedPlan(0, 1),
    timeoutMs: 20_000,
    signal: new AbortController().signal,
  });
  assert.equal(r.state, 'failed');
});

test('the stall case: n stall and n baseline samples, the launch window beside each', async () => {
  const native = requireNative(nativePaths());
  const r = await runProbe({
    probePath: native.probe,
    caseName: 'contend-stall',
    args: { method: 'fork-exec', siblings: 2, 'rss-mb': 8, target: native.targetStatic },
    plan: fixedPlan(1, 5),
    timeoutMs: 60_000,
    signal: new AbortController().signal,
  });
  assert.equal(r.state, 'ok', JSON.stringify(r));
  assert.equal(r.info.siblings, 2);
  const stall = r.series.find((s) => s.series === 'stall')!;
  const base = r.series.find((s) => s.series === 'baseline')!;
  assert.equal(stall.samplesNs.length, 5);
  assert.equal(base.samplesNs.length, 5);
  assert.equal(stall.columns.windowNs!.length, 5);
  // A gap that overlaps a window is at least one unit of work long, and no window is empty.
  assert.ok([...stall.samplesNs, ...base.samplesNs, ...stall.columns.windowNs!].every((x) => x > 0));
});

test('real run of the stall: one cell per method, both figures, said first', async () => {
  const p = contendExperiment.parse({
    methods: 'fork-exec,posix-spawn',
    creatorKinds: 'process',
    creators: '1',
    rss: '0',
    iterations: '2',
    warmup: '1',
    repeats: '1',
    siblings: '1',
    stallRss: '16',
    stallIterations: '4',
  });
  const run = await contendExperiment.run(p, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.deepEqual(
    run.summary.stall.map((c) => [c.method, c.siblings, c.rssMb, c.n]),
    [
      ['fork-exec', 1, 16, 4],
      ['posix-spawn', 1, 16, 4],
    ],
  );
  for (const c of run.summary.stall) assert.ok(c.stallMedianNs > 0 && c.baselineMedianNs > 0 && c.windowMedianNs > 0);
  const view = contendExperiment.view(run);
  assert.equal(view[0]!.kind, 'conclusion');
  const first = (view[0] as { lines: string[] }).lines.join('\n');
  assert.match(first, /fork-exec from 16 MB, 1 sibling thread touching memory: longest stall median/);
  assert.deepEqual(contendExperiment.summarize(run.measurements, p, 1), run.summary);
});

test('real run: every configuration measured, cells for each, the conclusion first and what is not measured said', async () => {
  const before = new Set(childrenOfThisProcess());
  const p = contendExperiment.parse({
    methods: 'fork-exec,vfork-exec',
    creatorKinds: 'process,thread',
    creators: '1,2',
    rss: '0',
    iterations: '4',
    warmup: '1',
    repeats: '1',
    siblings: '0',
  });
  const run = await contendExperiment.run(p, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.equal(run.measurements.length, 2 * 2 * 2 * 2, 'two series for each of 8 configurations');
  for (const m of run.measurements) {
    assert.equal(m.state, 'ok');
    assert.equal(m.samplesNs.length, m.series === 'aggregate' ? 4 : 4 * (m.identity.creators as number));
    assert.equal(typeof m.observed.cpusUsable, 'number');
  }
  assert.equal(run.summary.cells.length, 8);
  for (const c of run.summary.cells) {
    assert.ok(c.creationsPerS > 0 && Number.isFinite(c.creationsPerS));
    assert.ok(c.latencyMedianNs > 0 && c.latencyMedianNs <= c.latencyP90Ns);
    assert.equal(c.latencyN, 4 * c.creators);
  }
  assert.deepEqual(contendExperiment.summarize(run.measurements, p, 1), run.summary, 'a stored run summarises the same');
  const view = contendExperiment.view(run);
  assert.equal(view[0]!.kind, 'conclusion');
  const rendered = renderView(view, { color: false });
  assert.match(rendered, /fork-exec at 0 MB, creator processes 1 → 2: /);
  assert.match(rendered, /vfork-exec at 0 MB, threads of one parent 1 → 2: /);
  assert.match(rendered, /Not measured in this run: what a launch costs the parent’s other threads \(--siblings 0\)/);
  assert.deepEqual(run.summary.stall, []);
  assert.deepEqual(
    childrenOfThisProcess().filter((pid) => !before.has(pid)),
    [],
    'no probe or child left behind',
  );
});
