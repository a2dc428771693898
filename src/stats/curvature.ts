/**
 * How far a series over x bends away from a straight line: the least-squares parabola through the points, and
 * its bow, the largest gap between the parabola and the chord through its ends, as a share of its rise. A line
 * has bow 0; y = x² from x = 0 has bow 0.25 whatever its offset or scale (the gap x(R − x)/R² peaks at a
 * quarter of the rise). Positive: the series accelerates; negative: it levels off.
 */

export interface Parabola {
  /** y = a + b·t + c·t², with t = (x − x0) ÷ (x1 − x0) running from 0 at the smallest x to 1 at the largest. */
  a: number;
  b: number;
  c: number;
}

/** Least-squares parabola through (xs, ys); throws RangeError with fewer than three distinct x values. */
export function parabolaFit(xs: readonly number[], ys: readonly number[]): Parabola {
  if (xs.length !== ys.length) throw new RangeError(`parabolaFit: xs and ys differ in length (${xs.length} vs ${ys.length})`);
  const x0 = Math.min(...xs);
  const range = Math.max(...xs) - x0;
  if (new Set(xs).size < 3 || !(range > 0)) throw new RangeError('parabolaFit: needs at least 3 distinct x values');
  // Normal equations in t (well conditioned: t in [0, 1]).
  const s = [0, 0, 0, 0, 0];
  const r = [0, 0, 0];
  xs.forEach((x, i) => {
    const t = (x - x0) / range;
    const y = ys[i]!;
    if (!Number.isFinite(y)) throw new RangeError(`parabolaFit: point ${i} is not finite (y ${y})`);
    for (let k = 0; k < 5; k++) s[k]! += t ** k;
    for (let k = 0; k < 3; k++) r[k]! += y * t ** k;
  });
  const m = [
    [s[0]!, s[1]!, s[2]!],
    [s[1]!, s[2]!, s[3]!],
    [s[2]!, s[3]!, s[4]!],
  ];
  const det = (q: number[][]) =>
    q[0]![0]! * (q[1]![1]! * q[2]![2]! - q[1]![2]! * q[2]![1]!) -
    q[0]![1]! * (q[1]![0]! * q[2]![2]! - q[1]![2]! * q[2]![0]!) +
    q[0]![2]! * (q[1]![0]! * q[2]![1]! - q[1]![1]! * q[2]![0]!);
  const d = det(m);
  const solve = (col: number) => det(m.map((row, i) => row.map((v, j) => (j === col ? r[i]! : v)))) / d;
  return { a: solve(0), b: solve(1), c: solve(2) };
}

/** The parabola's bow as a share of its rise (NaN when it does not rise: a bow of nothing means nothing). */
export function bowShare(p: Parabola): number {
  const rise = p.b + p.c;
  if (!(rise > 0)) return NaN;
  return p.c / 4 / rise;
}
