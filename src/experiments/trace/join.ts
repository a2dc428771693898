// The recorders' calls joined with strace's creations. A call that names its child's pid (Node's ChildProcess,
// spawnSync's result) is joined by that pid and its creator's; one that cannot (execSync, a spawn that failed,
// every Python audit event, which fires before the child exists) by its process, its thread and its time: the
// first creation of that thread after the call began, before the call returned (Node) or before the thread's
// next recorded call (Python). Both sides use the wall clock (strace -ttt, the recorders' own), with a slack for
// their resolution. Nothing is dropped: a call with no creation and a creation with no call are counted.
import type { Creation } from './model.js';
import type { RecordedCall } from './recorder.js';

/** Calls that replace the process (os.exec*): no child is created, so none is looked for. */
export const REPLACES_ITSELF: ReadonlySet<string> = new Set(['os.exec']);

/** Seconds either side of a call's window a creation may lie (clock resolution, a recorder's µs rounding). */
const SLACK_S = 0.002;
/** Python's window when the thread records nothing more: a creation later than this after the event is not its. */
const OPEN_WINDOW_S = 5;

export interface JoinedCall {
  call: RecordedCall;
  creation: Creation | null;
  /** How the creation was found: by the child's pid, by the thread and time, or not at all. */
  by: 'pid' | 'time' | null;
}

export interface Join {
  calls: JoinedCall[];
  /** Creations of processes that recorded calls, which no recorded call accounts for (a native addon, an internal spawn). */
  unrecorded: Creation[];
  /** Processes (pids) with at least one recorded call. */
  recordedPids: Set<number>;
  /** The programs those processes ran when they made the calls ("pid|program"; a shell that exec'd Python is two). */
  recordedPrograms: Set<string>;
}

/** The key of a process running one program: a pid that exec'd another program is another key. */
export const programKey = (pid: number, program: string | null) => `${pid}|${program ?? ''}`;

/** The thread strace names for a recorded call, when the runtime tells it: Python's native id; Node's main thread is its pid. */
function straceThread(c: RecordedCall): number | null {
  if (c.runtime === 'python') return c.thread;
  return c.thread === 0 ? c.pid : null;
}

export function joinRecords(calls: readonly RecordedCall[], creations: readonly Creation[]): Join {
  const used = new Set<Creation>();
  const byChild = new Map<number, Creation[]>();
  for (const c of creations) {
    const xs = byChild.get(c.child);
    if (xs) xs.push(c);
    else byChild.set(c.child, [c]);
  }
  const out: JoinedCall[] = calls.map((call) => ({ call, creation: null, by: null }));
  // 1. By the child's pid (and the creator's), nearest in time when a pid was reused.
  for (const j of out) {
    const c = j.call;
    if (c.child === null) continue;
    const found = (byChild.get(c.child) ?? []).filter((x) => x.pid === c.pid && !used.has(x)).sort((a, b) => Math.abs(a.startS - c.t0) - Math.abs(b.startS - c.t0))[0];
    if (found) {
      used.add(found);
      j.creation = found;
      j.by = 'pid';
    }
  }
  // 2. By process, thread and time, in time order per thread.
  const rest = out.filter((j) => j.creation === null && !REPLACES_ITSELF.has(j.call.fn));
  const nextOnThread = new Map<JoinedCall, number>();
  const byThread = new Map<string, JoinedCall[]>();
  for (const j of out) {
    const k = `${j.call.pid}|${j.call.thread}`;
    const xs = byThread.get(k);
    if (xs) xs.push(j);
    else byThread.set(k, [j]);
  }
  for (const xs of byThread.values()) {
    xs.sort((a, b) => a.call.t0 - b.call.t0);
    for (let i = 0; i < xs.length - 1; i++) nextOnThread.set(xs[i]!, xs[i + 1]!.call.t0);
  }
  const byCreator = new Map<number, Creation[]>();
  for (const c of [...creations].sort((a, b) => a.startS - b.startS)) {
    const xs = byCreator.get(c.pid);
    if (xs) xs.push(c);
    else byCreator.set(c.pid, [c]);
  }
  for (const j of rest.sort((a, b) => a.call.t0 - b.call.t0)) {
    const c = j.call;
    const end = c.t1 ?? Math.min(nextOnThread.get(j) ?? Number.POSITIVE_INFINITY, c.t0 + OPEN_WINDOW_S);
    const tid = straceThread(c);
    const found = (byCreator.get(c.pid) ?? []).find(
      (x) => !used.has(x) && (tid === null || x.tid === tid) && x.startS >= c.t0 - SLACK_S && x.startS <= end + (c.t1 === null ? 0 : SLACK_S),
    );
    if (found) {
      used.add(found);
      j.creation = found;
      j.by = 'time';
    }
  }
  const recordedPids = new Set(calls.map((c) => c.pid));
  // What ran in a recorded process when it made its calls: the program of its joined creations; a process none of
  // whose calls was joined counts by its pid alone.
  const recordedPrograms = new Set(out.flatMap((j) => (j.creation ? [programKey(j.creation.pid, j.creation.program)] : [])));
  const joinedPids = new Set(out.flatMap((j) => (j.creation ? [j.creation.pid] : [])));
  const unrecorded = creations.filter((c) => !used.has(c) && recordedPids.has(c.pid) && (joinedPids.has(c.pid) ? recordedPrograms.has(programKey(c.pid, c.program)) : true));
  return { calls: out, unrecorded, recordedPids, recordedPrograms };
}
