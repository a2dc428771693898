// Runs the user's command under strace (or attaches strace to a running process), writes strace's output to a
// file of its own, and samples VmRSS and VmPTE of every traced process from /proc while it runs. The command
// keeps forklab's standard input, output, error and environment; Ctrl-C and SIGTERM reach it; nothing it
// started is left running when forklab ends, unless it was running before (--pid).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ForklabError } from '../../errors.js';
import { addSample, type ProcSample } from './figures.js';

const TRACED_CALLS = 'clone,clone3,fork,vfork,execve,exit_group';

export interface Tracer {
  name: 'strace';
  path: string;
  version: string | null;
  /** This strace can print the native stack of each call (-k: built with libunwind or libdw). */
  stackTraces: boolean;
}

/** strace from PATH; a ForklabError naming the package to install when there is none. */
export function findTracer(env: NodeJS.ProcessEnv = process.env): Tracer {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, 'strace');
    try {
      accessSync(path, constants.X_OK);
    } catch {
      continue;
    }
    const v = spawnSync(path, ['-V'], { encoding: 'utf8', timeout: 5000 });
    const out = String(v.stdout ?? '');
    const version = /version\s+(\S+)/.exec(out)?.[1] ?? null;
    return { name: 'strace', path, version, stackTraces: /stack-trace=/.test(out) };
  }
  throw new ForklabError('usage', 'no tracer found: strace is not in PATH', {
    hint: 'install it: apt-get install strace (Debian, Ubuntu), dnf install strace (Fedora), apk add strace (Alpine)',
  });
}

