/**
 * Seeded pseudo-random numbers for reproducible resampling.
 *
 * mulberry32 is a tiny 32-bit-state generator (Tommy Ettinger). It is not
 * cryptographic and its period is 2^32, which is ample for bootstrap
 * resampling (2000 x a few hundred draws), and it is fast and deterministic
 * across platforms because it uses only 32-bit integer arithmetic.
 */

/**
 * Returns a generator of floats in [0, 1). The same seed always yields the
 * same sequence. `seed` must be an integer; it is reduced modulo 2^32.
 */
export function mulberry32(seed: number): () => number {
  if (!Number.isInteger(seed)) {
    throw new RangeError(`mulberry32: seed must be an integer, got ${seed}`);
  }
  let state = seed >>> 0;
  return function next(): number {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
