// A distribution-free confidence interval of the median from order statistics (binomial, normal
// approximation). Cheap enough to evaluate after every batch, unlike a bootstrap.
import { quantile } from './descriptive.js';

const Z: Record<string, number> = { '0.9': 1.6448536269514722, '0.95': 1.959963984540054, '0.99': 2.5758293035489004 };

export interface RankInterval {
  medianNs: number;
  lowNs: number;
  highNs: number;
}

/** `sorted` ascending. Ranks n/2 ∓ z·√n/2 (1-based, clamped to the sample). */
export function medianRankInterval(sorted: readonly number[], confidence = 0.95): RankInterval {
  const n = sorted.length;
  if (n === 0) throw new RangeError('medianRankInterval: no samples');
  const z = Z[String(confidence)];
  if (z === undefined) throw new RangeError(`medianRankInterval: confidence ${confidence} not one of 0.9, 0.95, 0.99`);
  const half = (z * Math.sqrt(n)) / 2;
  const lo = Math.max(1, Math.floor(n / 2 - half));
  const hi = Math.min(n, Math.ceil(n / 2 + 1 + half));
  return { medianNs: quantile(sorted, 0.5), lowNs: sorted[lo - 1]!, highNs: sorted[hi - 1]! };
}
