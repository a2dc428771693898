// The drift estimator on simulated runs where the true drift is known: a run's interval, widened by the drift learnt
// from the machine's earlier runs, covers the truth about 95 % of the time with no drift and with 20 % drift
// between runs (seeded, deterministic); with no history it is the prior's; its pieces behave as documented.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRIFT_PRIORS, MAX_HISTORY_RUNS } from '../src/claims/drift.js';
import { driftPercent, driftPosterior, fitPriorScale, onDriftScale, predictiveHalfWidth, twoSided, widenForDrift, type RunEstimate } from '../src/stats/drift.js';
import { mulberry32 } from '../src/stats/random.js';

const Z = 1.959963984540054;

/** Simulated runs of one quantity: μ = 1, a run effect exp(N(0, τ)), a within-run log-normal error of sd s (±15 % around it), each run's 95 % interval. */
function simulate(rng: () => number, tau: number, s: number, runs: number): RunEstimate[] {
  const gauss = () => {
    let u = 0;
    while (u === 0) u = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
  };
  return Array.from({ length: runs }, () => {
    const si = s * (0.85 + 0.3 * rng());
    const y = tau * gauss() + si * gauss();
    return { point: Math.exp(y), low: Math.exp(y - Z * si), high: Math.exp(y + Z * si), confidence: 0.95 };
  });
}

/** The share of simulated sets whose latest run's widened interval covers the truth (1). */
function coverage(seed: number, tau: number, s: number, earlier: number, sets: number): number {
  const rng = mulberry32(seed);
  let hit = 0;
  for (let k = 0; k < sets; k++) {
    const runs = simulate(rng, tau, s, earlier + 1);
    const now = runs[earlier]!;
    const post = driftPosterior(runs, 'log', DRIFT_PRIORS.timing);
    const w = widenForDrift(now.point, now.low!, now.high!, post, 0.95);
    if (w.low <= 1 && w.high >= 1) hit++;
  }
  return hit / sets;
}

test('with a full history, the widened interval covers the truth ≈ 95 % of the time, at 0 % and at 20 % drift between runs', () => {
  const sets = 2000;
  for (const [tau, s] of [
    [0, 0.05],
    [0.2, 0.05],
    [0.2, 0.02],
  ] as const) {
    const c = coverage(7, tau, s, MAX_HISTORY_RUNS, sets);
    assert.ok(c >= 0.92 && c <= 0.98, `drift ${tau * 100} %, within-run sd ${s * 100} %: coverage ${(c * 100).toFixed(1)} %`);
  }
});

test("without the widening, one run's interval does not cover a 20 % drift (what the widening is for)", () => {
  const rng = mulberry32(3);
  let hit = 0;
  for (let k = 0; k < 1000; k++) {
    const [r] = simulate(rng, 0.2, 0.05, 1);
    if (r!.low! <= 1 && r!.high! >= 1) hit++;
  }
  assert.ok(hit / 1000 < 0.6, `${hit / 10} %`);
});

test('the same runs give the same interval (deterministic); no history is the prior alone, history moves it toward the data', () => {
  const runs = simulate(mulberry32(5), 0.2, 0.03, 10);
  const a = driftPosterior(runs, 'log', DRIFT_PRIORS.timing);
  const b = driftPosterior(runs, 'log', DRIFT_PRIORS.timing);
  assert.deepEqual([...a.weight], [...b.weight]);
  const alone = driftPosterior([runs[0]!], 'log', DRIFT_PRIORS.timing);
  const none = driftPosterior([], 'log', DRIFT_PRIORS.timing);
  assert.deepEqual([...alone.weight], [...none.weight], 'one run tells nothing about the spread between runs');
  assert.equal(none.runs, 0);
  assert.ok(a.medianTau > 2 * none.medianTau, `learnt ${a.medianTau}, prior ${none.medianTau}`);
  const quiet = simulate(mulberry32(6), 0, 0.03, 20);
  assert.ok(driftPosterior(quiet, 'log', DRIFT_PRIORS.timing).medianTau < none.medianTau, 'runs that agree pull the drift below the prior');
});

test('widening: no drift leaves the within-run interval, a drift widens each side in quadrature, log scale stays positive', () => {
  const flat = { tau: Float64Array.from([0]), weight: Float64Array.from([1]) };
  assert.ok(Math.abs(predictiveHalfWidth(flat, 0.1, 0.95) - Z * 0.1) < 1e-6);
  const one = { tau: Float64Array.from([0.1]), weight: Float64Array.from([1]) };
  assert.ok(Math.abs(predictiveHalfWidth(one, 0.1, 0.95) - Z * Math.sqrt(0.02)) < 1e-6);
  assert.ok(Math.abs(predictiveHalfWidth(one, 0.1, 0.95, 4) - Z * Math.sqrt(0.01 + 0.0025)) < 1e-6, 'four runs pooled: τ² ÷ 4');
  const post = driftPosterior(simulate(mulberry32(9), 0.3, 0.05, 12), 'log', DRIFT_PRIORS.timing);
  const w = widenForDrift(2, 1.8, 2.2, post, 0.95);
  assert.ok(w.low > 0 && w.low < 1.8 && w.high > 2.2, JSON.stringify(w));
  const rel = driftPosterior([], 'relative', DRIFT_PRIORS.timing);
  const r = widenForDrift(-0.5, -0.6, -0.4, rel, 0.95);
  assert.ok(r.low < -0.6 && r.high > -0.4, 'a relative drift widens a negative value by a share of its size');
  const abs = driftPosterior([], 'absolute', DRIFT_PRIORS['timing-share']);
  const a = widenForDrift(0, 0, 0, abs, 0.95);
  assert.ok(a.low < 0 && a.high > 0, 'a share at 0 with no width is widened by the drift in its own units');
  assert.deepEqual(widenForDrift(1, 0.5, Infinity, post, 0.95).high, Infinity);
});

test('estimates on the drift scale: the log of positive values, exact readings with no uncertainty, unusable ones left out', () => {
  assert.deepEqual(onDriftScale({ point: 1, low: null, high: null, confidence: 0.95 }, 'log'), { y: 0, s: 0 });
  assert.equal(onDriftScale({ point: -1, low: -2, high: 0, confidence: 0.95 }, 'relative'), null);
  assert.equal(onDriftScale({ point: 1, low: 0, high: 2, confidence: 0.95 }, 'log'), null);
  const x = onDriftScale({ point: 10, low: 8, high: 12, confidence: 0.95 }, 'absolute')!;
  assert.ok(Math.abs(x.s - 4 / (2 * Z)) < 1e-9);
  assert.ok(Math.abs(twoSided(Z) - 0.95) < 1e-6);
  assert.ok(Math.abs(driftPercent('log', Math.log(1.05)) - 5) < 1e-9);
  assert.equal(driftPercent('absolute', 0.02), 2);
  assert.throws(() => driftPosterior([], 'log', { scale: 0, df: 2, name: 'x' }), /positive scale/);
});

test('a prior scale is measured from many quantities: the half-t scale that explains their drift between runs', () => {
  const rng = mulberry32(13);
  for (const tau of [0.02, 0.1]) {
    const quantities = Array.from({ length: 30 }, () => simulate(rng, tau, 0.01, 5));
    const fit = fitPriorScale(quantities, 'log')!;
    assert.equal(fit.quantities, 30);
    assert.ok(fit.scale > tau / 2 && fit.scale < tau * 2, `drift ${tau}: fitted ${fit.scale}`);
  }
  assert.equal(fitPriorScale([simulate(rng, 0.1, 0.01, 1)], 'log'), null, 'one run of each quantity shows no drift');
});
