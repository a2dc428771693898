/**
 * Few repeats, strength borrowed from the other cells. With two repeats (fresh probe processes) a cell's
 * run-to-run spread rests on one degree of freedom, and an interval that honestly accounts for that (Student's t
 * with 1 df: 12.7 instead of 1.96) spans orders of magnitude. But a run measures many cells in the same way, on the
 * same machine, in the same minutes: on the log scale their repeats scatter alike. This module pools that scatter.
 *
 * Model: the statistic (median, mean, minimum) of repeat r of cell c is, on the log scale, l_cr = μ_c + e_cr, with
 * e_cr ~ N(0, σ²) the same σ for every cell of the run (the repeat's own sampling error included), and e of cells
 * timed in the same probe process (spawn's vfork+exec and posix_spawn) correlated by ρ. σ² is estimated from every
 * cell's deviations from its own mean (s² = Σ Σ (l_cr − l̄_c)² ÷ Σ (R_c − 1), with Σ (R_c − 1) degrees of freedom),
 * ρ from the deviations of cells that share probes.
 *
 * A quantity computed from cells' pooled statistics gets its interval by simulation: each draw takes σ² from its
 * sampling distribution (s² · df ÷ χ²_df, so the interval is Student's t with the pooled df for a ratio of two
 * cells), then each cell's statistic multiplied by exp(N(0, σ² · w)), w = Σ_r (n_r ÷ N)² (1 ÷ R for equal repeats),
 * correlated as the probes were; the quantity's 2.5 and 97.5 % points over the draws are its interval. Coverage on
 * simulated runs: test/stats-repeat-pool.test.ts and docs/noise.md ("Few repeats").
 */
import { mulberry32 } from './random.js';

/** One cell's statistic in each of its repeats, and the probe processes it shares with other cells (null: its own). */
export interface CellRepeats {
  /** Statistic by repeat number (above 0: a time). */
  byRepeat: ReadonlyMap<number, number>;
  /** Cells with the same probe were timed in the same probe processes, repeat by repeat. */
  probe: string | null;
}

/** The pooled repeat scatter of a run's cells on the log scale. */
export interface RepeatPool {
  /** Pooled variance of a repeat's log statistic about its cell's mean. */
  variance: number;
  /** Its degrees of freedom: Σ (repeats − 1) over the cells. */
  df: number;
  /** Correlation of the deviations of cells timed in the same probes (0 when none share one). */
  rho: number;
  /** Cells that contributed. */
  cells: number;
}

/** Fewest pooled degrees of freedom before the pool is used (fewer: the cell's own repeats, as before). */
export const MIN_POOL_DF = 4;

/** The pooled scatter of these cells' repeats; null when fewer than MIN_POOL_DF degrees of freedom. */
export function repeatPool(cells: readonly CellRepeats[]): RepeatPool | null {
  let ss = 0;
  let df = 0;
  let used = 0;
  const deviations: { probe: string | null; dev: Map<number, number> }[] = [];
  for (const c of cells) {
    const entries = [...c.byRepeat.entries()].filter(([, v]) => v > 0 && Number.isFinite(v));
    if (entries.length < 2) continue;
    const logs = entries.map(([, v]) => Math.log(v));
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const dev = new Map(entries.map(([r], i) => [r, logs[i]! - mean]));
    for (const d of dev.values()) ss += d * d;
    df += entries.length - 1;
    used++;
    deviations.push({ probe: c.probe, dev });
  }
  if (df < MIN_POOL_DF || !(ss > 0)) return null;
  const variance = ss / df;
  // ρ: pairs of cells of the same probes, over the repeats both have (their own means: a pair of deviations is
  // centred only approximately on common repeats, which a correlation near 1 or 0 hardly notices).
  let cov = 0;
  let covDf = 0;
  const byProbe = new Map<string, Map<number, number>[]>();
  for (const d of deviations) if (d.probe !== null) byProbe.set(d.probe, [...(byProbe.get(d.probe) ?? []), d.dev]);
  for (const group of byProbe.values())
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const common = [...group[i]!.keys()].filter((r) => group[j]!.has(r));
        if (common.length < 2) continue;
        for (const r of common) cov += group[i]!.get(r)! * group[j]!.get(r)!;
        covDf += common.length - 1;
      }
  const rho = covDf > 0 ? Math.min(0.99, Math.max(0, cov / covDf / variance)) : 0;
  return { variance, df, rho, cells: used };
}

/** The upper 99 % point of χ² with d degrees of freedom, by Wilson and Hilferty's cube (within 1 % from d = 1). */
function chiSquare99(d: number): number {
  const a = 2 / (9 * d);
  return d * (1 - a + 2.3263478740408408 * Math.sqrt(a)) ** 3;
}

/**
 * How much more a group's repeats scatter than the pool says a group of `cells` cells should, where that is far more
 * (one-sided, 1 %): the factor its variance is taken larger by (its own scatter then speaks for it); 1 otherwise. The
 * pool assumes one scatter for every cell; this keeps a cell whose repeats plainly disagree from borrowing the calm of
 * the others, without giving it back the one degree of freedom of its own.
 */
