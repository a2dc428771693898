// What a run document must mean, beyond its shape (validate.ts): an experiment this forklab knows, samples a
// measured call can take, and per-configuration statistics that are those of its raw samples. A document that
// disagrees with itself is refused, so that `show` (which recomputes from the samples) and `report` (which reads
// the stored statistics) can never print two different medians for one run.
import { describe } from '../stats/descriptive.js';
import { timingProblem } from '../stats/evidence.js';
import type { RunDocument } from '../document/run.js';
import { DocumentError } from '../document/validate.js';

/** No single measured call takes a day: a larger sample is not a measurement (1e308 ns, say). */
export const MAX_SAMPLE_NS = 86_400e9;

const STAT_KEYS = ['minNs', 'medianNs', 'meanNs', 'p90Ns', 'p99Ns', 'maxNs'] as const;

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 + 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Throws DocumentError naming the first problem: an unknown experiment (`known` is the experiment registry's
 * names), a sample beyond MAX_SAMPLE_NS, or stored statistics that the samples do not give.
 */
export function checkDocumentMeaning(doc: RunDocument, known: readonly string[]): void {
  if (!known.includes(doc.experiment)) throw new DocumentError(`experiment ${JSON.stringify(doc.experiment)} is not one this forklab knows (${known.join(', ')})`);
  doc.configurations.forEach((c, i) => {
    const where = `configurations[${i}]`;
    const samples = c.samplesNs;
    samples.forEach((x, j) => {
      const bad = timingProblem(x);
      if (bad) throw new DocumentError(`${where}.samplesNs[${j}]: ${bad}`);
      if (x > MAX_SAMPLE_NS) throw new DocumentError(`${where}.samplesNs[${j}] is ${x} ns, more than a day: not a measured call`);
    });
    const stats = c.stats;
    if (stats === null || samples.length === 0) return;
    const d = describe(samples);
    for (const k of STAT_KEYS) {
      const stored = stats[k];
      if (!close(stored, d[k]))
        throw new DocumentError(`${where}.stats.${k} is ${stored} but its ${samples.length} samples give ${d[k]}: the statistics disagree with the raw samples`);
    }
    const lo = stats.ciLowNs;
    const hi = stats.ciHighNs;
    if (!(lo <= d.medianNs + 1e-6 && d.medianNs <= hi + 1e-6 && lo >= d.minNs - 1e-6 && hi <= d.maxNs + 1e-6))
      throw new DocumentError(`${where}.stats: the interval [${lo}, ${hi}] does not hold the median ${d.medianNs} within the samples' range [${d.minNs}, ${d.maxNs}]`);
    const conf = stats.ciConfidence;
    if (!(conf > 0 && conf < 1)) throw new DocumentError(`${where}.stats.ciConfidence is ${conf}, not a confidence between 0 and 1`);
  });
}
