// Helpers of the experiments whose one probe times several series in the same iterations (create, exec):
// a batched plan, per-series summaries and their warnings, the memory check (their measurements per series:
// measurementsPerSeries, measure.ts).
import type { SamplingPlan, SeriesData } from '../../runner/probe.js';
import { pooledSeriesStats } from './measure.js';
import { probeFailedWarnings } from './failures.js';
import type { Measurement, Warning } from '../contract/types.js';
import { HEADROOM_BYTES, requireMemory } from './preflight.js';

/** Warm-up, then `iterations` timed iterations in batches of `batch` (so the runner can stop between batches). */
export function batchedPlan(warmupIterations: number, iterations: number, batch = 250): SamplingPlan {
  const count = (m: ReadonlyMap<string, SeriesData>) => [...m.values()].reduce((a, s) => Math.max(a, s.samplesNs.length), 0);
  return { warmupIterations, next: (m) => Math.max(0, Math.min(batch, iterations - count(m))) };
}

export interface SeriesSummary {
  series: string;
  n: number;
  minNs: number;
  medianNs: number;
  ciLowNs: number;
  ciHighNs: number;
  p90Ns: number;
  meanNs: number;
  cv: number;
  /** Median and min of each probe process that succeeded, in repeat order. */
  repeatMediansNs: number[];
  repeatMinsNs: number[];
  failedRepeats: number;
}

/** Pools the ok repeats of one series. Null when none succeeded. */
export function summarizeSeries(ms: readonly Measurement[], series: string, seed: number): SeriesSummary | null {
  const mine = ms.filter((m) => m.series === series);
  const ok = mine.filter((m) => m.state === 'ok' && m.stats);
  const st = pooledSeriesStats(ok, () => true, seed);
  if (!st) return null;
  return {
    series,
    n: st.n,
    minNs: st.minNs,
    medianNs: st.medianNs,
    ciLowNs: st.ciLowNs,
    ciHighNs: st.ciHighNs,
    p90Ns: st.p90Ns,
    meanNs: st.meanNs,
    cv: st.cv,
    repeatMediansNs: ok.map((m) => m.stats!.medianNs),
    repeatMinsNs: ok.map((m) => m.stats!.minNs),
    failedRepeats: mine.length - ok.length,
  };
}

/** Probe failures, one line per failed probe process. */
export function seriesWarnings(ms: readonly Measurement[]): Warning[] {
  // Noise (wide intervals, contention) is judged once per run by the runner: experiments/noise.ts.
  return probeFailedWarnings(ms, (m) => `probe process ${m.repeat}`, { distinct: true, advice: 'Its series are left out; rerun to fill them in.' });
}

/** Rough bytes per recorded sample across the probe line, the parsed arrays, the stats copies and the JSON document. */
const BYTES_PER_SAMPLE = 160;

export function checkSamplesFit(samples: number, flag: string): void {
  const need = samples * BYTES_PER_SAMPLE + HEADROOM_BYTES;
  requireMemory(
    flag,
    need,
    (mb) =>
      `${samples} samples need about ${Math.ceil(need / 2 ** 20)} MB to record and analyse, and this machine can give about ${mb} MB more. Use fewer --iterations or --repeats.`,
  );
}
