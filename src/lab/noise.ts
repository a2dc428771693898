// One noise warning per run, and only when noise changes a conclusion: a figure whose 95 % interval is wider than
// ±10 % of its median, or a witness that saw real contention. It names the figures affected and gives advice that
// fits the run (no --pin to a pinned run, no --repeats where there is none). src/lab/warnings.ts adds it to a run.
import { medianRankInterval } from '../stats/ranks.js';
import { formatWitness, type NoiseWitness } from '../env/witness.js';
import { keyValueWords } from '../text/words.js';
import type { Measurement, Warning } from '../experiments/contract/types.js';

/** A figure is judged wide when its interval reaches further than this fraction from its median. */
const WIDE_FRACTION = 0.1;
/** Figures with fewer pooled samples are not judged (no useful interval). */
const MIN_SAMPLES = 10;

export interface NoiseFigure {
  label: string;
  n: number;
  medianNs: number;
  lowNs: number;
  highNs: number;
  /** max(median − low, high − median) ÷ median. */
  halfWidthFraction: number;
}

function labelOf(m: Measurement, keys: readonly string[]): string {
  const parts = keys.filter((k) => m.identity[k] !== undefined && m.identity[k] !== m.series).map((k) => keyValueWords(k, m.identity[k]));
  return parts.length ? `${m.series} (${parts.join(', ')})` : m.series;
}

/**
 * The timed figures of a run: ok measurements pooled by series and the experiment's identifying fields,
 * each with its median's distribution-free 95 % interval.
 */
export function noiseFigures(ms: readonly Measurement[], keys: readonly string[]): NoiseFigure[] {
  const groups = new Map<string, number[]>();
  for (const m of ms) {
    if (m.state !== 'ok' || m.samplesNs.length === 0) continue;
    const label = labelOf(m, keys);
    const g = groups.get(label) ?? [];
    for (const x of m.samplesNs) g.push(x);
    groups.set(label, g);
  }
  const out: NoiseFigure[] = [];
  for (const [label, samples] of groups) {
    if (samples.length < MIN_SAMPLES) continue;
    samples.sort((a, b) => a - b);
    const ci = medianRankInterval(samples, 0.95);
    if (!(ci.medianNs > 0)) continue;
    const half = Math.max(ci.medianNs - ci.lowNs, ci.highNs - ci.medianNs) / ci.medianNs;
    out.push({ label, n: samples.length, medianNs: ci.medianNs, lowNs: ci.lowNs, highNs: ci.highNs, halfWidthFraction: half });
  }
  return out;
}

export interface NoiseContext {
  figures: readonly NoiseFigure[];
  witness: NoiseWitness | null;
  pinnedCpu: number | null;
  /** CPUs this process may run on (for pinning advice); null when unknown. */
  cpusAllowed: readonly number[] | null;
  /** Flags of the command that ran ("--repeats", "--iterations", ...): advice only names those. */
  flags: readonly string[];
}

const pct = (f: number) => `${Math.round(f * 100)} %`;

function advice(c: NoiseContext, contended: boolean): string {
  const more = ['--repeats', '--iterations'].filter((f) => c.flags.includes(f));
  const tips: string[] = [];
  if (contended) tips.push('rerun when the machine is quieter (`forklab doctor` shows load and pressure now)');
  if (more.length) tips.push(`raise ${more.join(' or ')} (the interval narrows with more samples)`);
  // Pinning only where it can isolate: a spare CPU beside the one pinned to (on 2 CPUs pinning changes the figures themselves).
  const allowed = c.cpusAllowed ?? [];
  if (c.pinnedCpu === null && allowed.length > 2) tips.push(`pin with --pin ${allowed[allowed.length - 1]} to keep the probe on one CPU`);
  return tips.length ? `To tighten: ${tips.join('; ')}.` : '';
}

/** The run's one noise warning, or null when noise changes no conclusion. */
export function noiseWarning(c: NoiseContext): Warning | null {
  const wide = c.figures.filter((f) => f.halfWidthFraction > WIDE_FRACTION).sort((a, b) => b.halfWidthFraction - a.halfWidthFraction);
  const contended = (c.witness?.contention.length ?? 0) > 0;
  if (wide.length === 0 && !contended) return null;
  const seen = c.witness ? ` Witness: ${formatWitness(c.witness)}.` : '';
  const busy = contended ? `the machine was busy during the run (${c.witness!.contention.join('; ')})` : '';
  let head: string;
  if (wide.length) {
    const shown = wide.slice(0, 4).map((f) => `${f.label} ±${pct(f.halfWidthFraction)}`);
    const rest = wide.length > shown.length ? ` and ${wide.length - shown.length} more` : '';
    head =
      `${wide.length} of ${c.figures.length} figures have a 95 % interval wider than ±${pct(WIDE_FRACTION)} of the median: ${shown.join(', ')}${rest}. ` +
      `Differences smaller than that between these figures are not established${contended ? `; ${busy}` : " (no contention seen: the spread is the measured operation's own)"}.`;
  } else {
    head = `Every interval is within ±${pct(WIDE_FRACTION)}, but ${busy}: the medians may sit above a quiet machine's; compare them with runs whose witness is alike.`;
  }
  const tip = advice(c, contended);
  return { code: 'noise', message: `${head}${seen}${tip ? ` ${tip}` : ''}` };
}
