import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapMedianCi, intervalHalfWidthFraction } from '../src/stats/bootstrap.js';
import { median, quantile } from '../src/stats/descriptive.js';
import { mulberry32 } from '../src/stats/random.js';

const S = { seed: 1 };

function close(actual: number, expected: number, tol = 1e-12): void {
  assert.ok(Math.abs(actual - expected) <= tol, `expected ${expected}, got ${actual} (tol ${tol})`);
}

/** n pseudo-normal samples (mean `center`, sd ~ `spread`) from a seeded stream. */
function normalish(n: number, seed: number, center: number, spread: number): number[] {
  const rng = mulberry32(seed);
  // Irwin-Hall: sum of 12 uniforms minus 6 has mean 0, variance 1.
  return Array.from({ length: n }, () => {
    let s = 0;
    for (let k = 0; k < 12; k++) s += rng();
    return center + spread * (s - 6);
  });
}

test('mulberry32: known sequence, range, determinism', () => {
  // Reference values from the canonical JavaScript mulberry32 (bryc).
  const r1 = mulberry32(1);
  assert.deepEqual([r1(), r1(), r1()], [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
  const r42 = mulberry32(42);
  assert.deepEqual([r42(), r42(), r42()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
  const a = mulberry32(7);
  const b = mulberry32(7);
  let sum = 0;
  for (let i = 0; i < 10000; i++) {
    const x = a();
    assert.equal(x, b());
    assert.ok(x >= 0 && x < 1, `out of range: ${x}`);
    sum += x;
  }
  // mean of 10000 U(0,1) has sd 0.0029; 0.02 is ~7 sd
  close(sum / 10000, 0.5, 0.02);
  assert.throws(() => mulberry32(1.5), RangeError);
});

test('bootstrapMedianCi: matches a naive reference implementation exactly', () => {
  // Documented algorithm: sort the data; each resample draws n indices
  // floor(rng() * n) into the sorted data from mulberry32(seed); take the
  // resample median; the interval is the type-7 quantiles of the sorted
  // resample medians at (1-c)/2 and (1+c)/2.
  const data = normalish(31, 5, 1000, 50).concat(normalish(30, 6, 1200, 80)); // n = 61, odd
  const even = data.slice(1); // n = 60, even
  for (const xs of [data, even]) {
    const sorted = [...xs].sort((p, q) => p - q);
    const n = sorted.length;
    const rng = mulberry32(123);
    const meds: number[] = [];
    for (let r = 0; r < 300; r++) {
      const res = Array.from({ length: n }, () => sorted[Math.floor(rng() * n)]!).sort((p, q) => p - q);
      meds.push(quantile(res, 0.5));
    }
    meds.sort((p, q) => p - q);
    const ci = bootstrapMedianCi(xs, { resamples: 300, confidence: 0.9, seed: 123 });
    assert.deepEqual(ci, { lowNs: quantile(meds, 0.05), highNs: quantile(meds, 0.95), confidence: 0.9 });
  }
});

test('bootstrapMedianCi: two-point data computed by hand', () => {
  // A resample of [1, 2] (two draws) has median 1 (prob 1/4), 1.5 (1/2) or 2 (1/4).
  // With 2000 resamples, the 2.5th and 97.5th percentiles are 1 and 2;
  // the 30th and 70th percentiles both fall in the 1.5 mass: [1.5, 1.5].
  assert.deepEqual(bootstrapMedianCi([2, 1], S), { lowNs: 1, highNs: 2, confidence: 0.95 });
  assert.deepEqual(bootstrapMedianCi([1, 2], { seed: 1, confidence: 0.4 }), { lowNs: 1.5, highNs: 1.5, confidence: 0.4 });
});

test('bootstrapMedianCi: reproducible with a seed, order-invariant, seed matters', () => {
  const xs = normalish(300, 11, 50_000, 2_000);
  const copy = [...xs];
  const a = bootstrapMedianCi(xs, { seed: 99 });
  const b = bootstrapMedianCi(xs, { seed: 99 });
  assert.deepEqual(a, b);
  assert.deepEqual(xs, copy, 'input not mutated');
  // Only the multiset of values matters.
  assert.deepEqual(bootstrapMedianCi([...xs].reverse(), { seed: 99 }), a);
  const c = bootstrapMedianCi(xs, { seed: 100 });
  assert.notDeepEqual(c, a);
});

test('bootstrapMedianCi: interval contains the median and shrinks with more data', () => {
  const small = normalish(30, 21, 10_000, 1_000);
  const large = normalish(3000, 22, 10_000, 1_000);
  const ciSmall = bootstrapMedianCi(small, S);
  const ciLarge = bootstrapMedianCi(large, S);
  for (const [xs, ci] of [
    [small, ciSmall],
    [large, ciLarge],
  ] as const) {
    const m = median(xs);
    assert.ok(ci.lowNs < m && m < ci.highNs, `median ${m} not inside [${ci.lowNs}, ${ci.highNs}]`);
    assert.equal(ci.confidence, 0.95);
  }
  const wSmall = ciSmall.highNs - ciSmall.lowNs;
  const wLarge = ciLarge.highNs - ciLarge.lowNs;
  // Width scales like 1/sqrt(n): 100x the data -> about 1/10 the width.
  assert.ok(wLarge < wSmall / 4, `widths: n=30 ${wSmall}, n=3000 ${wLarge}`);
  // Higher confidence -> wider interval on the same data.
  const ci80 = bootstrapMedianCi(small, { seed: 1, confidence: 0.8 });
  assert.ok(ci80.highNs - ci80.lowNs < wSmall);
  assert.ok(ci80.lowNs >= ciSmall.lowNs && ci80.highNs <= ciSmall.highNs);
});

test('bootstrapMedianCi: coverage near nominal on simulated data', () => {
  // 200 data sets of 101 U(0, 1) values (true median 0.5); a 95 % interval
  // should contain 0.5 in roughly 95 % of them. Fully deterministic.
  const rng = mulberry32(2024);
  let covered = 0;
  const trials = 200;
  for (let t = 0; t < trials; t++) {
    const xs = Array.from({ length: 101 }, () => rng());
    const ci = bootstrapMedianCi(xs, { resamples: 500, seed: t + 1 });
    if (ci.lowNs <= 0.5 && 0.5 <= ci.highNs) covered++;
  }
  const coverage = covered / trials;
  assert.ok(coverage >= 0.88 && coverage <= 0.99, `coverage ${coverage}`);
});

test('bootstrapMedianCi: single sample and constant data give zero width', () => {
  assert.deepEqual(bootstrapMedianCi([1234], S), { lowNs: 1234, highNs: 1234, confidence: 0.95 });
  assert.deepEqual(bootstrapMedianCi([500, 500, 500, 500], S), { lowNs: 500, highNs: 500, confidence: 0.95 });
});

test('bootstrapMedianCi: rejects empty input and bad options', () => {
  assert.throws(() => bootstrapMedianCi([], S), RangeError);
  assert.throws(() => bootstrapMedianCi([1, Number.NaN], S), RangeError);
  assert.throws(() => bootstrapMedianCi([1, 2], { seed: 1, resamples: 0 }), RangeError);
  assert.throws(() => bootstrapMedianCi([1, 2], { seed: 1, resamples: 10.5 }), RangeError);
  assert.throws(() => bootstrapMedianCi([1, 2], { seed: 1, confidence: 1 }), RangeError);
  assert.throws(() => bootstrapMedianCi([1, 2], { seed: 1, confidence: 0 }), RangeError);
  assert.throws(() => bootstrapMedianCi([1, 2], { seed: 0.5 }), RangeError);
});

test('intervalHalfWidthFraction: relative half-width of the wider side', () => {
  // max(100 - 98, 103 - 100) / 100 = 3 / 100
  close(intervalHalfWidthFraction(100, { lowNs: 98, highNs: 103 }), 0.03);
  // symmetric: max(1, 1) / 100 = 0.01 -> within a 2 % stopping rule
  close(intervalHalfWidthFraction(100, { lowNs: 99, highNs: 101 }), 0.01);
  // wider low side: max(5000 - 4800, 5050 - 5000) / 5000 = 200 / 5000 = 0.04
  close(intervalHalfWidthFraction(5000, { lowNs: 4800, highNs: 5050 }), 0.04);
  assert.equal(intervalHalfWidthFraction(7, { lowNs: 7, highNs: 7 }), 0);
  assert.equal(intervalHalfWidthFraction(0, { lowNs: 0, highNs: 0 }), 0);
  assert.equal(intervalHalfWidthFraction(0, { lowNs: -1, highNs: 1 }), Infinity);
  assert.throws(() => intervalHalfWidthFraction(Number.NaN, { lowNs: 1, highNs: 2 }), RangeError);
  // Works directly on bootstrap output.
  const xs = normalish(300, 41, 100_000, 3_000);
  const ci = bootstrapMedianCi(xs, S);
  const m = median(xs);
  close(intervalHalfWidthFraction(m, ci), Math.max(m - ci.lowNs, ci.highNs - m) / m);
});
