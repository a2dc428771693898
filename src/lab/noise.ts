// One noise warning per run, and only when noise changes a conclusion: a figure whose 95 % interval is wider than
// ±10 % of its median, or a witness that saw real contention. It names the figures affected, says whose the spread
// is (the experiment's own concurrency where it runs more tasks at once than CPUs, or the machine's) and gives advice
// that fits the run (no --pin to a pinned run, no --repeats where there is none). src/lab/warnings.ts adds it to a run.
import { medianRankInterval } from '../stats/ranks.js';
import { contentionSigns, formatWitness, type NoiseWitness } from '../env/witness.js';
import { keyValueWords } from '../text/words.js';
import type { Measurement, TasksAtOnce, Warning } from '../experiments/contract/types.js';

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
  /** Its configuration's tasks at once where they outnumber the CPUs ("4 creator threads on 2 CPUs"); null: they fit. */
  crowded: string | null;
}

/** A measurement's tasks beyond the CPUs, in words; null when they fit or nothing is known. */
function crowding(at: TasksAtOnce | null, cpusFallback: number | null): string | null {
  const cpus = at?.cpus ?? cpusFallback;
  if (!at || cpus === null || at.tasks <= cpus) return null;
  return `${at.what} on ${cpus} CPU${cpus === 1 ? '' : 's'}`;
}

/** The noise figure a measurement is pooled into, named: its series and those of the keys it has (but the series itself) in words. */
function noiseFigureLabel(m: Measurement, keys: readonly string[]): string {
  const parts = keys.filter((k) => m.identity[k] !== undefined && m.identity[k] !== m.series).map((k) => keyValueWords(k, m.identity[k]));
  return parts.length ? `${m.series} (${parts.join(', ')})` : m.series;
}

/**
 * The timed figures of a run: ok measurements pooled by series and the experiment's identifying fields,
 * each with its median's distribution-free 95 % interval, and whether its configuration ran more tasks at once than
 * CPUs (`tasksOf`: the experiment's concurrency; `cpusFallback`: the CPUs where a measurement does not say).
 */
