// The registry of experiments is the one list: the probe has every case it names, the published data names
// only registered experiments, and every experiment declares what the rest of forklab derives from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EXPERIMENTS, EXPERIMENT_NAMES, findExperiment, presetFor } from '../src/experiments/index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { nativePaths, PACKAGE_ROOT } from '../src/runner/paths.js';
import { parseLine } from '../src/runner/protocol.js';
import { articleExperiments, loadPublished } from '../src/reference/published.js';
import { splitConfiguration } from '../src/document/run.js';

test('every case an experiment starts is compiled into the probe (its hello lists it)', () => {
  const r = spawnSync(nativePaths().probe, [], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 0, r.stderr);
  const hello = parseLine(r.stdout.split('\n')[0]!);
  assert.ok(hello.ok && hello.message.type === 'hello' && hello.message.cases, r.stdout);
  const cases = hello.message.cases;
  for (const e of EXPERIMENTS) {
    assert.ok(e.cases.length > 0 || (e.drivers?.length ?? 0) > 0, `${e.name} names its cases or drivers`);
    for (const c of e.cases) assert.ok(cases.includes(c), `${e.name}: case ${c} is not in the probe (${cases.join(', ')})`);
    for (const d of e.drivers ?? []) assert.ok(existsSync(join(PACKAGE_ROOT, 'drivers', d)), `${e.name}: driver ${d} is not in drivers/`);
  }
});

test('every article, figure and claim of the published data names a registered experiment', () => {
  const p = loadPublished();
  const named = new Set([...p.articles.flatMap((a) => articleExperiments(a)), ...p.figures.map((f) => f.experiment), ...p.claims.map((c) => c.experiment)]);
  for (const name of named) assert.ok(findExperiment(name), `${name} is not a registered experiment`);
});

test('names are unique; each experiment declares its identity, series, unit and presets', () => {
  assert.equal(new Set(EXPERIMENT_NAMES).size, EXPERIMENT_NAMES.length);
  for (const e of EXPERIMENTS) {
    // An article's experiment, or one a published source beyond the articles names (fds, cgroup).
    if (e.article === '')
      assert.ok(
        loadPublished().sources.some((s) => s.id === e.source && s.experiment.includes(e.name)),
        `${e.name}: source ${e.source}`,
      );
    else assert.match(e.article, /^\d{3}$/, e.name);
    assert.ok(e.series.length > 0, `${e.name} series`);
    assert.equal(new Set(e.identity).size, e.identity.length, `${e.name} identity keys are distinct`);
    assert.ok(e.unit.perNs > 0 && e.unit.label.length > 0, `${e.name} unit`);
    for (const quick of [false, true]) assert.doesNotThrow(() => e.parse(presetFor(e.name, quick)!), `${e.name} preset`);
  }
});

test('a stored configuration splits into identity and observed by the experiment that wrote it', () => {
  const c = { series: 'fork-exec', method: 'fork-exec', rssMb: 512, thp: 'off', hugePagesKb: 0, stopReason: 'budget', repeat: 1, state: 'ok' };
  assert.deepEqual(splitConfiguration('spawn', c), {
    identity: { method: 'fork-exec', rssMb: 512, thp: 'off' },
    observed: { hugePagesKb: 0, stopReason: 'budget' },
  });
  // An experiment this forklab does not know: nothing is assumed, every field identifies.
  assert.deepEqual(splitConfiguration('nonesuch', { series: 'x', sizeKb: 4, repeat: 1 }), { identity: { sizeKb: 4 }, observed: {} });
});
