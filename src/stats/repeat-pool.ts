/**
 * Few repeats, strength borrowed from the other cells. With two repeats (fresh probe processes) a cell's
 * run-to-run spread rests on one degree of freedom, and an interval that honestly accounts for that (Student's t
 * with 1 df: 12.7 instead of 1.96) spans orders of magnitude. But a run measures many cells in the same way, on the
 * same machine, in the same minutes: on the log scale their repeats scatter alike. This module pools that scatter.
 *
 * Model: the statistic (median, mean, minimum) of repeat r of cell c is, on the log scale, l_cr = μ_c + β_r + e_cr,
 * with β_r the shift of round r (repeat r of every cell is measured in round r: a load that comes and goes lifts a
 * whole round; taken out as a block where the caller says the repeats are rounds, else 0), e_cr ~ N(0, σ²) the same σ
 * for every cell of the run (the repeat's own sampling error included), and e of cells timed in the same probe process
 * (spawn's vfork+exec and posix_spawn) correlated by ρ. σ² is estimated from every cell's residuals (s² = Σ Σ e² ÷ df,
 * df = Σ (R_c − 1) − (rounds − 1)), ρ from the residuals of cells that share probes.
 *
 * A quantity computed from cells' pooled statistics gets its interval by simulation: each draw takes σ² from its
 * sampling distribution (s² · df ÷ χ²_df, so the interval is Student's t with the pooled df for a ratio of two
 * cells), then each cell's statistic multiplied by exp(N(0, σ² · w)), w its influenceWeight (1 ÷ R for equal repeats
 * that agree), correlated as the probes were; the interval is the union of the draws' percentile interval and its
 * reflection about the point. Coverage on simulated runs: test/stats-repeat-pool.test.ts and docs/noise.md ("Few
 * repeats").
 */
import { quantileUnchecked } from './descriptive.js';
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
  /** Pooled variance of a repeat's log statistic about its cell's mean (and its round's shift, where rounds are blocks). */
  variance: number;
  /** Its degrees of freedom: Σ (repeats − 1) over the cells, less (rounds − 1) where the rounds' shifts were taken out. */
  df: number;
  /** Correlation of the deviations of cells timed in the same probes (0 when none share one). */
  rho: number;
  /** Cells that contributed. */
  cells: number;
  /**
   * The rounds' shifts on the log scale, in the order of their repeat numbers (empty: not taken out): what lifted
   * every cell of a round alike (a load that came and went). A cell's repeats, in repeat order, line up with them
   * when it has one per round.
   */
  roundShifts?: readonly number[];
  /** The repeat numbers of the rounds, in that order (with roundShifts). */
  rounds?: readonly number[];
  /** Cells left out of the pool: their own repeats disagreed far beyond it (each is drawn with its own scatter). */
  leftOut?: number;
}

/** Fewest pooled degrees of freedom before the pool is used (fewer: the cell's own repeats, as before). */
export const MIN_POOL_DF = 4;

/** Each cell's log statistics by round, and their cells' means and rounds' shifts by alternating least squares. */
function twoWay(cells: readonly Map<number, number>[], rounds: readonly number[]): { mean: number[]; shift: Map<number, number> } {
  const shift = new Map(rounds.map((r) => [r, 0]));
  let mean = cells.map(() => 0);
  for (let it = 0; it < 50; it++) {
    mean = cells.map((c) => {
      let s = 0;
      for (const [r, l] of c) s += l - shift.get(r)!;
      return s / c.size;
    });
    let moved = 0;
    for (const r of rounds) {
      let s = 0;
      let n = 0;
      cells.forEach((c, i) => {
        const l = c.get(r);
        if (l !== undefined) {
          s += l - mean[i]!;
          n++;
        }
      });
      const next = n > 0 ? s / n : 0;
      moved = Math.max(moved, Math.abs(next - shift.get(r)!));
      shift.set(r, next);
    }
    // shifts about 0 (the cells' means carry the level)
    const centre = [...shift.values()].reduce((a, b) => a + b, 0) / rounds.length;
    for (const r of rounds) shift.set(r, shift.get(r)! - centre);
    if (moved < 1e-12) break;
  }
  return { mean, shift };
}