export function noiseFigures(
  ms: readonly Measurement[],
  keys: readonly string[],
  tasksOf: (m: Measurement) => TasksAtOnce | null = () => null,
  cpusFallback: number | null = null,
): NoiseFigure[] {
  const groups = new Map<string, number[]>();
  const crowdedBy = new Map<string, string | null>();
  for (const m of ms) {
    if (m.state !== 'ok' || m.samplesNs.length === 0) continue;
    const label = noiseFigureLabel(m, keys);
    const g = groups.get(label) ?? [];
    for (const x of m.samplesNs) g.push(x);
    groups.set(label, g);
    crowdedBy.set(label, crowdedBy.get(label) ?? crowding(tasksOf(m), cpusFallback));
  }
  const out: NoiseFigure[] = [];
  for (const [label, samples] of groups) {
    if (samples.length < MIN_SAMPLES) continue;
    samples.sort((a, b) => a - b);
    const ci = medianRankInterval(samples, 0.95);
    if (!(ci.medianNs > 0)) continue;
    const half = Math.max(ci.medianNs - ci.lowNs, ci.highNs - ci.medianNs) / ci.medianNs;
    out.push({ label, n: samples.length, medianNs: ci.medianNs, lowNs: ci.lowNs, highNs: ci.highNs, halfWidthFraction: half, crowded: crowdedBy.get(label) ?? null });
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
  /** The command that reruns the experiment with no more tasks than CPUs ("forklab contend --creators 1"); absent: none. */
  aloneCommand?: string | null;
}

/** Whose the noise of a run is, as far as the run can tell. */
export type MachineNoise =
  /** The figures that ran within the CPUs are tight, and the witness saw nothing the run does not cause itself. */
  | { state: 'quiet' }
  /** The witness saw contention from outside the run (in a run within the CPUs: any contention). */
  | { state: 'busy'; signs: string[] }
  /** Figures that ran within the CPUs are wide, and the witness saw nothing the run could not have caused itself. */
  | { state: 'spread' }
  /** Every figure ran more tasks at once than CPUs: this run cannot tell the machine's noise from its own. */
  | { state: 'unmeasured' };

export interface NoiseJudgement {
  /** Figures wider than ±WIDE_FRACTION, widest first. */
  wide: NoiseFigure[];
  /** Of those, the ones whose configuration ran more tasks at once than CPUs: the experiment's own spread. */
  own: NoiseFigure[];
  /** Of those, the ones that ran within the CPUs. */
  alone: NoiseFigure[];
  /** Figures that ran within the CPUs, wide or not: the machine's noise is judged on them. */
  aloneCount: number;
  /** Whether any figure ran more tasks at once than CPUs. */
  crowded: boolean;
  /** In a crowded run, the witness's signs its own tasks count in (tasks waiting for a CPU, the probe preempted). */
  ownSigns: string[];
  machine: MachineNoise;
}

const pct = (f: number) => `${Math.round(f * 100)} %`;

/** Whose the spread of a run's figures is: the experiment's own concurrency, or the machine (typed, before any words). */
export function judgeNoise(c: Pick<NoiseContext, 'figures' | 'witness'>): NoiseJudgement {
  const wide = c.figures.filter((f) => f.halfWidthFraction > WIDE_FRACTION).sort((a, b) => b.halfWidthFraction - a.halfWidthFraction);
  const own = wide.filter((f) => f.crowded !== null);
  const alone = wide.filter((f) => f.crowded === null);
  const aloneCount = c.figures.filter((f) => f.crowded === null).length;
  const crowded = c.figures.some((f) => f.crowded !== null);
  const signs = c.witness ? contentionSigns(c.witness) : [];
  // A run within the CPUs causes no wait of its own beyond what one task makes: every sign is the machine's.
  const ownSigns = crowded ? signs.filter((s) => s.kind === 'cpu-wait').map((s) => s.text) : [];
  const outside = crowded ? signs.filter((s) => s.kind !== 'cpu-wait').map((s) => s.text) : signs.map((s) => s.text);
  const machine: MachineNoise =
    outside.length > 0 ? { state: 'busy', signs: outside } : crowded && aloneCount === 0 ? { state: 'unmeasured' } : alone.length > 0 ? { state: 'spread' } : { state: 'quiet' };
  return { wide, own, alone, aloneCount, crowded, ownSigns, machine };
}

function advice(c: NoiseContext, j: NoiseJudgement): string {
  const more = ['--repeats', '--iterations'].filter((f) => c.flags.includes(f));
  const tips: string[] = [];
  if (j.machine.state === 'busy') tips.push('rerun when the machine is quieter (`forklab doctor` shows load and pressure now)');
  // The machine's noise alone, where this run could not separate it from its own: a run within the CPUs, whose witness counts no task of its own beyond them.
  const unseparated = j.machine.state === 'unmeasured' || (j.machine.state === 'spread' && j.ownSigns.length > 0);
  const alone =
    unseparated && c.aloneCommand ? `To see the machine's noise alone: \`${c.aloneCommand}\` (no more tasks than CPUs, so its witness counts none of the run's own). ` : '';
  if (more.length && j.wide.length) tips.push(`raise ${more.join(' or ')} (the interval narrows with more samples)`);
  // Pinning only where it can isolate: a spare CPU beside the one pinned to (on 2 CPUs pinning changes the figures themselves).
  const allowed = c.cpusAllowed ?? [];
  if (c.pinnedCpu === null && allowed.length > 2 && !j.crowded) tips.push(`pin with --pin ${allowed[allowed.length - 1]} to keep the probe on one CPU`);
  return `${alone}${tips.length ? `To tighten: ${tips.join('; ')}.` : ''}`.trim();
}

const listed = (fs: readonly NoiseFigure[]) => {
  const shown = fs.slice(0, 4).map((f) => `${f.label} ±${pct(f.halfWidthFraction)}`);
  return `${shown.join(', ')}${fs.length > shown.length ? ` and ${fs.length - shown.length} more` : ''}`;
};
/** The tasks-beyond-CPUs phrases of some figures, at most two named. */
const crowdings = (fs: readonly NoiseFigure[]) => {
  const all = [...new Set(fs.map((f) => f.crowded))];
  return `${all.slice(0, 2).join(', ')}${all.length > 2 ? ', …' : ''}`;
};
/** "the 2 figures … are", "the figure … is": a count of the figures that ran within the CPUs. */
const withinCpus = (n: number) => (n === 1 ? 'the figure that ran within the CPUs is' : `the ${n} figures that ran within the CPUs are`);
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The words of a run that runs one task at a time (every experiment but those with a concurrency). */
function soloHead(c: NoiseContext, j: NoiseJudgement): string {
  const busy = j.machine.state === 'busy' ? `the machine was busy during the run (${j.machine.signs.join('; ')})` : '';
  if (j.wide.length === 0)
    return `Every interval is within ±${pct(WIDE_FRACTION)}, but ${busy}: the medians may sit above a quiet machine's; compare them with runs whose witness is alike.`;
  return (
    `${j.wide.length} of ${c.figures.length} figures have a 95 % interval wider than ±${pct(WIDE_FRACTION)} of the median: ${listed(j.wide)}. ` +
    `Differences smaller than that between these figures are not established${busy ? `; ${busy}` : " (no contention seen: the spread is the measured operation's own)"}.`
  );
}

/** The words of a run that keeps more tasks runnable than CPUs in some configurations: whose each spread is. */
function crowdedHead(c: NoiseContext, j: NoiseJudgement): string {
  // Tight figures and a busy machine: its signs are all from outside the run, as in a run of one task.
  if (j.wide.length === 0) return soloHead(c, j);
  const parts: string[] = [];
  if (j.own.length)
    parts.push(
      `${j.own.length} of ${c.figures.length} figures, of configurations that run more tasks at once than CPUs (${crowdings(j.own)}), have a 95 % interval wider than ±${pct(WIDE_FRACTION)} of the median: ${listed(j.own)}. ` +
        'That spread is the experiment’s own: its tasks take turns on the CPUs, so a sample includes time spent waiting for one, whatever else the machine runs; differences smaller than it between those figures are not established.',
    );
  const ownWait = j.ownSigns.length ? ` (the witness saw ${j.ownSigns.join('; ')}, but the run’s own tasks count in that)` : '';
  const m = j.machine;
  if (m.state === 'quiet')
    parts.push(`${capital(withinCpus(j.aloneCount))} within ±${pct(WIDE_FRACTION)}${ownWait}: no sign of machine noise in ${j.aloneCount === 1 ? 'it' : 'them'}.`);
  else if (m.state === 'unmeasured') parts.push(`Every figure ran more tasks at once than CPUs, so this run cannot tell the machine’s noise from its own${ownWait}.`);
  else {
    if (j.alone.length)
      parts.push(
        `${j.alone.length === j.aloneCount ? capital(withinCpus(j.aloneCount)) : `${j.alone.length} of the ${j.aloneCount} figures that ran within the CPUs ${j.alone.length === 1 ? 'is' : 'are'}`} wide as well: ${listed(j.alone)}; the run’s concurrency does not explain ${j.alone.length === 1 ? 'it' : 'them'}.`,
      );
    if (m.state === 'busy') parts.push(`The machine was busy during the run (${m.signs.join('; ')}).`);
    else parts.push(j.ownSigns.length ? `Whether the machine was busy this run cannot tell${ownWait}.` : "No contention seen: that spread is the measured operation's own.");
  }
  return parts.join(' ');
}

/** The run's one noise warning, or null when noise changes no conclusion. */
export function noiseWarning(c: NoiseContext): Warning | null {
  const j = judgeNoise(c);
  if (j.wide.length === 0 && j.machine.state !== 'busy') return null;
  const head = j.crowded ? crowdedHead(c, j) : soloHead(c, j);
  const seen = c.witness ? ` Witness: ${formatWitness(c.witness)}.` : '';
  const tip = advice(c, j);
  return { code: 'noise', message: `${head}${seen}${tip ? ` ${tip}` : ''}` };
}
