import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, median, mean, stdev, describe } from '../src/stats/descriptive.js';

function close(actual: number, expected: number, tol = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tol, `expected ${expected}, got ${actual} (tol ${tol})`);
}

test('quantile: type 7 linear interpolation between closest ranks', () => {
  // [1,2,3,4], q=0.9: h = (4-1)*0.9 = 2.7 -> x[2] + 0.7*(x[3]-x[2]) = 3 + 0.7*1 = 3.7
  close(quantile([1, 2, 3, 4], 0.9), 3.7);
  // q=0.5: h = 1.5 -> 2 + 0.5*(3-2) = 2.5
  close(quantile([1, 2, 3, 4], 0.5), 2.5);
  // [10,20,30,40,50], q=0.1: h = 4*0.1 = 0.4 -> 10 + 0.4*10 = 14
  close(quantile([10, 20, 30, 40, 50], 0.1), 14);
  // q=0.25: h = 1 exactly -> x[1] = 20
  assert.equal(quantile([10, 20, 30, 40, 50], 0.25), 20);
  // endpoints are min and max
  assert.equal(quantile([1, 2, 3, 4], 0), 1);
  assert.equal(quantile([1, 2, 3, 4], 1), 4);
  // single element: every quantile is that element
  assert.equal(quantile([7], 0.37), 7);
  // accepts a Float64Array too
  close(quantile(Float64Array.from([1, 2, 3, 4]), 0.9), 3.7);
});

test('quantile: rejects empty, unsorted and out-of-range q', () => {
  assert.throws(() => quantile([], 0.5), RangeError);
  assert.throws(() => quantile([3, 1, 2], 0.5), RangeError);
  assert.throws(() => quantile([1, 2], -0.1), RangeError);
  assert.throws(() => quantile([1, 2], 1.1), RangeError);
  assert.throws(() => quantile([1, 2], Number.NaN), RangeError);
  assert.throws(() => quantile([1, Number.NaN], 0.5), RangeError);
});

test('median: odd and even lengths, unsorted input, no mutation', () => {
  const odd = [5, 1, 3];
  assert.equal(median(odd), 3); // sorted 1,3,5 -> middle 3
  assert.deepEqual(odd, [5, 1, 3]);
  const even = [4, 1, 3, 2];
  assert.equal(median(even), 2.5); // sorted 1,2,3,4 -> (2+3)/2
  assert.deepEqual(even, [4, 1, 3, 2]);
  assert.equal(median([42]), 42);
  // numeric, not lexicographic, ordering: sorted 2,10,100 -> 10
  assert.equal(median([100, 2, 10]), 10);
  assert.throws(() => median([]), RangeError);
});

test('mean and sample stdev', () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  // sum = 40, n = 8 -> mean 5
  assert.equal(mean(xs), 5);
  // deviations -3,-1,-1,-1,0,0,2,4; squares 9+1+1+1+0+0+4+16 = 32
  // sample variance 32/7 = 4.571428...; sqrt = 2.1380899352993950
  close(stdev(xs), Math.sqrt(32 / 7), 1e-12);
  close(stdev(xs), 2.138089935299395, 1e-12);
  assert.equal(stdev([7]), 0);
  assert.equal(stdev([3, 3, 3]), 0);
  assert.throws(() => mean([]), RangeError);
  assert.throws(() => stdev([]), RangeError);
});

test('describe: all fields on a known set', () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9];
  const input = [...xs].reverse();
  const s = describe(input);
  assert.deepEqual(input, [...xs].reverse(), 'input not mutated');
  assert.equal(s.n, 8);
  assert.equal(s.minNs, 2);
  assert.equal(s.maxNs, 9);
  assert.equal(s.medianNs, 4.5); // (4+5)/2
  assert.equal(s.meanNs, 5);
  // p90: h = 7*0.9 = 6.3 -> x[6] + 0.3*(x[7]-x[6]) = 7 + 0.3*2 = 7.6
  close(s.p90Ns, 7.6);
  // p99: h = 7*0.99 = 6.93 -> 7 + 0.93*2 = 8.86
  close(s.p99Ns, 8.86);
  close(s.stdevNs, 2.138089935299395, 1e-12);
  // cv = 2.138089935299395 / 5
  close(s.cv, 0.427617987059879, 1e-12);
});

test('describe: 1..100 percentiles and stdev', () => {
  // shuffled deterministically: i*37 mod 101 permutes 1..100
  const xs = Array.from({ length: 100 }, (_, i) => ((i + 1) * 37) % 101);
  assert.equal(new Set(xs).size, 100);
  const s = describe(xs);
  assert.equal(s.minNs, 1);
  assert.equal(s.maxNs, 100);
  close(s.medianNs, 50.5); // (50+51)/2
  close(s.meanNs, 50.5);
  close(s.p90Ns, 90.1); // h = 99*0.9 = 89.1 -> 90 + 0.1
  close(s.p99Ns, 99.01); // h = 99*0.99 = 98.01 -> 99 + 0.01
  // sample stdev of 1..n is sqrt(n(n+1)/12) = sqrt(10100/12) = 29.0114919758820
  close(s.stdevNs, Math.sqrt(10100 / 12), 1e-9);
  close(s.cv, Math.sqrt(10100 / 12) / 50.5, 1e-12);
});

test('describe: single sample and empty input', () => {
  assert.deepEqual(describe([1234]), {
    n: 1,
    minNs: 1234,
    medianNs: 1234,
    meanNs: 1234,
    p90Ns: 1234,
    p99Ns: 1234,
    maxNs: 1234,
    stdevNs: 0,
    cv: 0,
  });
  assert.throws(() => describe([]), RangeError);
  assert.throws(() => describe([1, Number.POSITIVE_INFINITY]), RangeError);
});
