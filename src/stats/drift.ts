/**
 * Reproducibility, not repeatability: what a quantity varies by from run to run on one machine beyond what each
 * run's own interval shows, and a run's interval widened by it (docs/reproduce.md, "Drift between runs").
 *
 * Model (a run-level random effect): run i estimates a quantity as y_i = μ + b_i + e_i, where e_i is its own
 * sampling error, with the standard uncertainty s_i its within-run interval gives, and b_i ~ N(0, τ²) the run's
 * effect: the machine's state at the time (other load, its host, caches, clock), shared by every probe of the run.
 *
 * τ is learnt from the machine's runs of the same quantity by Bayesian random-effects estimation: its posterior on
 * a grid is the restricted likelihood of the runs' estimates (μ integrated out; each run weighted by
 * 1 ÷ (s_i² + τ²)) times a stated prior, a half-Student-t with `df` degrees of freedom and scale `scale`. With no
 * earlier run the posterior is the prior; each run pulls it toward what the runs show, and the prior's heavy tail
 * lets a machine that drifts far more than it says be learnt within a few runs. The widened interval is the
 * predictive one: each side's half-width c solves E[P(|N(0, s² + τ² ÷ m)| ≤ c)] = confidence over τ's
 * posterior, with s that side's within-run standard uncertainty and m the separate runs the estimate pools.
 *
 * Scales: `log` for quantities whose noise is many-fold (times, ratios, growth factors: τ is a relative standard
 * deviation), `relative` for additive quantities positive by nature (slopes, differences of times, readings: the
 * run effect is a share of the value, learnt on the log of the points), `absolute` for shares that may sit at or
 * cross 0 (a bow, a spread: τ in the quantity's own units).
 */
import { normalQuantile } from './clusters.js';

export type DriftScale = 'log' | 'relative' | 'absolute';

/** One run's estimate of a quantity in its own units: the point and its within-run interval at `confidence`. */
export interface RunEstimate {
  point: number;
  /** null: a single reading, nothing to resample (no within-run uncertainty). */
  low: number | null;
  high: number | null;
  confidence: number;
}

/** The stated prior on τ: a half-Student-t of `df` degrees of freedom and scale `scale` (on the drift scale). */
export interface DriftPrior {
  scale: number;
  df: number;
  /** Where it comes from, in words (named in the verdict's notes). */
  name: string;
}

/** τ's posterior on a grid, and what it rests on. */
export interface DriftPosterior {
  scale: DriftScale;
  tau: Float64Array;
  weight: Float64Array;
  /** Runs whose estimates it was learnt from (0: the prior alone). */
  runs: number;
  prior: DriftPrior;
  /** The posterior median of τ: "runs here vary by ±X". */
  medianTau: number;
}

const GRID = 240;
/** Smallest within-run variance used: exact readings have none, and a weight needs one. */
const S2_FLOOR = 1e-18;

/** The standard normal's two-sided P(|Z| ≤ x) (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
export function twoSided(x: number): number {
  if (!(x > 0)) return 0;
  if (!Number.isFinite(x)) return 1;
  const u = x / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * u);
  return 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-u * u);
}

/** A run's estimate on the drift scale: y and its standard uncertainty s; null when it cannot be used there. */
export function onDriftScale(e: RunEstimate, scale: DriftScale): { y: number; s: number } | null {
  if (!Number.isFinite(e.point)) return null;
  const exact = e.low === null || e.high === null;
  if (!exact && (!Number.isFinite(e.low!) || !Number.isFinite(e.high!))) return null;
  const z = normalQuantile(1 - (1 - e.confidence) / 2);
  if (scale === 'absolute') return { y: e.point, s: exact ? 0 : Math.max(0, e.high! - e.low!) / (2 * z) };
  if (!(e.point > 0)) return null;
  if (exact) return { y: Math.log(e.point), s: 0 };
  if (scale === 'log') return e.low! > 0 ? { y: Math.log(e.point), s: (Math.log(e.high!) - Math.log(e.low!)) / (2 * z) } : null;
  return { y: Math.log(e.point), s: Math.max(0, e.high! - e.low!) / (2 * z * e.point) };
}

