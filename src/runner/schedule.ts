// Interleaving: every configuration runs once per round, in a seeded random order per round, so that
// drift over the run (other load, thermal, page cache) hits every configuration alike.
import { mulberry32 } from '../stats/random.js';

export interface Scheduled<C> {
  config: C;
  repeat: number;
}

export function interleave<C>(configs: readonly C[], repeats: number, seed: number): Scheduled<C>[] {
  const rand = mulberry32(seed);
  const out: Scheduled<C>[] = [];
  for (let r = 0; r < repeats; r++) {
    const order = configs.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) out.push({ config: configs[i]!, repeat: r + 1 });
  }
  return out;
}