/**
 * The pooled scatter of these cells' repeats; null when fewer than MIN_POOL_DF degrees of freedom. With `rounds`
 * (the repeats were measured round by round, repeat r of every cell in round r, as every sweep does), each round's
 * shift, common to all its cells, is taken out first: the rounds are blocks, a contrast between cells is free of
 * them, and a cell's own figure is the run's level over its rounds (how a run's level moves is the drift between
 * runs, src/stats/drift.ts). The rounds then cost (rounds − 1) degrees of freedom.
 */
export function repeatPool(cells: readonly CellRepeats[], opts: { rounds?: boolean } = {}): RepeatPool | null {
  const used: Used[] = [];
  for (const c of cells) {
    const entries = [...c.byRepeat.entries()].filter(([, v]) => v > 0 && Number.isFinite(v));
    if (entries.length < 2) continue;
    used.push({ probe: c.probe, logs: new Map(entries.map(([r, v]) => [r, Math.log(v)])) });
  }
  // A cell whose repeats disagree far beyond the pool is drawn with its own scatter (poolInflation, 1 %); beyond 0.1 %
  // it is left out too, lest it lend its disorder to the cells the pool speaks for (docs/noise.md). Until none moves.
  let keep = used.map(() => true);
  let pool = fitPool(used, opts.rounds === true);
  for (let pass = 0; pass < 5 && pool; pass++) {
    const p = pool;
    const inPool = (u: Used, rs: number[]) =>
      poolInflation(
        rs.map((r) => Math.exp(u.logs.get(r)!)),
        p,
        1,
        rs,
        Z_999,
      ) === 1;
    const next = used.map((u) =>
      inPool(
        u,
        [...u.logs.keys()].sort((a, b) => a - b),
      ),
    );
    if (next.every((k, i) => k === keep[i])) break;
    const refit = fitPool(
      used.filter((_, i) => next[i]),
      opts.rounds === true,
    );
    if (!refit) break;
    keep = next;
    pool = refit;
  }
  if (!pool) return null;
  const left = keep.filter((k) => !k).length;
  return { ...pool, ...(left > 0 ? { leftOut: left } : {}) };
}

type Used = { probe: string | null; logs: Map<number, number> };

/** The pool of these cells, all of them (rounds as blocks where asked and there are two rounds or more). */
function fitPool(used: readonly Used[], roundsWanted: boolean): RepeatPool | null {
  const rounds = [...new Set(used.flatMap((u) => [...u.logs.keys()]))].sort((a, b) => a - b);
  const blocks = roundsWanted && rounds.length >= 2;
  const fit = blocks
    ? twoWay(
        used.map((u) => u.logs),
        rounds,
      )
    : { mean: used.map((u) => [...u.logs.values()].reduce((a, b) => a + b, 0) / u.logs.size), shift: new Map<number, number>() };
  let ss = 0;
  let df = 0;
  const deviations: { probe: string | null; dev: Map<number, number> }[] = [];
  used.forEach((u, i) => {
    const dev = new Map([...u.logs].map(([r, l]) => [r, l - fit.mean[i]! - (fit.shift.get(r) ?? 0)]));
    for (const d of dev.values()) ss += d * d;
    df += u.logs.size - 1;
    deviations.push({ probe: u.probe, dev });
  });
  if (blocks) df -= rounds.length - 1;
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
  return { variance, df, rho, cells: used.length, ...(blocks ? { roundShifts: rounds.map((r) => fit.shift.get(r)!), rounds } : {}) };
}

/** The upper 99 % point of χ² with d degrees of freedom, by Wilson and Hilferty's cube (within 1 % from d = 1). */
function chiSquare99(d: number, z = 2.3263478740408408): number {
  const a = 2 / (9 * d);
  return d * (1 - a + z * Math.sqrt(a)) ** 3;
}

