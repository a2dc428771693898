// The parameters line of show and the reports: a run's settings as the flags that give them; an experiment's own
// internal settings (how it lays out its probes, why its repeats stopped) stay in the document, never as raw names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunDocument } from '../src/document/run.js';
import { paramFlags } from '../src/report/labels.js';

const doc = JSON.parse(readFileSync(new URL('./fixtures/report/spawn.json', import.meta.url), 'utf8')) as RunDocument;

test('a sweep: flags only; block, probes and repeatsStop are not shown', () => {
  const withInternals = { ...doc, params: { ...doc.params, block: 1, probes: 'child-memory', repeatsStop: { reason: 'ci', rounds: 2 } } };
  const shown = paramFlags(withInternals);
  assert.ok(shown.length > 0);
  for (const [flag] of shown) assert.match(flag, /^--/, `${flag}: a flag`);
  assert.ok(!shown.some(([, v]) => v.includes('child-memory') || v.includes('reason')), JSON.stringify(shown));
});

test('a kind of run with no flags of its own says its settings in words', () => {
  const shown = paramFlags({ ...doc, experiment: 'no-such-experiment', params: { sampleMs: 20 } });
  assert.deepEqual(
    shown.map(([k]) => /^--/.test(k)),
    [false],
  );
});
