/**
 * Few repeats, honest width. The hierarchical bootstrap (resample.ts) draws repeats (fresh probe processes) with
 * replacement; with R of them it sees their spread through R values only, which understates it by √((R − 1) ÷ R)
 * and ignores how poorly R values pin a spread down. An interval over R repeats is therefore widened about its
 * point by t(R − 1) ÷ z · √(R ÷ (R − 1)) at its confidence, the small-sample factor of a mean over R clusters: at
 * 95 %, 9.2× for two repeats, 2.7× for three, 1.8× for five, 1.3× for ten, towards 1 with many. One repeat:
 * nothing to widen by (the verdict says its interval shows iteration noise only).
 *
 * A multiplicative quantity (a time, a ratio of times) is widened on the log scale, where timing noise is
 * symmetric: each edge k times as many-fold from the point. On the linear scale a ratio of 8× with a lower edge
 * at 5× widened 2.7 times reaches 0×, a value no ratio of two positive times can take. A difference, a slope or
 * a share, which may pass through 0, is widened on the linear scale.
 */

/** The standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) => (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/** Student's t quantile: exact for 1 and 2 degrees of freedom, Cornish–Fisher (four terms) from 3 on. */
function tQuantile(p: number, df: number): number {
  if (df === 1) return Math.tan(Math.PI * (p - 0.5));
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
  const z = normalQuantile(p);
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  const z9 = z ** 9;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

/** The factor an interval at `confidence` over `repeats` clusters is widened by (1 for one repeat). */
export function clusterWidening(repeats: number, confidence = 0.95): number {
  if (!(repeats >= 2)) return 1;
  const p = 1 - (1 - confidence) / 2;
  const df = repeats - 1;
  return (tQuantile(p, df) / normalQuantile(p)) * Math.sqrt(repeats / df);
}

/**
 * The interval widened about the point by `k`: each side k times as far from the point, on the log scale when
 * `multiplicative` and the interval lies above 0, else on the linear scale.
 */
export function widen(point: number, low: number, high: number, k: number, multiplicative = false): { low: number; high: number } {
  if (k === 1 || !Number.isFinite(low) || !Number.isFinite(high)) return { low, high };
  if (multiplicative && low > 0 && point > 0) return { low: point * (low / point) ** k, high: point * (high / point) ** k };
  return { low: point - k * (point - low), high: point + k * (high - point) };
}
