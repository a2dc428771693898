// A slope in a verdict is said with the unit of what it is over, as the growth tables say it: never a document key
// where its experiment declares the unit (fieldLabels' unit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtSlope } from '../src/claims/format.js';
import { unitOfKey } from '../src/claims/lines.js';
import type { ExperimentData } from '../src/claims/select.js';

const dataOf = (experiment: string): ExperimentData => ({ experiment, configs: [], notes: [], paired: false });

test('a time per MB in µs, as the growth table; a reading per VMA', () => {
  assert.equal(fmtSlope(29118, undefined, 'MB'), '29.1 µs per MB');
  assert.equal(fmtSlope(-66, undefined, 'MB'), '-0.066 µs per MB');
  assert.equal(fmtSlope(0.26, 'slabGrowthKb', 'VMA'), '0.260 kB per VMA');
  assert.equal(fmtSlope(450, undefined, 'VMA'), '450 ns per VMA');
  assert.equal(fmtSlope(450, undefined, 'thread'), '450 ns per thread');
});

test("the unit of a key is the one its experiment declares, not one read from the key's name", () => {
  assert.equal(unitOfKey(dataOf('spawn'), 'rssMb'), 'MB');
  assert.equal(unitOfKey(dataOf('cow'), 'sizeMb'), 'MB');
  assert.equal(unitOfKey(dataOf('vma'), 'vmas'), 'VMA');
  assert.equal(unitOfKey(dataOf('cgroup'), 'gapMs'), 'ms');
  // a label without a unit, and a key without a label: the key, not a unit guessed from its name
  assert.equal(unitOfKey(dataOf('spawn'), 'thp'), 'thp');
  assert.equal(unitOfKey(dataOf('spawn'), 'sizeMb'), 'sizeMb');
  assert.equal(unitOfKey(dataOf('no-such-experiment'), 'vmas'), 'vmas');
  for (const [e, k] of [
    ['spawn', 'rssMb'],
    ['vma', 'vmas'],
  ] as const)
    assert.doesNotMatch(fmtSlope(1, 'pageTablesKb', unitOfKey(dataOf(e), k)), /rssMb|vmas|Kb\b/);
});
