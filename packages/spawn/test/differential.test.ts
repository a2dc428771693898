// The differential campaign (npm run fuzz:spawn) on the package as built from these sources, with a fixed seed
// and a bounded number of cases: on this Node and on each other release line found in $FORKLAB_TEST_RUNTIMES
// (node-<version>/bin/node, as runtimes.test.ts finds them), each case through node:child_process in a process
// without register and through the package's exports and under register. A difference that is not one of the
// known defects (scripts/fuzz/known.mjs) fails the test with the shrunk case and its replay command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import './helpers/addon.js';
import { fuzz, runtime, twoAtATime } from './helpers/fuzz.js';
import { installed } from './helpers/installed.js';

const SEED = '20261204';
const HERE_RUNS = 30;
const OTHER_RUNS = 12;
const here = Number(process.versions.node.split('.')[0]);
const inst = installed();
const subject = ['--module', new URL(inst.index).pathname, '--register', new URL(inst.register).pathname];

const lines = [[here, process.execPath] as const, ...[20, 22, 24, 26].filter((m) => m !== here).map((m) => [m, runtime(m)] as const)];
const found = lines.filter(([, node]) => node !== null) as [number, string][];
const runs = new Map(
  twoAtATime(
    found.map(
      ([major, node]) =>
        () =>
          fuzz(['--seed', SEED, '--runs', String(major === here ? HERE_RUNS : OTHER_RUNS), '--node', node, '--shrink-runs', '20', ...subject], 900_000),
    ),
  ).map((p, i) => [found[i]![0], p]),
);

for (const [major, node] of lines) {
  if (!node) {
    test(`the differential campaign on Node ${major}`, {
      skip: process.env.FORKLAB_TEST_RUNTIMES ? `no node-${major}.* under ${process.env.FORKLAB_TEST_RUNTIMES}` : 'FORKLAB_TEST_RUNTIMES is not set',
    }, () => {});
    continue;
  }
  const n = major === here ? HERE_RUNS : OTHER_RUNS;
  test(`the differential campaign on Node ${major}: seed ${SEED}, ${n} cases, no difference from node:child_process`, async () => {
    const r = await runs.get(major)!;
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, new RegExp(`^cases run: ${n} `, 'm'));
    assert.match(r.out, /^no difference in/m);
  });
}
