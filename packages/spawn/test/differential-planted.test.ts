// The differential campaign catches a difference in each dimension it compares: each module in
// fixtures/planted/ is child_process with one planted difference (stderr bytes, event order, an error's code,
// the async context, the timeout, a descriptor, a signal's name, the environment), and the campaign, with a fixed
// seed and a bounded number of cases, must find each; against node:child_process itself it must find nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import './helpers/addon.js';
import { pkgDir } from './helpers/addon.js';
import { fuzz, twoAtATime } from './helpers/fuzz.js';

const SEED = '42';
const PLANTED_RUNS = '150';
const CONTROL_RUNS = '20';
const dir = join(pkgDir, 'test', 'fixtures', 'planted');
const planted = readdirSync(dir).filter((f) => f.endsWith('.mjs'));

const control = () => fuzz(['--seed', SEED, '--runs', CONTROL_RUNS, '--module', 'node:child_process', '--shrink-runs', '0'], 600_000);
const runs = twoAtATime([
  control,
  ...planted.map((f) => () => fuzz(['--seed', SEED, '--runs', PLANTED_RUNS, '--module', join(dir, f), '--strict-known', '--shrink-runs', '0'], 600_000)),
]);

test('planted modules exist, one per dimension', () => {
  assert.ok(planted.length >= 8, planted.join(', '));
});

test(`node:child_process against itself: no difference in ${CONTROL_RUNS} cases`, async () => {
  const r = await (runs[0] as Promise<{ status: number | null; out: string }>);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, new RegExp(`^cases run: ${CONTROL_RUNS} `, 'm'));
  assert.match(r.out, /^no difference in/m);
});

planted.forEach((f, i) => {
  test(`planted ${f}: caught within ${PLANTED_RUNS} cases`, async () => {
    const r = await (runs[i + 1] as Promise<{ status: number | null; out: string }>);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /^DIFFERENCE /m);
    assert.match(r.out, /^replay: npm run fuzz:spawn -- --seed 42 --path \d+/m);
  });
});
