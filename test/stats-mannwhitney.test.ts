import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mannWhitneyU, normalCdf, erfc } from '../src/stats/mannwhitney.js';

function close(actual: number, expected: number, tol: number): void {
  assert.ok(Math.abs(actual - expected) <= tol, `expected ${expected}, got ${actual} (tol ${tol})`);
}

test('normalCdf and erfc: reference values (scipy.stats.norm.cdf / scipy.special.erfc)', () => {
  assert.equal(normalCdf(0), 0.5);
  close(normalCdf(-1), 0.15865525393145707, 1e-13);
  close(normalCdf(1), 0.8413447460685429, 1e-13);
  close(normalCdf(1.959963984540054), 0.975, 1e-13);
  close(normalCdf(-3), 0.0013498980316300933, 1e-15);
  // far tail keeps relative accuracy: Phi(-10) = 7.61985302416047e-24
  close(normalCdf(-10) / 7.61985302416047e-24, 1, 1e-12);
  assert.equal(normalCdf(40), 1);
  assert.equal(normalCdf(-40), 0);
  assert.equal(erfc(0), 1);
  close(erfc(0.5), 0.4795001221869535, 1e-14);
  close(erfc(2), 0.004677734981047266, 1e-16);
  close(erfc(-1), 1.8427007929497148, 1e-14);
  close(erfc(5) / 1.5374597944280347e-12, 1, 1e-12);
});

test('mannWhitneyU: completely separated small samples, no ties', () => {
  // a = 1,2,3 ; b = 4,5,6. Ranks of a: 1,2,3 -> R_a = 6
  // U_a = R_a - n_a(n_a+1)/2 = 6 - 6 = 0 (no a exceeds any b)
  // mu = n_a n_b / 2 = 4.5 ; var = n_a n_b (N+1)/12 = 9*7/12 = 5.25
  // z = -(|0 - 4.5| - 0.5)/sqrt(5.25) = -4/2.29129 = -1.745743
  // p = 2*(1 - Phi(1.745743)) = 0.0808556 (scipy asymptotic: 0.08085559837005224)
  const r = mannWhitneyU([1, 2, 3], [4, 5, 6]);
  assert.equal(r.u, 0);
  close(r.z, -4 / Math.sqrt(5.25), 1e-12);
  close(r.pValue, 0.08085559837005224, 1e-12);
});

test('mannWhitneyU: textbook example with ties', () => {
  // a = 1,2,2,5 ; b = 2,3,4,6,7 ; pooled sorted:
  //   1a 2a 2a 2b 3b 4b 5a 6b 7b
  //   ranks: 1 ; the three 2s share ranks 2,3,4 -> 3 each ; 3->5 ; 4->6 ; 5->7 ; 6->8 ; 7->9
  // R_a = 1 + 3 + 3 + 7 = 14 ; U_a = 14 - 4*5/2 = 4
  //   (pair count: a=1 beats none; each a=2 ties b=2 -> 0.5+0.5; a=5 beats 2,3,4 -> 3; total 4)
  // mu = 4*5/2 = 10 ; N = 9 ; ties: one group t=3 -> t^3 - t = 24
  // var = (20/12) * (10 - 24/(9*8)) = (5/3)*(29/3) = 145/9 = 16.1111
  // z = -(6 - 0.5)/sqrt(145/9) = -5.5/4.013865 = -1.370253
  // p = 2*(1 - Phi(1.370253)) = 0.170609 (scipy asymptotic: 0.17060874485083155)
  const r = mannWhitneyU([1, 2, 2, 5], [2, 3, 4, 6, 7]);
  assert.equal(r.u, 4);
  close(r.z, -5.5 / Math.sqrt(145 / 9), 1e-12);
  close(r.pValue, 0.17060874485083155, 1e-12);
});

test('mannWhitneyU: swapping samples mirrors u and z, keeps p', () => {
  const a = [1, 2, 2, 5];
  const b = [2, 3, 4, 6, 7];
  const ab = mannWhitneyU(a, b);
  const ba = mannWhitneyU(b, a);
  assert.equal(ba.u, a.length * b.length - ab.u); // 20 - 4 = 16
  assert.equal(ba.u, 16);
  close(ba.z, -ab.z, 1e-12);
  close(ba.pValue, ab.pValue, 1e-15);
  assert.deepEqual(a, [1, 2, 2, 5], 'input not mutated');
});

test('mannWhitneyU: identical samples give p = 1', () => {
  // U_a = 12.5 = mu exactly, so the corrected z is 0 and p = 1
  const r = mannWhitneyU([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]);
  assert.equal(r.u, 12.5);
  assert.equal(r.z, 0);
  assert.equal(r.pValue, 1);
  // all values identical: zero variance, defined as z = 0, p = 1
  const c = mannWhitneyU([7, 7, 7], [7, 7]);
  assert.equal(c.u, 3); // 6 pairs, all ties -> 6 * 0.5
  assert.equal(c.z, 0);
  assert.equal(c.pValue, 1);
});

test('mannWhitneyU: clearly separated larger samples give a tiny p', () => {
  const a = Array.from({ length: 20 }, (_, i) => 1000 + i); // 1000..1019
  const b = Array.from({ length: 20 }, (_, i) => 2000 + i); // 2000..2019
  // U_a = 0 ; mu = 200 ; var = 400*41/12 ; z = -199.5/sqrt(1366.67) = -5.3965
  // scipy asymptotic p = 6.795615128173358e-08
  const r = mannWhitneyU(a, b);
  assert.equal(r.u, 0);
  close(r.z, -199.5 / Math.sqrt((400 * 41) / 12), 1e-12);
  assert.ok(r.pValue < 1e-6, `p = ${r.pValue}`);
  // relative accuracy in the tail
  close(r.pValue / 6.795615128173358e-8, 1, 1e-9);
  const rev = mannWhitneyU(b, a);
  assert.equal(rev.u, 400);
  assert.ok(rev.z > 5);
});

test('mannWhitneyU: overlapping samples with ties are not significant', () => {
  const a = [10, 12, 11, 13, 12, 14];
  const b = [11, 12, 13, 12, 14, 15];
  const r = mannWhitneyU(a, b);
  // U_a = 12.5 of 36 pairs; scipy asymptotic p = 0.4125114942650385
  assert.equal(r.u, 12.5);
  assert.ok(r.pValue >= 0 && r.pValue <= 1);
  close(r.pValue, 0.4125114942650385, 1e-12);
});

test('mannWhitneyU: rejects empty or non-finite input', () => {
  assert.throws(() => mannWhitneyU([], [1]), RangeError);
  assert.throws(() => mannWhitneyU([1], []), RangeError);
  assert.throws(() => mannWhitneyU([1, Number.NaN], [1]), RangeError);
});
