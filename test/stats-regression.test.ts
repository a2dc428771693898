import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linearFit } from '../src/stats/regression.js';

function close(actual: number, expected: number, tol = 1e-9): void {
  assert.ok(Math.abs(actual - expected) <= tol, `expected ${expected}, got ${actual} (tol ${tol})`);
}

test('linearFit: exact line y = 2x + 1', () => {
  const xs = [0, 1, 2, 3, 4];
  const ys = xs.map((x) => 2 * x + 1); // 1,3,5,7,9
  const fit = linearFit(xs, ys);
  close(fit.slope, 2, 1e-12);
  close(fit.intercept, 1, 1e-12);
  close(fit.r2, 1, 1e-12);
  assert.equal(fit.n, 5);
});

test('linearFit: small noisy set computed by hand', () => {
  // x = 1,2,3,4 ; y = 2,3,5,4
  // xbar = 2.5, ybar = 3.5
  // dx = -1.5,-0.5,0.5,1.5 ; dy = -1.5,-0.5,1.5,0.5
  // Sxx = 2.25+0.25+0.25+2.25 = 5
  // Sxy = 2.25+0.25+0.75+0.75 = 4
  // Syy = 2.25+0.25+2.25+0.25 = 5
  // slope = 4/5 = 0.8 ; intercept = 3.5 - 0.8*2.5 = 1.5
  // r2 = Sxy^2/(Sxx*Syy) = 16/25 = 0.64
  //   (check: fitted 2.3,3.1,3.9,4.7; residuals -0.3,-0.1,1.1,-0.7;
  //    SSres = 0.09+0.01+1.21+0.49 = 1.8; 1 - 1.8/5 = 0.64)
  const xs = [1, 2, 3, 4];
  const ys = [2, 3, 5, 4];
  const fit = linearFit(xs, ys);
  close(fit.slope, 0.8, 1e-12);
  close(fit.intercept, 1.5, 1e-12);
  close(fit.r2, 0.64, 1e-12);
  assert.equal(fit.n, 4);
  assert.deepEqual(xs, [1, 2, 3, 4]);
  assert.deepEqual(ys, [2, 3, 5, 4]);
});

test('linearFit: decreasing line and point order does not matter', () => {
  // y = -3x + 10 at x = 5,1,3 -> -5,7,1
  const fit = linearFit([5, 1, 3], [-5, 7, 1]);
  close(fit.slope, -3, 1e-12);
  close(fit.intercept, 10, 1e-12);
  close(fit.r2, 1, 1e-12);
});

test('linearFit: large offsets (ns-scale values) keep precision', () => {
  // y = 0.25 x + 1e9 at x in bytes up to 1 GiB
  const xs = [0, 2 ** 20, 2 ** 25, 2 ** 30];
  const ys = xs.map((x) => 0.25 * x + 1e9);
  const fit = linearFit(xs, ys);
  close(fit.slope, 0.25, 1e-12);
  close(fit.intercept, 1e9, 1e-3);
  close(fit.r2, 1, 1e-12);
});

test('linearFit: all ys equal is a perfect horizontal fit', () => {
  const fit = linearFit([1, 2, 3], [0.1, 0.1, 0.1]);
  assert.deepEqual(fit, { slope: 0, intercept: 0.1, r2: 1, n: 3 });
});

test('linearFit: uncorrelated data gives r2 0', () => {
  // x = 1,2,3 ; y = 1,0,1 -> dx = -1,0,1 ; dy = 1/3,-2/3,1/3 ; Sxy = -1/3 + 1/3 = 0
  const fit = linearFit([1, 2, 3], [1, 0, 1]);
  close(fit.slope, 0, 1e-12);
  close(fit.intercept, 2 / 3, 1e-12);
  close(fit.r2, 0, 1e-12);
});

test('linearFit: rejects degenerate input', () => {
  assert.throws(() => linearFit([], []), RangeError);
  assert.throws(() => linearFit([1], [2]), RangeError);
  assert.throws(() => linearFit([2, 2, 2], [1, 2, 3]), RangeError);
  assert.throws(() => linearFit([1, 2], [1]), RangeError);
  assert.throws(() => linearFit([1, 2], [1, Number.NaN]), RangeError);
});
