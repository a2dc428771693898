// The vma experiment (article 003): option errors name their flag, --vmas beyond vm.max_map_count is capped
// with a warning before any work, and a short real run shows fork+_exit growing with the mappings while
// posix_spawn does not.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capVmas, vmaExperiment as exp } from '../src/experiments/vma/index.js';
import { readMaxMapCount } from '../src/env/memory.js';
import { forklabChildrenOf, probeAlive } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { usageErrorFor } from './helpers/bad-input.js';

test('parse: bad values name their flag', () => {
  assert.throws(() => exp.parse({ vmas: 'lots' }), usageErrorFor('--vmas'));
  assert.throws(() => exp.parse({ vmas: '0,,10' }), usageErrorFor('--vmas'));
  assert.throws(() => exp.parse({ vmas: '-1' }), usageErrorFor('--vmas'));
  assert.throws(() => exp.parse({ iterations: '0' }), usageErrorFor('--iterations'));
  assert.throws(() => exp.parse({ repeats: '0' }), usageErrorFor('--repeats'));
  assert.throws(() => exp.parse({ warmup: 'x' }), usageErrorFor('--warmup'));
  const p = exp.parse({ vmas: '10000,0,1000,0' });
  assert.deepEqual(p.vmas, [0, 1000, 10000]);
});

test('capVmas: counts above max_map_count minus the probe’s own mappings are capped, with a sysctl hint', () => {
  assert.deepEqual(capVmas([0, 1000], 65530), { vmas: [0, 1000], warning: null });
  assert.deepEqual(capVmas([0, 1000000], null).vmas, [0, 1000000]);
  const c = capVmas([0, 60000, 1000000], 65530);
  assert.deepEqual(c.vmas, [0, 60000, 65330]);
  assert.equal(c.warning?.code, 'vmas-capped');
  assert.match(c.warning!.message, /sysctl -w vm\.max_map_count=1000200/);
  // Two values above the cap become one.
  assert.deepEqual(capVmas([70000, 80000], 65530).vmas, [65330]);
});

test('preflight caps --vmas above vm.max_map_count with a warning (no run)', () => {
  const max = readMaxMapCount();
  if (max === null) return;
  const p = exp.parse({ vmas: `0,${max + 1000}` });
  const warnings = exp.preflight(p);
  assert.ok(
    p.vmas.every((v) => v <= max - 100),
    `capped: ${p.vmas}`,
  );
  assert.equal(p.vmas.length, 2);
  assert.deepEqual(p.requestedVmas, [0, max + 1000]);
  const w = warnings.find((x) => x.code === 'vmas-capped');
  assert.ok(w, 'a vmas-capped warning');
  assert.match(w.message, /vm\.max_map_count/);
  assert.match(w.message, /sysctl -w/);
});

test('a short real run: fork+_exit grows with the VMAs, posix_spawn hardly; maps verified; nothing left behind', async () => {
  const p = exp.parse({ vmas: '0,20000', iterations: '20', warmup: '2', repeats: '1' });
  assert.deepEqual(exp.preflight(p), []);
  const ctx = testContext();
  const run = await exp.run(p, ctx);
  assert.equal(run.complete, true, JSON.stringify(run.warnings));

  // JSON: one configuration per (vmas, method) with its raw samples.
  assert.equal(run.measurements.length, 6);
  for (const m of run.measurements) {
    assert.ok([0, 20000].includes(m.identity.vmas as number));
    assert.ok(['fork-exit', 'clone-vfork', 'posix-spawn'].includes(m.identity.method as string));
    assert.equal(m.series, m.identity.method);
    assert.equal(m.samplesNs.length, 20);
    // The kernel kept every mapping apart: /proc/self/maps shows exactly `vmas` of them.
    assert.equal(m.observed.vmasInRegion, m.identity.vmas);
    // Slab was read while a child that exec'd the probe in --hold lived (never skipped here: the probe can exec itself).
    assert.equal(typeof m.info.slabAfterExecKb, 'number', `afterExecSkipped: ${String(m.info.afterExecSkipped)}`);
  }
  assert.equal(run.summary.mapsVerified, true);

  const cell = (method: string, vmas: number) => run.summary.cells.find((c) => c.method === method && c.vmas === vmas)!;
  assert.ok(cell('fork-exit', 20000).medianNs > 1.5 * cell('fork-exit', 0).medianNs, 'fork+_exit grows with the VMAs');
  const growth = (method: string) => run.summary.slopes.find((s) => s.method === method)!.growth!;
  assert.ok(growth('posix-spawn') * 3 < growth('fork-exit'), `posix-spawn ×${growth('posix-spawn')} vs fork-exit ×${growth('fork-exit')}`);
  assert.ok(run.summary.slopes.find((s) => s.method === 'fork-exit')!.nsPerVma > 0);

  const text = renderView(exp.view(run), { color: false });
  assert.match(text, /ns per VMA/);
  assert.match(text, /article 003/);

  for (const m of run.measurements) {
    const pid = m.info.probePid;
    if (typeof pid === 'number') assert.equal(probeAlive(pid), false, `probe ${pid} still alive`);
  }
  assert.deepEqual(forklabChildrenOf(process.pid), []);
});
