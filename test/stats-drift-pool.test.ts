// The machine's value from several runs (src/stats/drift.ts, poolRuns) on simulated runs where the truth is known:
// the pooled interval covers the machine's value about 95 % of the time at 0 % and at 20 % drift between runs,
// narrows as runs accumulate (as 1 ÷ √runs once the drift is known), and refuses what it cannot pool fairly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRIFT_PRIORS, MAX_HISTORY_RUNS } from '../src/claims/drift.js';
import { driftPosterior, fromDriftScale, poolRuns, widenForDrift, type RunEstimate } from '../src/stats/drift.js';
import { mulberry32 } from '../src/stats/random.js';

const Z = 1.959963984540054;

function gaussOf(rng: () => number): () => number {
  return () => {
    let u = 0;
    while (u === 0) u = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
  };
}

/** Runs of one quantity whose machine value is 1: a run effect exp(N(0, τ)), a within-run log-normal error of sd s (±15 %). */
function simulate(rng: () => number, tau: number, s: number, runs: number): RunEstimate[] {
  const gauss = gaussOf(rng);
  return Array.from({ length: runs }, () => {
    const si = s * (0.85 + 0.3 * rng());
    const y = tau * gauss() + si * gauss();
    return { point: Math.exp(y), low: Math.exp(y - Z * si), high: Math.exp(y + Z * si), confidence: 0.95 };
  });
}

/** Over seeded sets of `runs` runs: how often the pooled interval holds the truth, and its mean half-width on the log scale. */
function pooledCoverage(seed: number, tau: number, s: number, runs: number, sets: number): { cover: number; half: number } {
  const rng = mulberry32(seed);
  let hit = 0;
  let half = 0;
  for (let k = 0; k < sets; k++) {
    const rs = simulate(rng, tau, s, runs);
    const post = driftPosterior(rs, 'log', DRIFT_PRIORS.timing);
    const p = poolRuns(rs, post, 0.95)!;
    if (p.low <= 0 && p.high >= 0) hit++;
    half += (p.high - p.low) / 2;
  }
  return { cover: hit / sets, half: half / sets };
}

test("with a full history, the pooled interval covers the machine's value ≈ 95 % of the time, at 0 % and at 20 % drift", () => {
  for (const [tau, s] of [
    [0, 0.05],
    [0.2, 0.05],
    [0.2, 0.02],
  ] as const) {
    const { cover } = pooledCoverage(11, tau, s, MAX_HISTORY_RUNS + 1, 2000);
    assert.ok(cover >= 0.92 && cover <= 0.985, `drift ${tau * 100} %, within-run sd ${s * 100} %: coverage ${(cover * 100).toFixed(1)} %`);
  }
});

test('pooling narrows the interval as runs accumulate, and a known drift shrinks it as 1 ÷ √runs', () => {
  const few = pooledCoverage(5, 0.1, 0.02, 5, 500).half;
  const many = pooledCoverage(5, 0.1, 0.02, 20, 500).half;
  assert.ok(many < few * 0.7, `5 runs ±${few.toFixed(3)}, 20 runs ±${many.toFixed(3)}`);
  // A posterior that is sure of τ (a point mass): the pooled half-width is z·√((s² + τ²) ÷ m).
  const tau = 0.1;
  const s = 0.02;
  const post = { ...driftPosterior([], 'log', DRIFT_PRIORS.timing), tau: Float64Array.of(tau), weight: Float64Array.of(1) };
  const runs = Array.from({ length: 9 }, (_, i) => ({
    point: Math.exp((i - 4) * 0.01),
    low: Math.exp((i - 4) * 0.01 - Z * s),
    high: Math.exp((i - 4) * 0.01 + Z * s),
    confidence: 0.95,
  }));
  const p = poolRuns(runs, post, 0.95)!;
  const want = Z * Math.sqrt((s * s + tau * tau) / 9);
  assert.ok(Math.abs(p.centre) < 1e-9, `centre ${p.centre}`);
  assert.ok(Math.abs((p.high - p.low) / 2 - want) < 1e-6, `half-width ${(p.high - p.low) / 2} against ${want}`);
  assert.equal(p.runs, 9);
});

test("the pooled centre is the runs' weighted mean: the run with the smaller interval weighs more", () => {
  const post = { ...driftPosterior([], 'absolute', DRIFT_PRIORS['timing-share']), tau: Float64Array.of(0), weight: Float64Array.of(1) };
  const tight = { point: 1, low: 1 - Z * 0.01, high: 1 + Z * 0.01, confidence: 0.95 };
  const loose = { point: 2, low: 2 - Z * 0.1, high: 2 + Z * 0.1, confidence: 0.95 };
  const p = poolRuns([tight, loose], post, 0.95)!;
  const want = (1 / 0.0001 + 2 / 0.01) / (1 / 0.0001 + 1 / 0.01);
  assert.ok(Math.abs(p.centre - want) < 1e-6, `${p.centre} against ${want}`);
  const v = fromDriftScale(p, 'absolute');
  assert.equal(v.point, p.centre);
  assert.deepEqual(fromDriftScale({ centre: 0, low: -1, high: 1, runs: 2 }, 'log'), { point: 1, low: Math.exp(-1), high: Math.exp(1) });
});

test('nothing to pool: one run, or a run whose estimate cannot be used on the scale (a slope at or below 0)', () => {
  const post = driftPosterior([], 'relative', DRIFT_PRIORS.timing);
  const good = { point: 5, low: 4, high: 6, confidence: 0.95 };
  assert.equal(poolRuns([good], post, 0.95), null);
  assert.equal(poolRuns([good, { point: -1, low: -3, high: 1, confidence: 0.95 }], post, 0.95), null);
  assert.notEqual(poolRuns([good, good], post, 0.95), null);
});

test("with no drift, pooling many runs is narrower than this run's widened interval and still holds the truth", () => {
  const rng = mulberry32(21);
  const rs = simulate(rng, 0, 0.03, 10);
  const post = driftPosterior(rs, 'log', DRIFT_PRIORS.timing);
  const now = rs[9]!;
  const alone = widenForDrift(now.point, now.low!, now.high!, post, 0.95);
  const v = fromDriftScale(poolRuns(rs, post, 0.95)!, 'log');
  assert.ok(v.high - v.low < (alone.high - alone.low) * 0.6, `pooled ${v.low}–${v.high}, alone ${alone.low}–${alone.high}`);
  assert.ok(v.low <= 1 && v.high >= 1);
});
