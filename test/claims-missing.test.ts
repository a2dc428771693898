// A claim the run did not measure for is not-measurable with its reason in words and the flag that measures it,
// never in the document's keys ("method=fork-exec").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { judgeDocuments } from '../src/claims/judge.js';
import { flagForField, notMeasuredValue } from '../src/claims/missing.js';
import type { RunDocument } from '../src/document/run.js';

const spawn = () => JSON.parse(readFileSync(new URL('./fixtures/report/spawn.json', import.meta.url), 'utf8')) as RunDocument;

test('a posix-spawn-only spawn run: the fork-exec claims say what was measured, what is needed and the flag', () => {
  const doc = spawn();
  doc.configurations = doc.configurations.filter((c) => c.method === 'posix-spawn');
  doc.params = { ...doc.params, methods: ['posix-spawn'] }; // what `forklab spawn --methods posix-spawn` records
  assert.ok(doc.configurations.length > 0, 'the fixture measures posix-spawn');
  const out = judgeDocuments([doc], { seed: 1 });
  const reasons = out.verdicts.filter((v) => v.verdict === 'not-measurable').map((v) => v.detail);
  assert.ok(
    reasons.some((r) => r.includes('this run measured posix-spawn only; the claim needs fork-exec (run spawn with --methods fork-exec,…)')),
    reasons.join('\n'),
  );
  for (const r of reasons) assert.doesNotMatch(r, /has no configuration with|\bmethod=|\(it has /, r);
});

test('the flag that chooses a field: a plural list flag, a unit suffix, none', () => {
  assert.equal(flagForField('spawn', 'method'), '--methods');
  assert.equal(flagForField('spawn', 'rssMb'), '--rss');
  assert.equal(flagForField('spawn', 'thp'), '--thp');
  assert.equal(flagForField('spawn', 'phase'), null);
  assert.equal(notMeasuredValue('pagetables', 'phase', 'before', []).message, 'this run recorded no phase; the claim needs phase before');
  assert.equal(
    notMeasuredValue('spawn', 'rssMb', 1024, ['0', '64']).message,
    'this run measured rss 0 MB and rss 64 MB only; the claim needs rss 1024 MB (run spawn with --rss 1024,…)',
  );
});
