// The pooled scatter of a run's repeats (src/stats/repeat-pool.ts) for the claims: every cell of the judged data
// (a configuration, its repeats apart) with its statistic repeat by repeat, and the probes it shares with others.
// Only for timings of experiments whose series are not paired: a paired design resamples its shared iterations.
import type { CheckStatistic } from '../reference/published.js';
import { repeatPool, type CellRepeats, type RepeatPool } from '../stats/repeat-pool.js';
import type { ExperimentData } from './data.js';
import { identityKey, statistic } from './select.js';

const cache = new WeakMap<ExperimentData, Map<CheckStatistic, RepeatPool | null>>();

/** The pooled repeat scatter of these data's timings for a statistic; null when paired or too few repeats. */
export function poolOf(data: ExperimentData, stat: CheckStatistic): RepeatPool | null {
  if (data.paired) return null;
  const known = cache.get(data) ?? new Map<CheckStatistic, RepeatPool | null>();
  cache.set(data, known);
  if (known.has(stat)) return known.get(stat)!;
  const cells = new Map<string, { byRepeat: Map<number, number>; probe: string | null }>();
  for (const c of data.configs) {
    if (!Array.isArray(c.samplesNs) || c.samplesNs.length === 0) continue;
    const id = identityKey(data, c);
    const cell = cells.get(id) ?? { byRepeat: new Map<number, number>(), probe: data.probeKeys ? JSON.stringify(data.probeKeys.map((k) => c[k] ?? null)) : null };
    cell.byRepeat.set(c.repeat, statistic(c.samplesNs, stat));
    cells.set(id, cell);
  }
  // repeat r of every configuration was measured in round r (runs judged together are numbered on): rounds are blocks
  const pool = repeatPool([...cells.values()] as CellRepeats[], { rounds: true });
  known.set(stat, pool);
  return pool;
}
