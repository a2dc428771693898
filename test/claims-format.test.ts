// A slope in a verdict is said with the unit of what it is over, as the growth tables say it: never a document key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtSlope } from '../src/claims/format.js';

test('a time per MB in µs, as the growth table; a reading per VMA; no document key', () => {
  assert.equal(fmtSlope(29118, undefined, 'rssMb'), '29.1 µs per MB');
  assert.equal(fmtSlope(-66, undefined, 'rssMb'), '-0.066 µs per MB');
  assert.equal(fmtSlope(0.26, 'slabGrowthKb', 'vmas'), '0.260 kB per VMA');
  assert.equal(fmtSlope(450, undefined, 'vmas'), '450 ns per VMA');
  for (const s of [fmtSlope(1, undefined, 'rssMb'), fmtSlope(1, 'pageTablesKb', 'vmas')]) assert.doesNotMatch(s, /rssMb|vmas|Kb\b/);
});
