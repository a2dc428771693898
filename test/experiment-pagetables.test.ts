// The pagetables experiment (article 003): option errors name their flag; a short real run shows the page
// tables of a sparse parent copied whole into the idle child and far larger than a dense parent's.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pagetablesExperiment as exp, peakBytes, sparseMappings } from '../src/experiments/pagetables/index.js';
import { PHASES } from '../src/experiments/pagetables/configuration.js';
import { readMaxMapCount } from '../src/env/memory.js';
import { forklabChildrenOf, probeAlive } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { usageErrorFor } from './helpers/bad-input.js';

test('parse: bad values name their flag', () => {
  assert.throws(() => exp.parse({ pages: '0' }), usageErrorFor('--pages'));
  assert.throws(() => exp.parse({ pages: 'many' }), usageErrorFor('--pages'));
  assert.throws(() => exp.parse({ spacingKb: '6' }), usageErrorFor('--spacing-kb'));
  assert.throws(() => exp.parse({ spacingKb: '4' }), usageErrorFor('--spacing-kb'));
  assert.throws(() => exp.parse({ iterations: '0' }), usageErrorFor('--iterations'));
  assert.throws(() => exp.parse({ warmup: '-1' }), usageErrorFor('--warmup'));
  // 16 M pages one GiB apart: far beyond the 64 TiB of address space allowed.
  assert.throws(() => exp.parse({ pages: '16000000', spacingKb: '1048576' }), usageErrorFor('--spacing-kb'));
  const p = exp.parse({});
  assert.deepEqual(p, { pages: 8000, spacingKb: 2048, iterations: 10, warmup: 1, repeats: 1 });
});

test('preflight: more sparse pages than vm.max_map_count allows is refused, naming --pages and sysctl', () => {
  const max = readMaxMapCount();
  if (max === null) return;
  const pages = Math.ceil(max / 2) + 10;
  assert.ok(sparseMappings(pages) > max);
  assert.throws(
    () => exp.preflight(exp.parse({ pages: String(pages), spacingKb: '8' })),
    (e: unknown) => usageErrorFor('--pages')(e) && /sysctl -w vm\.max_map_count=/.test((e as Error).message),
  );
  assert.deepEqual(exp.preflight(exp.parse({ pages: '2000' })), []);
});

test('peakBytes: pages, their copies and the page tables twice', () => {
  // 1000 pages 2 MiB apart: one PTE table each, 2 GiB of range → 3 PMD tables.
  assert.equal(peakBytes({ pages: 1000, spacingKb: 2048, iterations: 1, warmup: 0, repeats: 1 }), 2 * 1000 * 4096 + 2 * (1000 + 3) * 4096);
});

test('a short real run: the idle child holds the parent’s sparse page tables; sparse ≫ dense; nothing left behind', async () => {
  const p = exp.parse({ pages: '2000', iterations: '3', warmup: '1' });
  assert.deepEqual(exp.preflight(p), []);
  const ctx = testContext();
  const run = await exp.run(p, ctx);
  assert.equal(run.complete, true, JSON.stringify(run.warnings));

  const phase = (layout: string, ph: string) => run.summary.phases.find((r) => r.layout === layout && r.phase === ph)!;
  for (const layout of ['sparse', 'dense'])
    for (const ph of PHASES) {
      const r = phase(layout, ph);
      assert.ok(r, `${layout}/${ph} reported`);
      assert.ok(r.parentVmPteKb! > 0 && r.pageTablesKb! > 0);
      assert.equal(r.childVmPteKb === null, ph === 'before' || ph === 'after-build' || ph === 'after-reap', `${layout}/${ph} child column`);
    }
  // Fork copies the page tables: the idle child's VmPTE is the parent's, within ±30 %.
  for (const ph of ['after-fork', 'after-fork-parent-write']) {
    const r = phase('sparse', ph);
    const ratio = r.childVmPteKb! / r.parentVmPteKb!;
    assert.ok(ratio > 0.7 && ratio < 1.3, `sparse/${ph}: child ${r.childVmPteKb} kB vs parent ${r.parentVmPteKb} kB`);
  }
  // Exec gives them back: the holder has a fresh, small address space.
  assert.ok(phase('sparse', 'after-child-exec').childVmPteKb! * 4 < phase('sparse', 'after-fork').childVmPteKb!);
  // 2000 pages 2 MiB apart need a PTE table each; dense, four in all.
  assert.ok(phase('sparse', 'after-build').parentVmPteKb! >= 4 * phase('dense', 'after-build').parentVmPteKb!);
  assert.ok(run.summary.sparseToDenseVmPte! >= 4);

  // JSON shape: every phase carries its VmPTE and PageTables; the timings their raw samples.
  const phases = run.measurements.filter((m) => m.series === 'phase');
  assert.equal(phases.length, 12);
  for (const m of phases) for (const k of ['layout', 'phase', 'parentVmPteKb', 'childVmPteKb', 'pageTablesKb']) assert.ok(k in m.identity || k in m.observed, k);
  for (const layout of ['sparse', 'dense']) {
    const fe = run.measurements.find((m) => m.series === `fork-exit-${layout}`)!;
    assert.equal(fe.state, 'ok');
    assert.equal(fe.samplesNs.length, 3);
  }
  assert.equal(run.measurements.find((m) => m.series === 'fork-exit-sparse')!.observed.mappingsInRange, 2 * 2000);

  const text = renderView(exp.view(run), { color: false });
  assert.match(text, /child exec’d/);
  assert.match(text, /article 003/);

  // Nothing left behind: the probes, their held children, no child of this process.
  for (const m of run.measurements)
    for (const k of ['probePid', 'childPid']) {
      const pid = m.info[k];
      if (typeof pid === 'number' && pid > 0) assert.equal(probeAlive(pid), false, `${k} ${pid} still alive`);
    }
  assert.deepEqual(forklabChildrenOf(process.pid), []);
});
