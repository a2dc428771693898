// From strace's calls to what an SRE asks: which processes created children, how (fork, vfork, clone with
// CLONE_VM…), how long each creating call took, what each child ran and how soon it exec'd. Pure: the RSS
// samples come in from the observer; nothing here reads /proc.
import { FAMILIES, type Family } from '../runtimes/registry.js';
import { cloneFlags, execArgv, execPath, type StraceLog, type SyscallEvent } from './strace.js';

/**
 * How a child was made: fork (a copy of the parent's page tables: grows with its memory), vfork (shares
 * memory, parent waits until exec), clone-vm-vfork (what posix_spawn does: the same, through clone/clone3),
 * clone-vm (shares memory, parent does not wait).
 */
export type Mechanism = 'fork' | 'vfork' | 'clone-vm-vfork' | 'clone-vm';
export const MECHANISMS: readonly Mechanism[] = ['fork', 'vfork', 'clone-vm-vfork', 'clone-vm'];

/** The runtimes' families (their registry says how each one's programs are named), a shell, or another program. */
export type Runtime = Family | 'shell' | 'other';
export const RUNTIMES: readonly Runtime[] = [...FAMILIES.map((f) => f.family), 'shell', 'other'];

/** What a program is, from its executable's name (node, python3.11, java, perl5.36, bash…). */
export function runtimeOf(exe: string | null): Runtime {
  if (!exe) return 'other';
  const base = exe.split('/').pop()!.toLowerCase();
  if (/^(sh|bash|dash|zsh|ksh|mksh|ash|busybox|fish)$/.test(base)) return 'shell';
  return FAMILIES.find((f) => f.program?.test(base))?.family ?? 'other';
}

/** Programs a runtime execs first, which then exec the real child (Java's jspawnhelper). */
const HELPERS = new Set(['jspawnhelper']);

export interface ChildExec {
  path: string;
  argv: string[];
  atS: number;
}

export interface Creation {
  /** The process (thread group) that created the child, and the thread that made the call. */
  pid: number;
  tid: number;
  child: number;
  mechanism: Mechanism;
  /** The CLONE_* flags of a clone or clone3 call; [] for fork and vfork. */
  flags: string[];
  syscall: string;
  startS: number;
  /** Seconds in the creating call as strace saw it (includes the tracer's own stops); null when not printed. */
  durationS: number | null;
  /** The creator's program (its last exec before the call, or its parent's when it never exec'd). */
  program: string | null;
  /** A helper the child exec'd first (jspawnhelper), null when none. */
  helper: string | null;
  /** What the child finally ran (its last successful exec), null when it never exec'd (a worker fork). */
  exec: ChildExec | null;
  /** Seconds from the start of the creating call to the start of the child's first successful exec. */
  toExecS: number | null;
  /** The creating call's native frames (strace -k), innermost first; null without -k. */
  stack: string[] | null;
}

export interface TraceModel {
  creations: Creation[];
  /** Threads created (CLONE_THREAD): not counted as children, shown for context. */
  threadsByPid: Record<number, number>;
  /** Each process's programs in the order it exec'd them. */
  programs: Record<number, string[]>;
  firstS: number | null;
  lastS: number | null;
  unreadLines: number;
}

function mechanismOf(ev: SyscallEvent, flags: string[]): Mechanism | 'thread' {
  if (ev.name === 'fork') return 'fork';
  if (ev.name === 'vfork') return 'vfork';
  if (flags.includes('CLONE_THREAD')) return 'thread';
  if (flags.includes('CLONE_VM')) return flags.includes('CLONE_VFORK') ? 'clone-vm-vfork' : 'clone-vm';
  return 'fork';
}

/**
 * The creations in a strace log. `known` gives programs strace cannot show (the process --pid attached to);
 * `rootPid` is the first traced process.
 */
export function buildModel(log: StraceLog, opts: { known?: Record<number, string> } = {}): TraceModel {
  const creating = new Set(['clone', 'clone3', 'fork', 'vfork']);
  // Pass 1: which tids are threads of which creator, so every call can be charged to its process.
  const threadOf = new Map<number, number>();
  for (const ev of log.calls) {
    if (!creating.has(ev.name) || ev.ret === null || ev.ret <= 0) continue;
    if (mechanismOf(ev, cloneFlags(ev.args)) === 'thread') threadOf.set(ev.ret, ev.tid);
  }
  const pidOf = (tid: number): number => {
    let t = tid;
    for (let i = 0; i < 64 && threadOf.has(t); i++) t = threadOf.get(t)!;
    return t;
  };
  // Pass 2: programs by process over time, and the creations in call order.
  const programs: Record<number, string[]> = {};
  const execsOf = new Map<number, ChildExec[]>();
  const parentOf = new Map<number, number>();
  const threadsByPid: Record<number, number> = {};
  for (const [pid, exe] of Object.entries(opts.known ?? {})) programs[Number(pid)] = [exe];
  const creations: Creation[] = [];
  const programAt = (pid: number, atS: number): string | null => {
    for (let p: number | undefined = pid, i = 0; p !== undefined && i < 64; p = parentOf.get(p), i++) {
      const mine = (execsOf.get(p) ?? []).filter((e) => e.atS <= atS);
      if (mine.length) return mine[mine.length - 1]!.path;
      const k = opts.known?.[p];
      if (k) return k;
    }
    return null;
  };
  for (const ev of log.calls) {
    const pid = pidOf(ev.tid);
    if (ev.name === 'execve' && ev.ret === 0) {
      const path = execPath(ev.args);
      if (path) {
        const e = { path, argv: execArgv(ev.args), atS: ev.startS };
        const mine = execsOf.get(pid);
        if (mine) mine.push(e);
        else execsOf.set(pid, [e]);
        const progs = programs[pid];
        if (progs) progs.push(path);
        else programs[pid] = [path];
      }
      continue;
    }
    if (!creating.has(ev.name) || ev.ret === null || ev.ret <= 0) continue;
    const flags = cloneFlags(ev.args);
    const mech = mechanismOf(ev, flags);
    if (mech === 'thread') {
      threadsByPid[pid] = (threadsByPid[pid] ?? 0) + 1;
      continue;
    }
    parentOf.set(ev.ret, pid);
    creations.push({
      pid,
      tid: ev.tid,
      child: ev.ret,
      mechanism: mech,
      flags,
      syscall: ev.name,
      startS: ev.startS,
      durationS: ev.durationS,
      program: null,
      helper: null,
      exec: null,
      toExecS: null,
      stack: ev.stack ?? null,
    });
  }
  // Pass 3: programs at each call (needs every exec), and what each child ran.
  for (const c of creations) {
    c.program = programAt(c.pid, c.startS);
    const execs = (execsOf.get(c.child) ?? []).filter((e) => e.atS >= c.startS);
    if (!execs.length) continue;
    const first = execs[0]!;
    const base = first.path.split('/').pop()!;
    c.helper = HELPERS.has(base) && execs.length > 1 ? first.path : null;
    c.exec = execs[c.helper ? 1 : 0]!;
    c.toExecS = first.atS - c.startS;
  }
  const times = log.calls.map((e) => e.startS);
  return {
    creations,
    threadsByPid,
    programs,
    firstS: times.length ? Math.min(...times) : null,
    lastS: times.length ? Math.max(...times) : null,
    unreadLines: log.unreadLines,
  };
}
