/**
 * Few repeats, honest width. The hierarchical bootstrap (resample.ts) draws repeats (fresh probe processes) with
 * replacement; with R of them it sees their spread through R values only, which understates it by √((R − 1) ÷ R)
 * and ignores how poorly R values pin a spread down. A 95 % interval over R repeats is therefore widened about its
 * point by t(R − 1) ÷ z · √(R ÷ (R − 1)), the small-sample factor of a mean over R clusters: 9.2× for two repeats,
 * 2.7× for three, 1.8× for five, 1.3× for ten, towards 1 with many. One repeat: nothing to widen by (the verdict
 * says its interval shows iteration noise only).
 */

/** Two-sided 97.5 % quantiles of Student's t for 1…30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056,
  2.052, 2.048, 2.045, 2.042,
];
const Z975 = 1.959964;

/** The factor a 95 % bootstrap interval over `repeats` clusters is widened by (1 for one repeat). */
export function clusterWidening(repeats: number): number {
  if (!(repeats >= 2)) return 1;
  const df = repeats - 1;
  const t = df <= T975.length ? T975[df - 1]! : Z975 + 2.4 / df;
  return (t / Z975) * Math.sqrt(repeats / df);
}

/** The interval widened about the point by `k` (each side k times as far from the point). */
export function widen(point: number, low: number, high: number, k: number): { low: number; high: number } {
  if (k === 1 || !Number.isFinite(low) || !Number.isFinite(high)) return { low, high };
  return { low: point - k * (point - low), high: point + k * (high - point) };
}
