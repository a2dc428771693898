// Per creating process: how many children by mechanism, the time in the creating call, its RSS and page-table
// size around the calls (from /proc samples the observer took), what the children ran and how soon.
import { median } from '../../stats/descriptive.js';
import { MECHANISMS, runtimeOf, type Creation, type Mechanism, type Runtime, type TraceModel } from './model.js';

/**
 * One reading of /proc/PID/status: VmRSS and VmPTE in kB, at a wall-clock time in seconds; untilS: the same reading
 * (within 1 %) was taken again until then (the observer keeps one sample for a stretch of equal readings).
 */
export interface ProcSample {
  pid: number;
  atS: number;
  untilS?: number;
  rssKb: number;
  pteKb: number;
}

/** How far from a call a /proc sample may be and still describe the process at that call. */
const SAMPLE_REACH_S = 0.5;

/** Seconds from t to the span a sample covers (0 inside it). */
const distance = (s: ProcSample, t: number) => (t < s.atS ? s.atS - t : Math.max(0, t - (s.untilS ?? s.atS)));

/** The sample of pid that covers a time, else the latest before it, else the earliest after it, within SAMPLE_REACH_S. */
export function sampleAt(byPid: ReadonlyMap<number, readonly ProcSample[]>, pid: number, atS: number): ProcSample | null {
  const xs = byPid.get(pid);
  if (!xs?.length) return null;
  let before: ProcSample | null = null;
  let after: ProcSample | null = null;
  for (const s of xs) {
    if (s.atS <= atS) before = s;
    else {
      after = s;
      break;
    }
  }
  if (before && distance(before, atS) <= SAMPLE_REACH_S) return before;
  return after && distance(after, atS) <= SAMPLE_REACH_S ? after : null;
}

/** Appends a reading, or extends the last one of its process when the reading is the same within 1 %. */
export function addSample(samples: ProcSample[], last: Map<number, ProcSample>, s: ProcSample): void {
  const prev = last.get(s.pid);
  const same = (a: number, b: number) => Math.abs(a - b) <= Math.max(1, 0.01 * b);
  if (prev && same(s.rssKb, prev.rssKb) && same(s.pteKb, prev.pteKb)) {
    prev.untilS = s.atS;
    return;
  }
  samples.push(s);
  last.set(s.pid, s);
}

export function samplesByPid(samples: readonly ProcSample[]): Map<number, ProcSample[]> {
  const out = new Map<number, ProcSample[]>();
  for (const s of samples) {
    const xs = out.get(s.pid);
    if (xs) xs.push(s);
    else out.set(s.pid, [s]);
  }
  for (const xs of out.values()) xs.sort((a, b) => a.atS - b.atS);
  return out;
}

/** One creating call with the creator's size at that moment (null when no sample was near enough). */
export interface CallFigure {
  /** The child it created. */
  child: number;
  mechanism: Mechanism;
  startS: number;
  durationNs: number | null;
  rssKb: number | null;
  pteKb: number | null;
  toExecNs: number | null;
}

export interface Spread {
  n: number;
  sumNs: number;
  medianNs: number;
  maxNs: number;
}

export interface ProcessFigures {
  pid: number;
  program: string | null;
  runtime: Runtime;
  children: number;
  byMechanism: Record<Mechanism, number>;
  /** Children made through a helper exec (Java's jspawnhelper): the helper's path and how many. */
  helper: { path: string; children: number } | null;
  threads: number;
  /** Time in the creating calls, all mechanisms together, and per mechanism. */
  inCall: Spread | null;
  inCallByMechanism: Partial<Record<Mechanism, Spread>>;
  /** The creator's VmRSS and VmPTE at its calls: median and largest, MB and kB; null when never sampled near a call. */
  rssMb: { median: number; max: number } | null;
  pteKb: { median: number; max: number } | null;
  /** What the children ran (the program's base name), most frequent first, and how many never exec'd. */
  ran: { program: string; children: number }[];
  noExec: number;
  /** Forks whose child never exec'd (a worker: multiprocessing, a pre-forking server): posix_spawn cannot replace them. */
  forksWithoutExec: number;
  /** From the creating call's start to the child's first exec. */
  toExec: Spread | null;
  calls: CallFigure[];
}