/** The normal quantile of 0.999: a cell is left out of the pool only when its repeats could hardly come from it. */
const Z_999 = 3.090232306167813;

/**
 * How much more a group's repeats scatter than the pool says a group of `cells` cells should, where that is far more
 * (one-sided, 1 %): the factor its variance is taken larger by (its own scatter then speaks for it); 1 otherwise. The
 * pool assumes one scatter for every cell; this keeps a cell whose repeats plainly disagree from borrowing the calm of
 * the others, without giving it back the one degree of freedom of its own.
 */
export function poolInflation(perRepeat: readonly number[], pool: RepeatPool, cells = 1, roundsOf?: readonly number[], z?: number): number {
  // with the rounds' numbers, each repeat's own round's shift; without, in order where there is one per round
  const at = roundsOf && pool.rounds ? roundsOf.map((r) => pool.rounds!.indexOf(r)) : null;
  const shifts = pool.roundShifts && (at ? at.every((i) => i >= 0) : pool.roundShifts.length === perRepeat.length) ? pool.roundShifts : null;
  const logs = perRepeat.flatMap((v, i) => (v > 0 && Number.isFinite(v) ? [Math.log(v) - (shifts ? shifts[at ? at[i]! : i]! : 0)] : []));
  if (logs.length < 2) return 1;
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const d = logs.length - 1;
  const ratio = logs.reduce((a, b) => a + (b - mean) ** 2, 0) / d / (pool.variance / Math.max(1, cells));
  return ratio > chiSquare99(d, z) / d ? ratio : 1;
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

/**
 * A group's weight where its statistic pools the samples of all its repeats: how much a shift of one repeat moves the
 * pooled statistic, squared and summed over the repeats, divided by the cells it pools. For a median that is the
 * share of the samples nearest the pooled median each repeat holds (its density there: repeats that a round's load
 * pushed away from the rest hardly move the median, the one in the middle moves it more than its share of samples);
 * for a mean, each repeat's share of the sum; for a minimum, the repeat that holds it. Where the repeats agree it is
 * Σ (n_r ÷ N)², groupWeight's.
 */
export function influenceWeight(repeats: readonly (readonly number[])[], stat: 'median' | 'mean' | 'min', cells = 1): number {
  const reps = repeats.filter((r) => r.length > 0);
  const n = reps.reduce((a, r) => a + r.length, 0);
  if (reps.length < 2 || !(n > 0))
    return groupWeight(
      reps.map((r) => r.length),
      cells,
    );
  let shares: number[];
  if (stat === 'mean') {
    const sums = reps.map((r) => r.reduce((a, b) => a + b, 0));
    const total = sums.reduce((a, b) => a + b, 0);
    if (!(total > 0))
      return groupWeight(
        reps.map((r) => r.length),
        cells,
      );
    shares = sums.map((x) => x / total);
  } else if (stat === 'min') {
    const lows = reps.map((r) => Math.min(...r));
    const at = lows.indexOf(Math.min(...lows));
    shares = reps.map((_, i) => (i === at ? 1 : 0));
  } else {
    // the k nearest samples to the pooled median on the log scale (a fifth of them, at least 10): which repeats hold them
    const all = reps.flatMap((r, i) => r.filter((v) => v > 0).map((v) => ({ l: Math.log(v), i })));
    if (all.length < 2)
      return groupWeight(
        reps.map((r) => r.length),
        cells,
      );
    const sorted = all.map((x) => x.l).sort((a, b) => a - b);
    const h = (sorted.length - 1) / 2;
    const m = (sorted[Math.floor(h)]! + sorted[Math.ceil(h)]!) / 2;
    const k = Math.min(all.length, Math.max(10, Math.ceil(all.length / 5)));
    const near = [...all].sort((a, b) => Math.abs(a.l - m) - Math.abs(b.l - m)).slice(0, k);
    const counts = reps.map(() => 0);
    for (const x of near) counts[x.i]!++;
    shares = counts.map((c) => c / k);
  }
  return shares.reduce((a, w) => a + w * w, 0) / Math.max(1, cells);
}

export interface PoolInterval {
  low: number;
  high: number;
  /** Draws whose quantity was finite (a ratio of a falling slope is not). */
  finiteShare: number;
}

/** A standard normal from two uniforms (Box–Muller). */
export function gaussian(rng: () => number): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** χ² with `df` degrees of freedom: a sum of squared normals up to 60, the Wilson–Hilferty cube beyond. */
export function chiSquare(df: number, rng: () => number): number {
  if (df <= 60) {
    let s = 0;
    for (let i = 0; i < df; i++) s += gaussian(rng) ** 2;
    return s;
  }
  const a = 2 / (9 * df);
  return df * Math.max(0, 1 - a + gaussian(rng) * Math.sqrt(a)) ** 3;
}

/**
 * The model's noise, drawn: each call fills `e` with one draw of every group's e_g on the log scale — σ² from its
 * sampling distribution (s² · df ÷ χ²_df), then each group's own part (shared by groups of one key) and the part
 * shared by groups timed in the same probe processes (correlated by ρ), scaled by √(σ² · weight).
 */
export function poolNoise(groups: readonly PooledGroup[], pool: RepeatPool, rng: () => number): (e: number[]) => void {
  const keys = [...new Set(groups.map((g) => g.key))];
  const probes = [...new Set(groups.map((g) => g.probe))];
  const keyOf = groups.map((g) => keys.indexOf(g.key));
  const probeOf = groups.map((g) => probes.indexOf(g.probe));
  const own = Math.sqrt(1 - pool.rho);
  const shared = Math.sqrt(pool.rho);
  const xi = new Array<number>(keys.length);
  const eta = new Array<number>(probes.length);
  return (e) => {
    const variance = (pool.variance * pool.df) / Math.max(chiSquare(pool.df, rng), 1e-12);
    for (let k = 0; k < keys.length; k++) xi[k] = gaussian(rng);
    for (let p = 0; p < probes.length; p++) eta[p] = gaussian(rng);
    for (let g = 0; g < groups.length; g++) e[g] = Math.sqrt(variance * groups[g]!.weight) * (shared * eta[probeOf[g]!]! + own * xi[keyOf[g]!]!);
  };
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
  const drawNoise = poolNoise(groups, pool, mulberry32(opts.seed));
  const values: number[] = [];
  const e = new Array<number>(groups.length);
  const stats = new Array<number>(groups.length);
  for (let d = 0; d < draws; d++) {
    drawNoise(e);
    for (let g = 0; g < groups.length; g++) stats[g] = groups[g]!.stat * Math.exp(e[g]!);
    const v = combine(stats);
    if (Number.isFinite(v)) values.push(v);
  }
  if (values.length < draws * 0.95) return null;
  values.sort((a, b) => a - b);
  const at = (q: number) => quantileUnchecked(values, q);
  const tail = (1 - confidence) / 2;
  // The basic (reflected) interval: the draws' spread about the point, turned about it. For a smooth quantity it is
  // the percentile interval; for one that noise pushes one way (the largest ÷ the smallest of flat cells grows with
  // any noise) it takes that push off instead of adding it twice. On the log scale where every draw is above 0. Its
  // union with the percentile interval is kept: near a fold (largest ÷ smallest near 1) the reflected upper end would
  // sit at the point itself, and "flat" would be established by the fold, not by the data.
  const point = combine(groups.map((g) => g.stat));
  const lo = at(tail);
  const hi = at(1 - tail);
  const finiteShare = values.length / draws;
  if (point > 0 && lo > 0) return { low: Math.min(lo, (point * point) / hi), high: Math.max(hi, (point * point) / lo), finiteShare };
  return { low: Math.min(lo, 2 * point - hi), high: Math.max(hi, 2 * point - lo), finiteShare };
}
