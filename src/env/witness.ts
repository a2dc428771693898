// The noise witness: what the machine did *during* a run, from counters read before and after it
// (CPU pressure stall time, steal and iowait ticks) and from the probes' own scheduling counters
// (involuntary context switches, CPU migrations). Pure functions over read values; the reading is in
// machine.ts (sampleLoad) and the runner (each probe's "usage" line). Inside a container /proc/pressure describes
// the host; the cgroup's own cpu.pressure and cpu.stat (throttling by a CPU quota) describe this workload.

import type { CgroupCpuSample } from './isolation.js';

/** A probe's "usage" line (runner/protocol.ts ProbeUsage), structurally. */
interface ProbeUsage {
  nivcsw: number;
  nvcsw: number;
  childNivcsw: number | null;
  migrations: number | null;
}

/** The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. */
export interface CpuTicks {
  /** Every field summed (user nice system idle iowait irq softirq steal; guest time is inside user). */
  total: number;
  iowait: number;
  steal: number;
}

/** Parses the first "cpu " line of /proc/stat; null when it is missing or malformed. */
export function parseProcStatCpu(text: string): CpuTicks | null {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return null;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  if (v.length < 4 || v.some((x) => !Number.isFinite(x) || x < 0)) return null;
  // user nice system idle iowait irq softirq steal guest guest_nice: guest and guest_nice are already in user/nice.
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total, iowait: v[4] ?? 0, steal: v[7] ?? 0 };
}

/** The probes' counters summed over a run. */
export interface ProbeUsageTotals {
  /** Probe processes that reported their counters. */
  probes: number;
  /** Probe processes that ended without reporting them (failed or cancelled). */
  probesWithoutUsage: number;
  /** Wall time of the probes that reported, in ms (setup included). */
  probeMs: number;
  involuntarySwitches: number;
  voluntarySwitches: number;
  childInvoluntarySwitches: number;
  /** Null when no probe could read its migrations. */
  migrations: number | null;
}

export function emptyUsageTotals(): ProbeUsageTotals {
  return { probes: 0, probesWithoutUsage: 0, probeMs: 0, involuntarySwitches: 0, voluntarySwitches: 0, childInvoluntarySwitches: 0, migrations: null };
}

/** Adds one probe process to the totals (in place). */
export function addProbeUsage(t: ProbeUsageTotals, usage: ProbeUsage | undefined, durationMs: number): void {
  if (!usage) {
    t.probesWithoutUsage++;
    return;
  }
  t.probes++;
  t.probeMs += durationMs;
  t.involuntarySwitches += usage.nivcsw;
  t.voluntarySwitches += usage.nvcsw;
  if (usage.childNivcsw !== null) t.childInvoluntarySwitches += usage.childNivcsw;
  if (usage.migrations !== null) t.migrations = (t.migrations ?? 0) + usage.migrations;
}

/** The witness of a stored run, from its load samples before and after (null when they lack the counters). */
export function witnessOfLoad(load: { before: LoadCounters; after: LoadCounters | null }, wallMs: number, pinnedCpu: number | null): NoiseWitness | null {
  const a = load.after;
  if (!a || a.cpuTicks === undefined) return null;
  return computeWitness({
    wallMs,
    pressureBeforeUs: load.before.cpuPressure?.someTotalUs ?? null,
    pressureAfterUs: a.cpuPressure?.someTotalUs ?? null,
    ticksBefore: load.before.cpuTicks ?? null,
    ticksAfter: a.cpuTicks ?? null,
    probes: a.probes ?? null,
    pinnedCpu,
    cgroupBefore: load.before.cgroupCpu ?? null,
    // Undefined for a run recorded before the cgroup was read: then the witness has no cgroup fields.
    cgroupAfter: a.cgroupCpu,
  });
}

/** The parts of a load sample the witness reads. */
export interface LoadCounters {
  cpuPressure: { someTotalUs: number } | null;
  cpuTicks?: CpuTicks | null;
  probes?: ProbeUsageTotals;
  cgroupCpu?: CgroupCpuSample | null;
}