/** The half-Student-t prior's density (unnormalised). */
const priorDensity = (p: DriftPrior, t: number) => (1 + (t / p.scale) ** 2 / p.df) ** (-(p.df + 1) / 2);

/** The usable estimates of some runs on the drift scale. */
function usable(runs: readonly RunEstimate[], scale: DriftScale): { y: number; s: number }[] {
  return runs.map((r) => onDriftScale(r, scale)).filter((x): x is { y: number; s: number } => x !== null);
}

/** A grid of τ from 0 to `top`, dense near 0 (where small drifts are told apart), with each point's width. */
function tauGrid(top: number): { tau: Float64Array; width: Float64Array } {
  const tau = new Float64Array(GRID + 1);
  for (let g = 0; g <= GRID; g++) tau[g] = top * (g / GRID) ** 2;
  const width = new Float64Array(GRID + 1);
  for (let g = 0; g <= GRID; g++) width[g] = ((g < GRID ? tau[g + 1]! : tau[g]!) - (g > 0 ? tau[g - 1]! : tau[g]!)) / 2;
  return { tau, width };
}

/** The restricted log-likelihood of τ at each grid point: each run's estimate with variance s_i² + τ², μ integrated out. */
function restrictedLogLikelihood(xs: readonly { y: number; s: number }[], tau: Float64Array): Float64Array {
  const out = new Float64Array(tau.length);
  if (xs.length < 2) return out;
  for (let g = 0; g < tau.length; g++) {
    const w = xs.map((x) => 1 / (Math.max(x.s * x.s, S2_FLOOR) + tau[g]! ** 2));
    const sw = w.reduce((a, b) => a + b, 0);
    const mean = xs.reduce((a, x, i) => a + w[i]! * x.y, 0) / sw;
    let l = -0.5 * Math.log(sw);
    for (let i = 0; i < xs.length; i++) l += 0.5 * Math.log(w[i]!) - 0.5 * w[i]! * (xs[i]!.y - mean) ** 2;
    out[g] = l;
  }
  return out;
}

/** τ's posterior from the runs' estimates of one quantity (none, or one: the prior alone). */
export function driftPosterior(runs: readonly RunEstimate[], scale: DriftScale, prior: DriftPrior): DriftPosterior {
  if (!(prior.scale > 0 && prior.df > 0)) throw new RangeError(`driftPosterior: the prior needs a positive scale and df, got ${prior.scale} and ${prior.df}`);
  const xs = usable(runs, scale);
  const ys = xs.map((x) => x.y);
  const spread = xs.length > 1 ? Math.max(...ys) - Math.min(...ys) : 0;
  const { tau, width } = tauGrid(Math.max(30 * prior.scale, 4 * spread, ...xs.map((x) => 4 * x.s)));
  const ll = restrictedLogLikelihood(xs, tau);
  const logs = new Float64Array(GRID + 1);
  for (let g = 0; g <= GRID; g++) logs[g] = Math.log(priorDensity(prior, tau[g]!) * width[g]! || Number.MIN_VALUE) + ll[g]!;
  const best = Math.max(...logs);
  const weight = new Float64Array(GRID + 1);
  let sum = 0;
  for (let g = 0; g <= GRID; g++) {
    weight[g] = Math.exp(logs[g]! - best);
    sum += weight[g]!;
  }
  let cum = 0;
  let medianTau = tau[GRID]!;
  for (let g = 0; g <= GRID; g++) {
    weight[g]! /= sum;
    cum += weight[g]!;
    if (cum >= 0.5 && medianTau === tau[GRID]!) medianTau = tau[g]!;
  }
  return { scale, tau, weight, runs: xs.length, prior, medianTau };
}

/**
 * The half-t scale that best explains how many quantities drift (empirical Bayes): the scale maximising the product
 * over quantities of ∫ prior(τ) L(τ) dτ, each quantity with its estimates in several runs. How a stated prior is
 * measured from a machine's history (docs/reproduce.md, "The prior").
 */
