// Adaptive repeats in sweep(): stop early once every figure is tight, run more (up to a cap and a budget) when not,
// and record why it stopped. Runs the fake probe (no timing is asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { sweep, widestCiFraction } from '../src/experiments/shared/sweep.js';
import { Type } from '@sinclair/typebox';
import { measurementsFrom } from '../src/experiments/shared/measure.js';
import { defineFields } from '../src/experiments/contract/fields.js';
import { fixedPlan } from '../src/runner/plans.js';
import { parseRepeatOptions, describeRepeatsStop } from '../src/experiments/shared/repeats.js';
import type { RunContext } from '../src/experiments/contract/types.js';

/** The fake experiment's fields: a configuration's name, nothing observed. */
const FAKE_FIELDS = defineFields('fake', Type.Object({ name: Type.String() }), Type.Object({}));

const FAKE = fileURLToPath(new URL('./fixtures/fake-probe.mjs', import.meta.url));
const ctx = (): RunContext => ({ native: { probe: FAKE } as never, signal: new AbortController().signal, progress: { step() {}, note() {} }, pinCpu: null, seed: 1 });

function run(mode: string, repeats: number, adaptive?: { minRepeats: number; maxRepeats: number; targetCiFraction: number; budgetMs: number }) {
  const configs = [{ name: 'a' }, { name: 'b' }];
  return sweep({
    configs,
    repeats,
    ...(adaptive ? { adaptive } : {}),
    ctx: ctx(),
    label: (c) => c.name,
    job: () => ({ caseName: 'fake', args: { mode }, plan: fixedPlan(0, 40), timeoutMs: 20_000 }),
    measure: (c, r, repeat) => measurementsFrom(FAKE_FIELDS, r, { name: c.name }, {}, repeat, ['x'], 1).filter((m) => m.series === 'x'),
  });
}

test('without adaptive repeats: exactly --repeats, recorded as planned', async () => {
  const r = await run('ok', 3);
  assert.equal(r.measurements.length, 6);
  assert.deepEqual({ reason: r.repeatsStop.reason, rounds: r.repeatsStop.rounds }, { reason: 'planned', rounds: 3 });
});

test('tight figures stop early after the minimum rounds', async () => {
  const r = await run('ok', 4, { minRepeats: 2, maxRepeats: 6, targetCiFraction: 0.05, budgetMs: 60_000 });
  assert.equal(r.repeatsStop.reason, 'ci-reached');
  assert.equal(r.repeatsStop.rounds, 2);
  assert.equal(r.measurements.length, 4, 'two rounds of two configurations');
  assert.ok(r.repeatsStop.widestCiFraction !== null && r.repeatsStop.widestCiFraction <= 0.05);
});

test('wide figures get more rounds up to --max-repeats, and the record says so', async () => {
  const r = await run('spread', 2, { minRepeats: 2, maxRepeats: 4, targetCiFraction: 0.01, budgetMs: 60_000 });
  assert.equal(r.repeatsStop.reason, 'max-repeats');
  assert.equal(r.repeatsStop.rounds, 4);
  assert.equal(r.measurements.length, 8);
  assert.deepEqual([...new Set(r.measurements.map((m) => m.repeat))].sort(), [1, 2, 3, 4]);
  assert.ok(widestCiFraction(r.measurements)! > 0.01);
});

test('a zero budget runs no extra round', async () => {
  const r = await run('spread', 2, { minRepeats: 2, maxRepeats: 10, targetCiFraction: 0.01, budgetMs: 0 });
  assert.equal(r.repeatsStop.reason, 'budget');
  assert.equal(r.repeatsStop.rounds, 2);
  assert.equal(r.measurements.length, 4);
});

test('repeat flags: defaults, bounds, and the line a render prints', () => {
  const d = { extraRepeats: 2, repeatsCi: '5', repeatsBudgetS: '20' };
  assert.deepEqual(parseRepeatOptions({}, 3, d), { maxRepeats: 5, repeatsCiTarget: 0.05, repeatsBudgetS: 20 });
  assert.throws(() => parseRepeatOptions({ maxRepeats: '2' }, 3, d), /--max-repeats: must be at least --repeats \(3\), got 2/);
  assert.throws(() => parseRepeatOptions({ repeatsCi: '0' }, 3, d), /--repeats-ci: expected a percentage/);
  assert.throws(() => parseRepeatOptions({ repeatsCi: 'x' }, 3, d), /--repeats-ci/);
  const line = describeRepeatsStop({ repeats: 2, maxRepeats: 4, repeatsCiTarget: 0.05, repeatsStop: { reason: 'max-repeats', rounds: 4, widestCiFraction: 0.123 } });
  assert.equal(line, 'repeats: 4 (of 2 planned, at most 4) — stopped: --max-repeats reached with an interval still wider than ±5 % ; widest interval ±12.3 %'.replace(' ;', ';'));
  assert.equal(describeRepeatsStop({}), null);
  assert.equal(
    describeRepeatsStop({ repeats: 2, maxRepeats: 2, repeatsStop: { reason: 'planned', rounds: 2, widestCiFraction: 0.3 } }),
    null,
    'nothing to say when adaptive repeats are off',
  );
});