/** Whether forklab itself runs under a tracer (gdb, strace): strace's --seccomp-bpf then cannot work. */
function beingTraced(): boolean {
  try {
    return /^TracerPid:\s+[1-9]/m.test(readFileSync('/proc/self/status', 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The strace arguments for a trace: follow children, time each call, wall-clock times, output to outFile; with
 * stacks, the native frames of each traced call (-k).
 */
export function straceArgs(outFile: string, mode: { command: string[] } | { pid: number }, o: { stacks?: boolean; seccomp?: boolean } = {}): string[] {
  const seccomp = o.seccomp ?? !beingTraced();
  const common = ['-f', '-T', '-ttt', '-q', '-s', '256', ...(o.stacks ? ['-k'] : []), '-e', `trace=${TRACED_CALLS}`, '-e', 'signal=none', '-o', outFile];
  if ('pid' in mode) return [...common, '-p', String(mode.pid)];
  // --seccomp-bpf stops the tracee only at the traced calls (far less overhead); strace allows it only for a command.
  return [...(seccomp ? ['--seccomp-bpf'] : []), ...common, '--', ...mode.command];
}

/** Every live descendant of pid (its children's children too), from /proc/PID/task/TID/children. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length) {
    const p = queue.shift()!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      let kids: string;
      try {
        kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const k of kids.split(/\s+/).filter(Boolean).map(Number))
        if (!seen.has(k)) {
          seen.add(k);
          out.push(k);
          queue.push(k);
        }
    }
  }
  return out;
}

/** VmRSS and VmPTE of a process now; null when it is gone (or a kernel thread without them). */
function readProcSample(pid: number): ProcSample | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const rssKb = kb('VmRSS');
  const pteKb = kb('VmPTE');
  if (rssKb === null || pteKb === null) return null;
  return { pid, atS: Date.now() / 1000, rssKb, pteKb };
}

/** Whether this process is in the foreground of its terminal: then Ctrl-C reached the traced command too. */
function inTerminalForeground(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(f[2]);
    const tpgid = Number(f[5]);
    return tpgid > 0 && tpgid === pgrp;
  } catch {
    return false;
  }
}

/** Attached, after asking strace to detach: when it is killed if it is still there. */
const DETACH_LIMIT_MS = 10_000;

export type EndedBy = 'exit' | 'interrupt' | 'duration' | 'process-ended';

export interface Observation {
  tracer: Tracer;
  tracerArgs: string[];
  startedS: number;
  endedS: number;
  /** strace's end: with a command it is the command's (status, or the signal that killed it). */
  exit: { code: number | null; signal: NodeJS.Signals | null };
  endedBy: EndedBy;
  /** The signal forklab received and passed on (Ctrl-C, SIGTERM), null when none. */
  interrupt: NodeJS.Signals | null;
  /** Processes the command left running after an interrupt (a background job that ignores SIGINT), killed by forklab. */
  leftEnded: number;
  /** Attached: strace did not detach when asked (twice) and was killed; the process ran on. */
  tracerKilled: boolean;
  samples: ProcSample[];
  /** What strace itself wrote to standard error (attach mode only; with a command it shares the command's). */
  tracerStderr: string;
}

export interface ObserveOptions {
  tracer: Tracer;
  outFile: string;
  sampleMs: number;
  mode: { command: string[] } | { pid: number; durationMs: number | null };
  /** strace -k: the native frames of each creating call. */
  stacks: boolean;
  /** The command's environment (the recorders added to it); default forklab's own. */
  env?: NodeJS.ProcessEnv;
  /** Called once the tracer runs (the observer's pid, for tests and progress lines). */
  onStart?(pid: number): void;
}

/** Runs the trace to its end; resolves with what was observed (never rejects for the command's own failure). */
export function observe(o: ObserveOptions): Promise<Observation> {
  const attach = 'pid' in o.mode;
  const args = straceArgs(o.outFile, attach ? { pid: (o.mode as { pid: number }).pid } : (o.mode as { command: string[] }), { stacks: o.stacks });
  const samples: ProcSample[] = [];
  const lastSample = new Map<number, ProcSample>();
  const startedS = Date.now() / 1000;
  const child = spawn(o.tracer.path, args, { stdio: attach ? ['ignore', 'ignore', 'pipe'] : 'inherit', ...(o.env ? { env: o.env } : {}) });
  let tracerStderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    tracerStderr += d.toString('utf8');
  });
  const root = attach ? (o.mode as { pid: number }).pid : null;
  // Every process seen in the traced tree, by its start time (a pid the kernel reuses is another process): one whose
  // parent ended is reparented out of the tree, and is still followed by strace, sampled, and ended if left behind.
  const seen = new Map<number, string>();
  const traced = (): number[] => {
    if (!child.pid) return [];
    const now = root !== null ? [root, ...descendants(root)] : descendants(child.pid);
    for (const p of now) if (!seen.has(p)) seen.set(p, startTime(p) ?? '');
    for (const [p, t] of seen) if (!now.includes(p) && (startTime(p) !== t || !alive(p))) seen.delete(p);
    return [...seen.keys()];
  };
  let endedBy: EndedBy | null = null;
  let interrupt: NodeJS.Signals | null = null;
  let interrupts = 0;
  // The command itself (strace's child), and after an interrupt, what it left running once it has ended.
  let commandPid: number | null = null;
  let leftEnded = 0;
  const sample = () => {
    const pids = traced();
    if (!attach && commandPid === null && child.pid) commandPid = commandOf(child.pid);
    if (!attach && interrupt !== null && commandPid !== null && !alive(commandPid)) {
      for (const p of pids)
        if (p !== commandPid && alive(p)) {
          safeKill(p, 'SIGKILL');
          leftEnded++;
        }
      return;
    }
    for (const pid of pids) {
      const s = readProcSample(pid);
      if (s) addSample(samples, lastSample, s);
    }
  };
  sample();
  const timer = setInterval(sample, o.sampleMs);
  const onSignal = (sig: NodeJS.Signals) => {
    interrupt ??= sig;
    interrupts++;
    if (attach) {
      endedBy ??= 'interrupt';
      detach();
      return;
    }
    endedBy ??= 'interrupt';
    const kids = traced();
    // The command is known from here on even if no sample has run since it started: once it has ended, what it
    // left running is ended too (without this, a background job that ignores SIGINT outlived an early Ctrl-C).
    if (commandPid === null && child.pid) commandPid = commandOf(child.pid);
    if (interrupts > 1) {
      for (const p of kids) safeKill(p, 'SIGKILL');
      child.kill('SIGKILL');
      return;
    }
    // A Ctrl-C at a terminal reached the whole foreground group, the command included: do not send it twice.
    if (sig === 'SIGINT' && inTerminalForeground()) return;
    for (const p of kids) safeKill(p, sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Attached: SIGINT makes strace detach and leave the process running. strace 6.1 can deadlock there: in 2 of 19
  // loaded runs of the --duration case the traced shell waited in vfork (state D, kernel_clone) for its child, the
  // child sat in a ptrace stop, and strace waited in wait4 for a stop of the shell that never came, for good. So a
  // tracer still there DETACH_LIMIT_MS later is killed: the kernel detaches a dead tracer's tracees, and they run on
  // (ptrace(2)); what strace had written stays in its file. Killing only the tracer, never the process, is safe
  // however loaded the machine is.
  let detachTimer: NodeJS.Timeout | null = null;
  let tracerKilled = false;
  const detach = () => {
    child.kill('SIGINT');
    detachTimer ??= setTimeout(() => {
      tracerKilled = true;
      child.kill('SIGKILL');
    }, DETACH_LIMIT_MS);
  };
  let durationTimer: NodeJS.Timeout | null = null;
  if (attach && (o.mode as { durationMs: number | null }).durationMs !== null)
    durationTimer = setTimeout(
      () => {
        endedBy ??= 'duration';
        detach();
      },
      (o.mode as { durationMs: number }).durationMs,
    );
  if (child.pid) o.onStart?.(child.pid);
  return new Promise((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearInterval(timer);
      if (durationTimer) clearTimeout(durationTimer);
      if (detachTimer) clearTimeout(detachTimer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve({
        tracer: o.tracer,
        tracerArgs: args,
        startedS,
        endedS: Date.now() / 1000,
        exit: { code, signal },
        endedBy: endedBy ?? (attach ? 'process-ended' : 'exit'),
        interrupt,
        leftEnded,
        tracerKilled,
        samples,
        tracerStderr,
      });
    };
    child.on('error', (e) => {
      tracerStderr += `${e.message}\n`;
      finish(127, null);
    });
    child.on('exit', finish);
  });
}

/**
 * The traced command: the child of strace that has exec'd (its command line is no longer strace's). strace forks
 * children of its own before the command (tests of what ptrace can do, killed or ended at once), and the command's
 * own child runs strace's code until its exec: taking strace's first child for the command, as this did before,
 * named one of those under load, and an interrupt then took the command for ended and killed it (exit 137).
 * Null until the command has exec'd.
 */
export function commandOf(tracerPid: number): number | null {
  const own = cmdline(tracerPid);
  if (own === null) return null;
  for (const kid of childrenOf(tracerPid)) {
    const line = cmdline(kid);
    if (line !== null && line !== '' && line !== own && alive(kid)) return kid;
  }
  return null;
}

function cmdline(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
}

/** The direct children of pid (all its threads'). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((t) => {
    try {
      return readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** A process's start time in clock ticks since boot (/proc/PID/stat field 22), null when it is gone. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether pid is running (a zombie waiting to be reaped is not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function safeKill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}