export function fitPriorScale(quantities: readonly (readonly RunEstimate[])[], scale: DriftScale, df = 2): { scale: number; quantities: number } | null {
  const sets = quantities.map((q) => usable(q, scale)).filter((xs) => xs.length >= 2);
  if (sets.length === 0) return null;
  const top = Math.max(...sets.flatMap((xs) => [4 * (Math.max(...xs.map((x) => x.y)) - Math.min(...xs.map((x) => x.y))), ...xs.map((x) => 4 * x.s)]), 1e-6);
  const { tau, width } = tauGrid(top * 4);
  const lls = sets.map((xs) => restrictedLogLikelihood(xs, tau));
  let best: { scale: number; score: number } | null = null;
  for (let k = 0; k <= 160; k++) {
    const sigma = 10 ** (-5 + (k / 160) * 5);
    // the half-t density, normalised: 2 ÷ σ · t_df(τ ÷ σ) up to a constant that does not depend on σ
    const dens = Array.from(tau, (t) => (1 + (t / sigma) ** 2 / df) ** (-(df + 1) / 2) / sigma);
    let score = 0;
    for (const ll of lls) {
      const peak = Math.max(...ll);
      let m = 0;
      for (let g = 0; g < tau.length; g++) m += dens[g]! * width[g]! * Math.exp(ll[g]! - peak);
      score += Math.log(m || Number.MIN_VALUE) + peak;
    }
    if (!best || score > best.score) best = { scale: sigma, score };
  }
  return { scale: best!.scale, quantities: sets.length };
}