function spread(ns: readonly number[]): Spread | null {
  if (!ns.length) return null;
  return { n: ns.length, sumNs: ns.reduce((a, b) => a + b, 0), medianNs: median([...ns]), maxNs: Math.max(...ns) };
}

const base = (p: string) => p.split('/').pop()!;

function figuresOf(pid: number, mine: Creation[], threads: number, samples: Map<number, ProcSample[]>): ProcessFigures {
  const byMechanism = Object.fromEntries(MECHANISMS.map((m) => [m, 0])) as Record<Mechanism, number>;
  for (const c of mine) byMechanism[c.mechanism]++;
  const calls: CallFigure[] = mine.map((c) => {
    const s = sampleAt(samples, c.pid, c.startS);
    return {
      child: c.child,
      mechanism: c.mechanism,
      startS: c.startS,
      durationNs: c.durationS === null ? null : Math.round(c.durationS * 1e9),
      rssKb: s?.rssKb ?? null,
      pteKb: s?.pteKb ?? null,
      toExecNs: c.toExecS === null ? null : Math.round(c.toExecS * 1e9),
    };
  });
  const durations = (cs: CallFigure[]) => cs.flatMap((c) => (c.durationNs === null ? [] : [c.durationNs]));
  const inCallByMechanism: Partial<Record<Mechanism, Spread>> = {};
  for (const m of MECHANISMS) {
    const s = spread(durations(calls.filter((c) => c.mechanism === m)));
    if (s) inCallByMechanism[m] = s;
  }
  const rss = calls.flatMap((c) => (c.rssKb === null ? [] : [c.rssKb / 1024]));
  const pte = calls.flatMap((c) => (c.pteKb === null ? [] : [c.pteKb]));
  const ranCount = new Map<string, number>();
  for (const c of mine) if (c.exec) ranCount.set(base(c.exec.path), (ranCount.get(base(c.exec.path)) ?? 0) + 1);
  const helpers = mine.filter((c) => c.helper);
  const program = mine[0]?.program ?? null;
  return {
    pid,
    program,
    runtime: runtimeOf(program),
    children: mine.length,
    byMechanism,
    helper: helpers.length ? { path: helpers[0]!.helper!, children: helpers.length } : null,
    threads,
    inCall: spread(durations(calls)),
    inCallByMechanism,
    rssMb: rss.length ? { median: median(rss), max: Math.max(...rss) } : null,
    pteKb: pte.length ? { median: median(pte), max: Math.max(...pte) } : null,
    ran: [...ranCount].map(([program, children]) => ({ program, children })).sort((a, b) => b.children - a.children || a.program.localeCompare(b.program)),
    noExec: mine.filter((c) => !c.exec).length,
    forksWithoutExec: mine.filter((c) => c.mechanism === 'fork' && c.toExecS === null).length,
    toExec: spread(mine.flatMap((c) => (c.toExecS === null ? [] : [Math.round(c.toExecS * 1e9)]))),
    calls,
  };
}

/** The figures of every process that created at least one child, most time in creating calls first. */
export function processFigures(model: TraceModel, samples: readonly ProcSample[]): ProcessFigures[] {
  // One entry per process and program: a process that exec'd between its calls (a shell that became node) is two.
  const groups = new Map<string, Creation[]>();
  for (const c of model.creations) {
    const k = `${c.pid}|${c.program ?? ''}`;
    const g = groups.get(k);
    if (g) g.push(c);
    else groups.set(k, [c]);
  }
  const s = samplesByPid(samples);
  return [...groups.values()]
    .map((mine) => figuresOf(mine[0]!.pid, mine, model.threadsByPid[mine[0]!.pid] ?? 0, s))
    .sort((a, b) => (b.inCall?.sumNs ?? 0) - (a.inCall?.sumNs ?? 0) || a.pid - b.pid);
}