/** What the witness saw over one run. Percentages are of the run's wall time (pressure) or of all CPU time (steal, iowait). */
export interface NoiseWitness {
  wallMs: number;
  /** Time in which some runnable task waited for a CPU (/proc/pressure/cpu "some" total), ms and % of wall time. */
  cpuPressureStallMs: number | null;
  cpuPressurePercent: number | null;
  /** CPU time the hypervisor gave to others (steal) and time idle waiting for I/O, % of all CPU time. */
  stealPercent: number | null;
  iowaitPercent: number | null;
  probes: number;
  /** Involuntary context switches of the probes (preempted while runnable), in all and per second of probe time. */
  probeInvoluntarySwitches: number | null;
  probeInvoluntaryPerS: number | null;
  /** CPU migrations of the probes (only meaningful when pinned: then it should be 0). */
  migrations: number | null;
  pinnedCpu: number | null;
  /** The cgroup's own cpu.pressure "some" stall, % of wall time (absent for runs recorded before it was read). */
  cgroupPressurePercent?: number | null;
  /** Enforcement periods in which the cgroup's CPU quota ran out during the run, and the time it was throttled. */
  throttledPeriods?: number | null;
  throttledMs?: number | null;
  /** Why the run counts as contended; empty when it does not. */
  contention: string[];
}

/** Thresholds above which the witness calls a run contended. */
const CONTENTION = {
  /** % of wall time with a runnable task waiting for a CPU. */
  cpuPressurePercent: 10,
  /** % of CPU time stolen by the hypervisor. */
  stealPercent: 5,
  /** Probe preemptions per second of probe time (a quiet machine gives a handful). */
  probeInvoluntaryPerS: 50,
} as const;

