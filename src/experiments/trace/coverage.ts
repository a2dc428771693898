// What the call sites cover, said plainly: per runtime, the processes that recorded calls, the recorder's own cost
// per call and at start-up; how many calls were joined with strace's creations (by pid, by time), how many a
// recorder saw that strace did not, and the reverse; and every process that created children without a call site,
// with why (no recorder for its runtime, the recorder not loaded, no native stack).
import { median } from '../../stats/descriptive.js';
import type { ProcessFigures } from './figures.js';
import { joinRecords, programKey, REPLACES_ITSELF, type Join } from './join.js';
import type { Runtime, TraceModel } from './model.js';
import { bySource, callSites, nativeFrame, type PackageSites } from './callsites.js';
import type { SpawnModel } from './cost.js';
import type { FrameReader } from './stack.js';
import type { CallSite } from './site.js';
import { RECORDED_RUNTIMES, type RecordedRuntime, type Records } from './recorder.js';

/** The call sites of a trace, and what covers them. */
export interface CallSiteSummary {
  /** Most saving first (then most forks): every call site, recorded and native. */
  callSites: CallSite[];
  packages: PackageSites[];
  recording: Recording;
  /** Processes that created children and have no call site, and why. */
  uncovered: Uncovered[];
  /** strace -k: on, or off and why (this strace cannot unwind, --no-native-stacks). */
  nativeStacks: { on: true } | { on: false; reason: string };
}

export interface RuntimeRecording {
  runtime: RecordedRuntime;
  /** Processes (and Node worker threads) that recorded at least one call. */
  processes: number;
  threads: number;
  calls: number;
  /** The recorder's own time per call (µs), as it measured itself around its work; null without calls. */
  costUs: { median: number; max: number; total: number } | null;
  /** Its time to load, per process or thread (µs). */
  loadUs: { median: number; max: number } | null;
}

export type Recording =
  | { state: 'off'; reason: string }
  | {
      state: 'on';
      runtimes: RuntimeRecording[];
      /** Recorded calls joined with a creation: by the child's pid, by thread and time. */
      joinedByPid: number;
      joinedByTime: number;
      /** Recorded calls strace saw no creation for (a spawn refused before its clone, say); os.exec* calls apart. */
      recorderOnly: number;
      replacedItself: number;
      /** Creations of processes that recorded calls, which no recorded call accounts for. */
      straceOnly: number;
      unreadLines: number;
    };

/** A process that created children and has no call site: which, and why. */
export interface Uncovered {
  pid: number;
  program: string | null;
  runtime: Runtime;
  children: number;
  why: string;
}

const spread = (xs: number[]) => (xs.length ? { median: median(xs), max: Math.max(...xs) } : null);

function recordingOf(records: Records, join: Join): Recording {
  const runtimes = RECORDED_RUNTIMES.map((runtime): RuntimeRecording => {
    const calls = records.calls.filter((c) => c.runtime === runtime);
    const starts = records.starts.filter((s) => s.runtime === runtime);
    const cost = calls.map((c) => c.costUs);
    return {
      runtime,
      processes: new Set(calls.map((c) => c.pid)).size,
      threads: new Set(calls.map((c) => `${c.pid}|${c.thread}`)).size,
      calls: calls.length,
      costUs: cost.length ? { ...spread(cost)!, total: cost.reduce((a, b) => a + b, 0) } : null,
      loadUs: spread(starts.map((s) => s.loadUs)),
    };
  });
  const unjoined = join.calls.filter((j) => !j.creation);
  return {
    state: 'on',
    runtimes,
    joinedByPid: join.calls.filter((j) => j.by === 'pid').length,
    joinedByTime: join.calls.filter((j) => j.by === 'time').length,
    recorderOnly: unjoined.filter((j) => !REPLACES_ITSELF.has(j.call.fn)).length,
    replacedItself: unjoined.filter((j) => REPLACES_ITSELF.has(j.call.fn)).length,
    straceOnly: join.unrecorded.length,
    unreadLines: records.unreadLines,
  };
}

/** Why a process's children have no call site. */
function whyUncovered(p: ProcessFigures, recording: Recording, stacks: { on: boolean; reason: string }): string {
  const recorded = (RECORDED_RUNTIMES as readonly string[]).includes(p.runtime);
  if (recorded && recording.state === 'on')
    return p.runtime === 'node'
      ? 'its recorder recorded no call (NODE_OPTIONS did not reach it, a worker started with execArgv: [], or children started other than through child_process)'
      : 'its recorder recorded no call (PYTHONPATH did not reach it, python -E, -I or -S, or children started other than through subprocess and os)';
  const what = p.runtime === 'other' ? (p.program?.split('/').pop() ?? 'this program') : p.runtime;
  const noRecorder = recorded ? `recorders off (${recording.state === 'off' ? recording.reason : ''})` : `no recorder for ${what}`;
  if (!stacks.on) return `no call sites are available for ${what}: ${noRecorder}, and ${stacks.reason}`;
  return `no call sites are available for ${what}: ${noRecorder}, and strace -k printed no frame outside the C library`;
}

function uncoveredOf(
  figures: readonly ProcessFigures[],
  /** Processes with call sites, by programKey. */
  covered: ReadonlySet<string>,
  recording: Recording,
  stacks: { on: boolean; reason: string },
): Uncovered[] {
  return figures
    .filter((p) => !covered.has(programKey(p.pid, p.program)))
    .map((p) => ({ pid: p.pid, program: p.program, runtime: p.runtime, children: p.children, why: whyUncovered(p, recording, stacks) }));
}

/** The call sites of a trace and what covers them, from what the recorders wrote and what strace saw. */
export function siteSummary(o: {
  records: Records | null;
  /** Why there are no records (--no-recorders, --pid, the recorders missing); null when they were on. */
  recordersOff: string | null;
  trace: TraceModel;
  figures: readonly ProcessFigures[];
  model: SpawnModel | null;
  reader: FrameReader;
  stacks: { on: true } | { on: false; reason: string };
}): CallSiteSummary {
  const records = o.records ?? { starts: [], calls: [], unreadLines: 0 };
  const join = joinRecords(records.calls, o.trace.creations);
  const sites = callSites({ join, figures: o.figures, creations: o.trace.creations, model: o.model, reader: o.reader });
  const recording: Recording = o.recordersOff !== null ? { state: 'off', reason: o.recordersOff } : recordingOf(records, join);
  const covered = new Set<string>(join.recordedPrograms);
  for (const p of o.figures) if (join.recordedPids.has(p.pid) && (RECORDED_RUNTIMES as readonly string[]).includes(p.runtime)) covered.add(programKey(p.pid, p.program));
  for (const c of o.trace.creations) if (!join.recordedPids.has(c.pid) && c.stack && nativeFrame(c.stack)) covered.add(programKey(c.pid, c.program));
  return {
    callSites: sites,
    packages: bySource(sites),
    recording,
    uncovered: uncoveredOf(o.figures, covered, recording, o.stacks.on ? { on: true, reason: '' } : { on: false, reason: o.stacks.reason }),
    nativeStacks: o.stacks,
  };
}
