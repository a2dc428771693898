/**
 * Ordinary least squares fit of y = slope * x + intercept, e.g. to turn costs
 * measured at several memory sizes into a per-byte (slope) and a fixed
 * (intercept) cost.
 */

export interface LinearFit {
  slope: number;
  intercept: number;
  /** Coefficient of determination in [0, 1]; 1 for a perfect fit. */
  r2: number;
  n: number;
}

/**
 * OLS fit. r2 = Sxy^2 / (Sxx * Syy), which equals 1 - SSres / SStot for a fit
 * with intercept. When every y is equal the horizontal line fits perfectly:
 * slope 0, intercept y, r2 1.
 * Throws a RangeError if the arrays differ in length, contain non-finite
 * values, or have fewer than 2 distinct x values.
 */
export function linearFit(xs: readonly number[], ys: readonly number[]): LinearFit {
  const n = xs.length;
  if (ys.length !== n) {
    throw new RangeError(`linearFit: xs and ys must have the same length (${n} vs ${ys.length})`);
  }
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMin = Infinity;
  let yMax = -Infinity;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new RangeError(`linearFit: point ${i} is not finite (x ${x}, y ${y})`);
    }
    if (x < xMin) xMin = x;
    if (x > xMax) xMax = x;
    if (y < yMin) yMin = y;
    if (y > yMax) yMax = y;
    sx += x;
    sy += y;
  }
  if (n < 2 || xMin === xMax) {
    throw new RangeError(`linearFit: needs at least 2 distinct x values (got ${n} point(s))`);
  }
  if (yMin === yMax) {
    return { slope: 0, intercept: yMin, r2: 1, n };
  }
  const xBar = sx / n;
  const yBar = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - xBar;
    const dy = ys[i]! - yBar;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  const slope = sxy / sxx;
  const intercept = yBar - slope * xBar;
  // Clamp against rounding; mathematically 0 <= r2 <= 1.
  const r2 = Math.min(1, Math.max(0, (sxy * sxy) / (sxx * syy)));
  return { slope, intercept, r2, n };
}

/**
 * How much the least-squares line changes over its x range: its value at the largest x ÷ its value at the smallest
 * (1: flat; 1.25: up a quarter). NaN where the line is at or below 0 at either end: no ratio of costs.
 */
export function fittedChange(xs: readonly number[], ys: readonly number[]): number {
  const f = linearFit(xs, ys);
  const start = f.intercept + f.slope * Math.min(...xs);
  const end = f.intercept + f.slope * Math.max(...xs);
  return start > 0 && end > 0 ? end / start : NaN;
}