export function poolInflation(perRepeat: readonly number[], pool: RepeatPool, cells = 1): number {
  const logs = perRepeat.filter((v) => v > 0 && Number.isFinite(v)).map(Math.log);
  if (logs.length < 2) return 1;
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const d = logs.length - 1;
  const ratio = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / d / (pool.variance / Math.max(1, cells));
  return ratio > chiSquare99(d) / d ? ratio : 1;
}

/** A group of a quantity: its pooled statistic, its weight w, and which draws it shares. */
export interface PooledGroup {
  stat: number;
  /**
   * Σ_r (n_r ÷ N)² over its repeats, divided by the cells it pools (1 ÷ R for one cell of R equal repeats), times its
   * poolInflation where its own repeats disagree far beyond the pool.
   */
  weight: number;
  /** Groups with equal keys are the same data (the same draw). */
  key: string;
  /** Groups with equal probes were timed in the same probe processes (a shared draw, by ρ). */
  probe: string;
}

/** A group's weight from its repeats' sample counts and the number of cells pooled in it. */
export function groupWeight(samplesPerRepeat: readonly number[], cells = 1): number {
  const n = samplesPerRepeat.reduce((a, b) => a + b, 0);
  if (!(n > 0)) return 1;
  return samplesPerRepeat.reduce((a, k) => a + (k / n) ** 2, 0) / Math.max(1, cells);
}

export interface PoolInterval {
  low: number;
  high: number;
  /** Draws whose quantity was finite (a ratio of a falling slope is not). */
  finiteShare: number;
}

/** A standard normal from two uniforms (Box–Muller). */
function gaussian(rng: () => number): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** χ² with `df` degrees of freedom: a sum of squared normals up to 60, the Wilson–Hilferty cube beyond. */
function chiSquare(df: number, rng: () => number): number {
  if (df <= 60) {
    let s = 0;
    for (let i = 0; i < df; i++) s += gaussian(rng) ** 2;
    return s;
  }
  const a = 2 / (9 * df);
  return df * Math.max(0, 1 - a + gaussian(rng) * Math.sqrt(a)) ** 3;
}

/**
 * The interval of combine(stats) at `confidence` by the pooled model above; null when a group's statistic is not
 * above 0 (a time can only be), or fewer than 95 % of the draws give a finite quantity.
 */
export function pooledRepeatInterval(
  groups: readonly PooledGroup[],
  combine: (stats: readonly number[]) => number,
  pool: RepeatPool,
  opts: { seed: number; confidence?: number; draws?: number },
): PoolInterval | null {
  if (groups.some((g) => !(g.stat > 0) || !Number.isFinite(g.stat))) return null;
  const confidence = opts.confidence ?? 0.95;
  const draws = opts.draws ?? 4000;
  const rng = mulberry32(opts.seed);
  const keys = [...new Set(groups.map((g) => g.key))];
  const probes = [...new Set(groups.map((g) => g.probe))];
  const keyOf = groups.map((g) => keys.indexOf(g.key));
  const probeOf = groups.map((g) => probes.indexOf(g.probe));
  const own = Math.sqrt(1 - pool.rho);
  const shared = Math.sqrt(pool.rho);
  const values: number[] = [];
  const stats = new Array<number>(groups.length);
  const xi = new Array<number>(keys.length);
  const eta = new Array<number>(probes.length);
  for (let d = 0; d < draws; d++) {
    const variance = (pool.variance * pool.df) / Math.max(chiSquare(pool.df, rng), 1e-12);
    for (let k = 0; k < keys.length; k++) xi[k] = gaussian(rng);
    for (let p = 0; p < probes.length; p++) eta[p] = gaussian(rng);
    for (let g = 0; g < groups.length; g++) {
      const e = shared * eta[probeOf[g]!]! + own * xi[keyOf[g]!]!;
      stats[g] = groups[g]!.stat * Math.exp(Math.sqrt(variance * groups[g]!.weight) * e);
    }
    const v = combine(stats);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length < draws * 0.95) return null;
  values.sort((a, b) => a - b);
  const at = (q: number) => {
    const h = (values.length - 1) * q;
    const lo = Math.floor(h);
    return values[lo]! + (values[Math.min(lo + 1, values.length - 1)]! - values[lo]!) * (h - lo);
  };
  const tail = (1 - confidence) / 2;
  // The basic (reflected) interval: the draws' spread about the point, turned about it. For a smooth quantity it is
  // the percentile interval; for one that noise pushes one way (the largest ÷ the smallest of flat cells grows with
  // any noise) it takes that push off instead of adding it twice. On the log scale where every draw is above 0.
  const point = combine(groups.map((g) => g.stat));
  const lo = at(tail);
  const hi = at(1 - tail);
  if (point > 0 && lo > 0) return { low: (point * point) / hi, high: (point * point) / lo, finiteShare: values.length / draws };
  return { low: 2 * point - hi, high: 2 * point - lo, finiteShare: values.length / draws };
}
