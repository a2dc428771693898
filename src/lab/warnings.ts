// The warnings a run's life adds to what the experiment itself says: too few samples for an interval, and the
// one noise warning (src/lab/noise.ts) from the run's figures and what the machine did meanwhile.
import { cpusAllowed } from '../env/process.js';
import type { NoiseWitness } from '../env/witness.js';
import type { Experiment, ExperimentRun, Measurement, Warning } from '../experiments/contract/types.js';
import { findExperiment, findSweep } from '../experiments/index.js';
import { noiseFigures, noiseWarning } from './noise.js';

/**
 * Fewest samples a 95 % interval of a median can be drawn from: with n samples the widest distribution-free
 * interval, [min, max], covers the median with probability 1 − 2·0.5ⁿ, which reaches 95 % only from n = 6.
 */
const MIN_SAMPLES_FOR_INTERVAL = 6;

/** A warning when a timed configuration (its repeats pooled) has too few samples for its interval to mean anything. */
export function fewSamplesWarnings(run: ExperimentRun): Warning[] {
  // An experiment whose figures are outcomes (deadlock: whether the child got the lock) shows no interval to warn about.
  if (findExperiment(run.experiment)?.figures === 'outcomes') return [];
  const counts = new Map<string, { series: string; n: number }>();
  for (const m of run.measurements) {
    if (m.state !== 'ok' || m.samplesNs.length === 0) continue;
    const key = JSON.stringify([m.series, m.identity]);
    counts.set(key, { series: m.series, n: (counts.get(key)?.n ?? 0) + m.samplesNs.length });
  }
  const few = [...counts.values()].filter((c) => c.n < MIN_SAMPLES_FOR_INTERVAL);
  if (few.length === 0) return [];
  // The flag that gives those series more samples: --iterations, or the experiment's own for a series it sets otherwise.
  const own = findSweep(run.experiment)?.samplesFlag ?? {};
  const flags = [...new Set(few.map((c) => own[c.series] ?? '--iterations'))];
  const series = [...new Set(few.map((c) => c.series))];
  return [
    {
      code: 'too-few-samples',
      message:
        `${few.length} configuration${few.length === 1 ? ' has' : 's have'} fewer than ${MIN_SAMPLES_FOR_INTERVAL} samples (${series.join(', ')}; as few as ${Math.min(...few.map((c) => c.n))}): ` +
        `a 95 % interval of a median needs at least ${MIN_SAMPLES_FOR_INTERVAL}, so the intervals shown for them are not 95 % intervals. ` +
        `Rerun with ${flags.map((f) => `${f} ${MIN_SAMPLES_FOR_INTERVAL}`).join(' and ')} or more${flags.includes('--iterations') ? ' (or more --repeats)' : ''}.`,
    },
  ];
}

/** The run's one noise warning from its figures and its witness; [] when noise changes nothing. */
export function runNoiseWarnings(
  exp: Pick<Experiment<unknown, unknown>, 'name' | 'options' | 'figureKeys' | 'identity' | 'concurrency'>,
  run: ExperimentRun,
  witness: NoiseWitness | null,
  pinCpu: number | null,
): Warning[] {
  const allowed = cpusAllowed();
  const tasksOf = exp.concurrency ? (m: Measurement) => exp.concurrency!.of(m) : undefined;
  const figures = exp.figureKeys === null ? [] : noiseFigures(run.measurements, exp.figureKeys ?? exp.identity ?? [], tasksOf, allowed?.length ?? null);
  const flags = exp.options.map((o) => o.flags.split(/[ ,]/)[0]!);
  const aloneCommand = exp.concurrency ? `forklab ${exp.name} ${exp.concurrency.alone}` : null;
  const w = noiseWarning({ figures, witness, pinnedCpu: pinCpu, cpusAllowed: allowed, flags, aloneCommand });
  return w ? [w] : [];
}
