// "exec": parse errors, the paired bootstrap on hand-made data, and one short real run. Shape only:
// exec costs more than fork+_exit, the static file is the bigger one, ld.so reports relocations.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execExperiment } from '../src/experiments/exec/index.js';
import { pairedExecBootstrap } from '../src/experiments/exec/paired-bootstrap.js';
import { tscCyclesPerUs } from '../src/experiments/exec/ldstats.js';
import { measurementToJson } from '../src/document/run.js';
import { childrenOf } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';
const childrenOfThisProcess = () => childrenOf(process.pid);

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ iterations: '0' }, '--iterations'],
    [{ iterations: 'many' }, '--iterations'],
    [{ repeats: '0' }, '--repeats'],
    [{ warmup: '-3' }, '--warmup'],
    [{ ldRuns: '-1' }, '--ld-runs'],
    [{ ldRuns: '1.5' }, '--ld-runs'],
  ];
  assertRefused((raw) => execExperiment.parse(raw), cases);
  assert.deepEqual(execExperiment.parse({}), { iterations: 2000, warmup: 20, repeats: 2, ldRuns: 10 });
});

test('samples that cannot fit in memory are refused before any work', () => {
  const p = execExperiment.parse({ iterations: '1000000', repeats: '1000' });
  assert.throws(() => execExperiment.preflight(p), usageErrorFor('--iterations'));
});

test('paired bootstrap: constant shifts give exact intervals; a shared drift cancels', () => {
  const base = [100, 100, 100, 100, 100];
  const b = pairedExecBootstrap([base], [base.map((x) => x + 200)], [base.map((x) => x + 100)], 1, 500);
  assert.deepEqual(b.dynamic, [200, 200]);
  assert.deepEqual(b.static, [100, 100]);
  assert.deepEqual(b.ratio, [2, 2]);
  // Every iteration drifts by the same amount in all three series: the medians move, the differences stay put.
  const drift = Array.from({ length: 301 }, (_, i) => 1000 + 10 * i);
  const d = pairedExecBootstrap(
    [drift.slice(0, 150), drift.slice(150)],
    [drift.slice(0, 150).map((x) => x + 500), drift.slice(150).map((x) => x + 500)],
    [drift.slice(0, 150).map((x) => x + 250), drift.slice(150).map((x) => x + 250)],
    7,
    500,
  );
  assert.deepEqual(d.dynamic, [500, 500]);
  assert.deepEqual(d.static, [250, 250]);
  // A static series no dearer than the baseline gives no ratio interval.
  assert.equal(pairedExecBootstrap([[5, 6, 7]], [[9, 9, 9]], [[5, 6, 7]], 1, 100).ratio, null);
  assert.throws(() => pairedExecBootstrap([[1, 2]], [[1]], [[1, 2]], 1), RangeError);
});

test('TSC rate from /proc/cpuinfo only on x86-64 with constant_tsc', () => {
  const info = 'processor\t: 0\ncpu MHz\t\t: 2599.998\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n';
  assert.equal(tscCyclesPerUs(info, 'x64'), 2599.998);
  assert.equal(tscCyclesPerUs(info, 'arm64'), null);
  assert.equal(tscCyclesPerUs(info.replace(' constant_tsc', ''), 'x64'), null);
  assert.equal(tscCyclesPerUs('flags\t: constant_tsc\n', 'x64'), null);
});

test('real run: exec dearer than fork+_exit, static file bigger, ld.so statistics parsed, nothing left behind', async () => {
  const before = new Set(childrenOfThisProcess()); // tsx's esbuild service is a child too
  const params = execExperiment.parse({ iterations: '120', warmup: '3', repeats: '1', ldRuns: '3' });
  const run = await execExperiment.run(params, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  assert.deepEqual(
    run.measurements.map((m) => m.series),
    ['fork-exit', 'exec-dynamic', 'exec-static', 'getppid', 'ld-startup'],
  );
  const ld = run.measurements.pop()!;
  // ld.so's own start-up as a measurement: timed where the TSC rate is known, else failed with the reason.
  if (ld.state === 'ok') assert.equal(ld.samplesNs.length, 3);
  else assert.match(ld.failure!, /no constant TSC rate/);
  for (const m of run.measurements) {
    assert.equal(m.state, 'ok');
    assert.equal(m.samplesNs.length, 120);
    assert.ok(m.samplesNs.every((x) => x > 0));
    const json = measurementToJson(m);
    assert.equal(json.method, m.series === 'fork-exit' || m.series === 'getppid' ? m.series : 'fork-exec');
    if (m.series.startsWith('exec-')) assert.equal(typeof json.fileBytes, 'number');
  }
  const s = run.summary;
  assert.ok(s.fileBytes.static > s.fileBytes.dynamic, `static ${s.fileBytes.static} B vs dynamic ${s.fileBytes.dynamic} B`);
  const base = s.series['fork-exit']!.medianNs;
  assert.ok(s.series['exec-dynamic']!.medianNs > base, 'exec-dynamic adds work to fork');
  assert.ok(s.series['exec-static']!.medianNs > base, 'exec-static adds work to fork');
  for (const a of [s.execveAlone.dynamic!, s.execveAlone.static!]) {
    assert.ok(a.medianNs > 0);
    assert.ok(a.ciLowNs <= a.medianNs && a.medianNs <= a.ciHighNs, JSON.stringify(a));
  }
  // The plain system call is timed in the same iterations, and is far cheaper than any fork.
  assert.ok(s.syscall && s.syscall.medianNs > 0 && s.syscall.medianNs < base, JSON.stringify(s.syscall));
  assert.ok(s.dynamicOverStatic && s.dynamicOverStatic.ratio > 0 && Number.isFinite(s.dynamicOverStatic.ratio));
  assert.ok(s.ld, `ld.so statistics: ${s.ldFailures.join('; ')}`);
  assert.equal(s.ld.runs, 3);
  assert.ok(s.ld.relocations > 0);
  assert.ok(s.ld.totalStartupCyclesMedian > 0 && s.ld.relocationCyclesMedian > 0);
  const rendered = renderView(execExperiment.view(run), { color: false });
  assert.match(rendered, /execve alone/);
  assert.match(rendered, /LD_DEBUG=statistics/);
  assert.match(rendered, /relocations: \d+/);
  assert.deepEqual(
    childrenOfThisProcess().filter((pid) => !before.has(pid)),
    [],
    'no probe or child left behind',
  );
});