export interface WitnessInput {
  wallMs: number;
  pressureBeforeUs: number | null;
  pressureAfterUs: number | null;
  ticksBefore: CpuTicks | null;
  ticksAfter: CpuTicks | null;
  probes: ProbeUsageTotals | null;
  pinnedCpu: number | null;
  cgroupBefore?: CgroupCpuSample | null;
  cgroupAfter?: CgroupCpuSample | null;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
/** A stall as % of wall time, at most 100: "some" stall time cannot exceed the time that passed, but its counter and
 * the wall clock are read at slightly different moments, which on a short run could print "100.1 %". */
const stallPercent = (stallUs: number, wallMs: number) => Math.min(100, round1((100 * stallUs) / 1000 / wallMs));

export function computeWitness(i: WitnessInput): NoiseWitness {
  const stallUs = i.pressureBeforeUs !== null && i.pressureAfterUs !== null ? Math.max(0, i.pressureAfterUs - i.pressureBeforeUs) : null;
  const cpuPressurePercent = stallUs !== null && i.wallMs > 0 ? stallPercent(stallUs, i.wallMs) : null;
  let stealPercent: number | null = null;
  let iowaitPercent: number | null = null;
  if (i.ticksBefore && i.ticksAfter) {
    const dt = i.ticksAfter.total - i.ticksBefore.total;
    if (dt > 0) {
      stealPercent = Math.min(100, round1((100 * Math.max(0, i.ticksAfter.steal - i.ticksBefore.steal)) / dt));
      iowaitPercent = Math.min(100, round1((100 * Math.max(0, i.ticksAfter.iowait - i.ticksBefore.iowait)) / dt));
    }
  }
  const p = i.probes;
  const reported = p !== null && p.probes > 0;
  const perS = reported && p.probeMs > 0 ? round1(p.involuntarySwitches / (p.probeMs / 1000)) : null;
  const cg = cgroupDelta(i.cgroupBefore ?? null, i.cgroupAfter ?? null, i.wallMs);
  const w: Omit<NoiseWitness, 'contention'> = {
    wallMs: Math.round(i.wallMs),
    cpuPressureStallMs: stallUs === null ? null : Math.round(stallUs / 1000),
    cpuPressurePercent,
    stealPercent,
    iowaitPercent,
    probes: p?.probes ?? 0,
    probeInvoluntarySwitches: reported ? p.involuntarySwitches : null,
    probeInvoluntaryPerS: perS,
    migrations: reported ? p.migrations : null,
    pinnedCpu: i.pinnedCpu,
    ...(i.cgroupAfter !== undefined ? cg : {}),
  };
  return { ...w, contention: contentionSigns(w).map((c) => c.text) };
}

/**
 * One sign that a run was contended: what it is, and its sentence. 'cpu-wait' (tasks waited for a CPU, the probe was
 * preempted) counts every runnable task, the run's own among them: a run that keeps more tasks runnable than CPUs
 * makes it itself. Steal, a quota's throttling and a pinned probe's migrations come from outside what the run starts.
 */
export interface ContentionSign {
  kind: 'cpu-wait' | 'steal' | 'migrations' | 'throttled';
  text: string;
}

/** The witness fields the signs are read from. */
type SignFields = Pick<NoiseWitness, 'cpuPressurePercent' | 'stealPercent' | 'probeInvoluntaryPerS' | 'migrations' | 'pinnedCpu'> &
  Partial<Pick<NoiseWitness, 'cgroupPressurePercent' | 'throttledPeriods' | 'throttledMs'>>;

/** Why a run counts as contended, sign by sign (the witness's `contention` holds their sentences); [] when it does not. */
export function contentionSigns(w: SignFields): ContentionSign[] {
  const out: ContentionSign[] = [];
  const at = (x: number | null | undefined, least: number): x is number => x !== null && x !== undefined && x >= least;
  if (at(w.cpuPressurePercent, CONTENTION.cpuPressurePercent)) out.push({ kind: 'cpu-wait', text: `tasks waited for a CPU ${w.cpuPressurePercent} % of the time` });
  if (at(w.stealPercent, CONTENTION.stealPercent)) out.push({ kind: 'steal', text: `the hypervisor took ${w.stealPercent} % of CPU time (steal)` });
  if (at(w.probeInvoluntaryPerS, CONTENTION.probeInvoluntaryPerS)) out.push({ kind: 'cpu-wait', text: `the probe was preempted ${w.probeInvoluntaryPerS} times a second` });
  if (w.pinnedCpu !== null && at(w.migrations, 1)) out.push({ kind: 'migrations', text: `the pinned probe migrated ${w.migrations} times` });
  if (at(w.cgroupPressurePercent, CONTENTION.cpuPressurePercent))
    out.push({ kind: 'cpu-wait', text: `tasks of this cgroup waited for a CPU ${w.cgroupPressurePercent} % of the time` });
  if (at(w.throttledPeriods, 1)) out.push({ kind: 'throttled', text: `the cgroup's CPU quota throttled it in ${w.throttledPeriods} periods (${w.throttledMs ?? '?'} ms)` });
  return out;
}

/** The cgroup's pressure and throttling over a run, from its counters before and after. */
function cgroupDelta(b: CgroupCpuSample | null, a: CgroupCpuSample | null, wallMs: number) {
  const diff = (k: keyof CgroupCpuSample): number | null => {
    const x = b?.[k];
    const y = a?.[k];
    return x === null || x === undefined || y === null || y === undefined ? null : Math.max(0, y - x);
  };
  const stallUs = diff('pressureSomeTotalUs');
  const throttledUs = diff('throttledUs');
  return {
    cgroupPressurePercent: stallUs !== null && wallMs > 0 ? stallPercent(stallUs, wallMs) : null,
    throttledPeriods: diff('nrThrottled'),
    throttledMs: throttledUs === null ? null : Math.round(throttledUs / 1000),
  };
}

/** One line for people: "CPU pressure 12.3 %, steal 0 %, iowait 0.1 %, probe preempted 40/s, 0 migrations". */
export function formatWitness(w: NoiseWitness): string {
  const parts: string[] = [];
  parts.push(w.cpuPressurePercent === null ? 'CPU pressure unknown' : `CPU pressure ${w.cpuPressurePercent} % of ${(w.wallMs / 1000).toFixed(1)} s`);
  if (w.stealPercent !== null) parts.push(`steal ${w.stealPercent} %`);
  if (w.iowaitPercent !== null) parts.push(`iowait ${w.iowaitPercent} %`);
  if (w.probeInvoluntarySwitches !== null)
    parts.push(`probes preempted ${w.probeInvoluntarySwitches} times (${w.probeInvoluntaryPerS ?? '?'}/s over ${w.probes} probe${w.probes === 1 ? '' : 's'})`);
  if (w.pinnedCpu !== null && w.migrations !== null) parts.push(`${w.migrations} migrations off CPU ${w.pinnedCpu}`);
  if (w.cgroupPressurePercent !== null && w.cgroupPressurePercent !== undefined) parts.push(`cgroup CPU pressure ${w.cgroupPressurePercent} %`);
  if (w.throttledPeriods !== null && w.throttledPeriods !== undefined) parts.push(`throttled in ${w.throttledPeriods} periods (${w.throttledMs ?? '?'} ms)`);
  return parts.join(', ');
}
