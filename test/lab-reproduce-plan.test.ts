// What `forklab reproduce` plans for the sources beyond the articles, before anything runs: the experiments they
// name at the preset, each parsed and preflighted (planSteps). runtimes runs narrower than its own command for Node
// PR #48523's claim (reproduce settings of its own); contend runs for the per-VMA lock commit's claim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planSteps, stepWords } from '../src/lab/reproduce.js';
import { loadPublished } from '../src/reference/published.js';
import { presetFor, reproducePresetFor } from '../src/experiments/index.js';
import type { RuntimesParams } from '../src/experiments/runtimes/index.js';

const p = loadPublished();
const sourcesOf = (...ids: string[]) => p.sources.filter((s) => ids.includes(s.id));
const CURRENT_LINE = Number(process.versions.node.split('.')[0]);

test("reproduce runs one Node's child_process.spawn for Node PR #48523, at no heap and the largest its claim needs", () => {
  const [step] = planSteps([], false, sourcesOf('node-48523'));
  assert.equal(step?.name, 'runtimes');
  assert.equal(step.source, 'node-48523');
  assert.equal(step.state.kind, 'planned', stepWords(step.state));
  const params = step.params as RuntimesParams;
  // The Node running forklab, its spawn alone, one heap kind: not every runtime found, as `forklab runtimes` runs.
  assert.deepEqual(params.only, ['node']);
  assert.deepEqual(params.nodeLines, [CURRENT_LINE]);
  assert.deepEqual(params.variants, ['node/spawn']);
  assert.equal(params.heapKinds?.length, 1);
  assert.equal(params.heapMb[0], 0);
  assert.ok(params.heapMb.length >= 2 && params.heapMb.at(-1)! >= 256, `heaps ${params.heapMb.join(',')}`);
  // The command's own presets are untouched: every runtime found.
  assert.equal(presetFor('runtimes', false)!.runtimes, undefined);
  assert.equal(presetFor('runtimes', true)!.runtimes, undefined);
});

test('reproduce --quick: runtimes runs as the full reproduce does but shorter, or says why it does not', () => {
  const [step] = planSteps([], true, sourcesOf('node-48523'));
  assert.equal(step?.name, 'runtimes');
  const own = reproducePresetFor('runtimes', true);
  assert.ok(own !== null);
  if ('notRun' in own) {
    assert.equal(step.state.kind, 'notReproduced');
    assert.match(stepWords(step.state), /^not run by reproduce --quick\b.*forklab judge/);
  } else {
    assert.equal(step.state.kind, 'planned', stepWords(step.state));
    assert.deepEqual((step.params as RuntimesParams).variants, ['node/spawn']);
  }
});

test('the per-VMA lock commit puts contend in reproduce beside vma: quick at its quick preset, full at fewer probes than its own full', () => {
  for (const quick of [false, true]) {
    const steps = planSteps([], quick, sourcesOf('per-vma-lock-fork'));
    assert.deepEqual(
      steps.map((s) => [s.name, s.source, s.state.kind]),
      [
        ['vma', 'per-vma-lock-fork', 'planned'],
        ['contend', 'per-vma-lock-fork', 'planned'],
      ],
    );
    const runs = reproducePresetFor('contend', quick) as Record<string, string>;
    if (quick) assert.deepEqual(runs, presetFor('contend', quick));
    else {
      // Two methods, one creator and the most at one RSS, one sibling's stall at the smallest and largest RSS of the command's own sweep.
      const own = presetFor('contend', false) as Record<string, string>;
      assert.notDeepEqual(runs, own);
      assert.deepEqual(runs.methods?.split(','), ['fork-exec', 'posix-spawn'], "the claim's fork+exec and posix_spawn beside it");
      assert.ok(own.methods!.split(',').includes('vfork-exec'), 'its own full preset has every method');
      assert.equal(runs.siblings, '1', "the claim's one sibling");
      const stallRss = own.stallRss!.split(',');
      assert.equal(runs.stallRss, [stallRss[0], stallRss.at(-1)].join(','));
    }
  }
});

test('Bun issue #25839 puts fds in reproduce: full at the ends of the descriptors’ axis and every limit, quick at its quick preset', () => {
  const own = presetFor('fds', false) as Record<string, string>;
  const runs = reproducePresetFor('fds', false) as Record<string, string>;
  const fds = own.fds!.split(',');
  assert.equal(runs.fds, [fds[0], fds.at(-1)].join(','));
  assert.equal(runs.nofile, own.nofile, 'every limit: the claims read that axis');
  assert.equal(runs.repeats, own.repeats);
  assert.deepEqual(reproducePresetFor('fds', true), presetFor('fds', true));
});

test('Bun PR #37466 puts cgroup in reproduce: full and quick run every configuration its claim reads, and not the methods and threads no claim reads', () => {
  const claims = p.claims.filter((c) => c.source === 'bun-37466');
  assert.ok(claims.length > 0);
  for (const quick of [false, true]) {
    const own = presetFor('cgroup', quick) as Record<string, string>;
    const runs = reproducePresetFor('cgroup', quick) as Record<string, string>;
    const listOf = (key: string) => (runs[key] ?? own[key] ?? '').split(',');
    for (const c of claims) {
      for (const operand of Object.values(c.check)) {
        const series = (operand as { series?: Record<string, unknown> } | null)?.series;
        if (!series || typeof operand !== 'object') continue;
        for (const [key, value] of Object.entries(series)) {
          const option = key === 'method' ? 'methods' : key;
          assert.ok(listOf(option).includes(String(value)), `${c.id}: ${key}=${String(value)} is not in reproduce's ${option} (${listOf(option).join(',')})`);
        }
      }
    }
    assert.ok(listOf('methods').length < own.methods!.split(',').length, 'fewer methods than its own preset');
    assert.equal(runs.repeats, own.repeats);
    assert.equal(runs.iterations, own.iterations);
  }
});