/** The predictive half-width c: E[P(|N(0, s² + τ² ÷ m)| ≤ c)] = confidence over τ's posterior. */
export function predictiveHalfWidth(post: Pick<DriftPosterior, 'tau' | 'weight'>, s: number, confidence: number, sessions = 1): number {
  const m = Math.max(1, sessions);
  // Only the grid points that carry weight: the rest cannot move the coverage.
  const v: number[] = [];
  const w: number[] = [];
  for (let g = 0; g < post.tau.length; g++)
    if (post.weight[g]! > 1e-12) {
      v.push(s * s + post.tau[g]! ** 2 / m);
      w.push(post.weight[g]!);
    }
  const cover = (c: number) => {
    let p = 0;
    for (let i = 0; i < v.length; i++) p += w[i]! * twoSided(c / Math.sqrt(v[i]!));
    return p;
  };
  let hi = Math.sqrt(Math.max(...v, 1e-24)) * 8;
  if (cover(hi) < confidence) hi *= 1e3;
  if (cover(hi) < confidence) return Infinity;
  let lo = 0;
  for (let i = 0; i < 60 && hi - lo > 1e-7 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (cover(mid) < confidence) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * A within-run interval (at `confidence`) widened for the drift: each side's half-width becomes the predictive one
 * on the drift scale. An unbounded side stays so; a point outside its own interval widens about the nearer edge.
 */
export function widenForDrift(point: number, low: number, high: number, post: DriftPosterior, confidence: number, sessions = 1): { low: number; high: number } {
  if (!Number.isFinite(point) || Number.isNaN(low) || Number.isNaN(high)) return { low, high };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const c = Math.min(Math.max(point, low), high);
  const half = (distance: number) => predictiveHalfWidth(post, distance / z, confidence, sessions);
  if (post.scale === 'log' && c > 0) {
    const lo = low > 0 ? c * Math.exp(-half(Math.log(c / low))) : low;
    const hi = Number.isFinite(high) ? c * Math.exp(half(Math.log(high / c))) : high;
    return { low: lo, high: hi };
  }
  const unit = post.scale === 'absolute' ? 1 : Math.abs(c);
  if (unit === 0) return { low, high };
  return {
    low: Number.isFinite(low) ? c - unit * half((c - low) / unit) : low,
    high: Number.isFinite(high) ? c + unit * half((high - c) / unit) : high,
  };
}

/** τ in words, as a percentage: a relative standard deviation, or (absolute scale) percentage points of a share. */
export function driftPercent(scale: DriftScale, tau: number): number {
  return scale === 'absolute' ? tau * 100 : (Math.exp(tau) - 1) * 100;
}

/** The standard normal's distribution function, from twoSided. */
function normalCdf(z: number): number {
  if (Number.isNaN(z)) return NaN;
  return z >= 0 ? 0.5 + twoSided(z) / 2 : 0.5 - twoSided(-z) / 2;
}

/** The machine's value of a quantity from several runs' estimates, on the drift scale, and the runs it pools. */
export interface PooledEstimate {
  /** μ's posterior median and equal-tailed interval at the confidence, on the drift scale (log of the value on `log` and `relative`). */
  centre: number;
  low: number;
  high: number;
  runs: number;
}

/**
 * What several runs' estimates of one quantity say of the machine's value μ (the random-effects model above):
 * μ's posterior with a flat prior on μ, a mixture over τ's posterior of N(μ̂(τ), 1 ÷ Σ w_i), where
 * w_i = 1 ÷ (s_i² + τ²) and μ̂(τ) = Σ w_i y_i ÷ Σ w_i (τ's posterior from the restricted likelihood is then the exact
 * marginal one). Each normal's variance is multiplied by the Hartung–Knapp factor Σ w_i (y_i − μ̂)² ÷ (k − 1) where it
 * exceeds 1 (Knapp and Hartung 2003, in its modified form): without it, simulated runs with a drift the prior
 * understates were covered 87–93 %, with it 92.6–98.3 % from ten runs on (docs/reproduce.md, "The machine's value"). Null when fewer than
 * two runs, or any run's estimate cannot be used on this scale (a slope at or below 0 on a relative scale): dropping
 * it would bias the mean.
 */
export function poolRuns(runs: readonly RunEstimate[], post: DriftPosterior, confidence: number): PooledEstimate | null {
  const xs = runs.map((r) => onDriftScale(r, post.scale));
  if (xs.length < 2 || xs.some((x) => x === null)) return null;
  const ok = xs as { y: number; s: number }[];
  const means: number[] = [];
  const sds: number[] = [];
  const ws: number[] = [];
  for (let g = 0; g < post.tau.length; g++) {
    if (!(post.weight[g]! > 1e-12)) continue;
    const w = ok.map((x) => 1 / (Math.max(x.s * x.s, S2_FLOOR) + post.tau[g]! ** 2));
    const sw = w.reduce((a, b) => a + b, 0);
    const mean = ok.reduce((a, x, i) => a + w[i]! * x.y, 0) / sw;
    // the Hartung–Knapp factor, never below 1: runs that scatter more than their variances say widen the mean's
    const q = ok.reduce((a, x, i) => a + w[i]! * (x.y - mean) ** 2, 0) / (ok.length - 1);
    means.push(mean);
    sds.push(Math.sqrt(Math.max(1, q) / sw));
    ws.push(post.weight[g]!);
  }
  const total = ws.reduce((a, b) => a + b, 0);
  const cdf = (x: number) => {
    let p = 0;
    for (let i = 0; i < ws.length; i++) p += ws[i]! * normalCdf((x - means[i]!) / sds[i]!);
    return p / total;
  };
  const spread = Math.max(...sds);
  const quantile = (q: number) => {
    let lo = Math.min(...means) - 12 * spread;
    let hi = Math.max(...means) + 12 * spread;
    for (let i = 0; i < 80 && hi - lo > 1e-12 * Math.max(1, Math.abs(hi)); i++) {
      const mid = (lo + hi) / 2;
      if (cdf(mid) < q) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const tail = (1 - confidence) / 2;
  return { centre: quantile(0.5), low: quantile(tail), high: quantile(1 - tail), runs: ok.length };
}

/** A pooled estimate in the quantity's own units. */
export function fromDriftScale(p: PooledEstimate, scale: DriftScale): { point: number; low: number; high: number } {
  return scale === 'absolute' ? { point: p.centre, low: p.low, high: p.high } : { point: Math.exp(p.centre), low: Math.exp(p.low), high: Math.exp(p.high) };
}
