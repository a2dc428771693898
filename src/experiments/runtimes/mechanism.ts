// Which system call a runtime used to start a child, observed with strace rather than assumed: one traced
// start per variant under `strace -f -e trace=clone,clone3,fork,vfork,execve`, classified by a pure function.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../../runner/command.js';

/** How the child that ran the target was created. */
export type SpawnMechanism =
  /** clone without CLONE_VM (glibc fork()), or the fork system call: the parent's page tables are copied. */
  | 'fork'
  /** the vfork system call: the parent is suspended, its memory shared until the child execs. */
  | 'vfork'
  /** clone/clone3 with CLONE_VM|CLONE_VFORK: what glibc's posix_spawn does. */
  | 'posix_spawn'
  /** clone/clone3 with CLONE_VM but without CLONE_VFORK: shared memory, the parent not suspended. */
  | 'clone-vm';

/** Every mechanism, in the order they are told apart. */
export const SPAWN_MECHANISMS = ['fork', 'vfork', 'posix_spawn', 'clone-vm'] as const satisfies readonly SpawnMechanism[];

export type MechanismResult =
  | {
      state: 'observed';
      mechanism: SpawnMechanism;
      /** The system call as strace named it (clone, clone3, fork, vfork). */
      syscall: string;
      /** Its CLONE_* flags, for clone and clone3; null otherwise. */
      flags: string | null;
      /** Programs the child executed before the target (e.g. Java's jspawnhelper), in order. */
      helpers: string[];
    }
  | { state: 'unknown'; why: string };

interface Call {
  pid: number;
  name: string;
  /** Everything after "name(" up to the end of the call, the resumed part appended. */
  text: string;
  ret: number | null;
  order: number;
}

const START = /^([a-z_0-9]+)\((.*)$/;
const RESUMED = /^<\.\.\. ([a-z_0-9]+) resumed>(.*)$/;
const RETURN = /\)\s+=\s+(-?\d+)(?:\s.*)?$/;
const UNFINISHED = /\s*<unfinished \.\.\.>\s*$/;

/** Splits "1234 text" or "[pid 1234] text" into the thread id and the text; 0 for the first process. */
function splitPid(line: string): { pid: number; text: string } {
  const m = /^(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?(.*)$/.exec(line)!;
  return { pid: Number(m[1] ?? m[2] ?? 0), text: m[3]! };
}

const retOf = (s: string): number | null => {
  const m = RETURN.exec(s);
  return m ? Number(m[1]) : null;
};

/** Every system call in the trace, with unfinished calls joined to their resumed halves. */
export function parseStrace(lines: readonly string[]): Call[] {
  const calls: Call[] = [];
  const pending = new Map<string, Call>();
  lines.forEach((raw, order) => {
    const { pid, text } = splitPid(raw.trimEnd());
    const resumed = RESUMED.exec(text);
    if (resumed) {
      const key = `${pid}:${resumed[1]}`;
      const c = pending.get(key);
      if (!c) return;
      pending.delete(key);
      c.text += resumed[2];
      c.ret = retOf(resumed[2]!);
      return;
    }
    const start = START.exec(text);
    if (!start) return; // signals, exits, strace's own notes
    const call: Call = { pid, name: start[1]!, text: start[2]!, ret: null, order };
    if (UNFINISHED.test(text)) {
      call.text = call.text.replace(UNFINISHED, '');
      pending.set(`${pid}:${call.name}`, call);
    } else call.ret = retOf(text);
    calls.push(call);
  });
  return calls;
}

const execPath = (c: Call): string | null => /^"((?:[^"\\]|\\.)*)"/.exec(c.text)?.[1] ?? null;
const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const CREATORS = new Set(['clone', 'clone3', 'fork', 'vfork']);

function cloneFlags(c: Call): string | null {
  const m = /flags=([A-Z_0-9|]+)/.exec(c.text);
  return m ? m[1]! : null;
}

/**
 * Classifies how the process that executed `target` was created, from strace -f output. Threads
 * (CLONE_THREAD) are ignored: only the call whose return value is the pid that ran the target counts.
 */
export function classifyTrace(lines: readonly string[], target: string): MechanismResult {
  const calls = parseStrace(lines);
  const exec = calls.find((c) => c.name === 'execve' && c.ret === 0 && execPath(c) === target);
  if (!exec) return { state: 'unknown', why: `the trace shows no successful execve of ${target}` };
  const child = exec.pid;
  const created = calls.find((c) => CREATORS.has(c.name) && c.ret === child);
  if (!created) return { state: 'unknown', why: `the trace does not show which call created process ${child}` };
  const helpers = calls.filter((c) => c.pid === child && c.name === 'execve' && c.ret === 0 && c.order < exec.order).map((c) => baseName(execPath(c) ?? '?'));
  const flags = created.name === 'clone' || created.name === 'clone3' ? cloneFlags(created) : null;
  let mechanism: SpawnMechanism;
  if (created.name === 'vfork') mechanism = 'vfork';
  else if (created.name === 'fork') mechanism = 'fork';
  else {
    const set = new Set((flags ?? '').split('|'));
    if (!set.has('CLONE_VM')) mechanism = 'fork';
    else mechanism = set.has('CLONE_VFORK') ? 'posix_spawn' : 'clone-vm';
  }
  return { state: 'observed', mechanism, syscall: created.name, flags, helpers };
}

/** "posix_spawn (clone3 CLONE_VM|CLONE_VFORK) → jspawnhelper → target", or why it is unknown. */
export function describeMechanism(r: MechanismResult): string {
  if (r.state === 'unknown') return `unknown (${r.why})`;
  const how = r.flags
    ? `${r.syscall} ${
        r.flags
          .split('|')
          .filter((f) => f === 'CLONE_VM' || f === 'CLONE_VFORK')
          .join('|') || 'no CLONE_VM'
      }`
    : r.syscall;
  return `${r.mechanism} (${how})${r.helpers.map((h) => ` → exec ${h}`).join('')}`;
}

/** Whether a mechanism copies the parent's page tables, so that its cost grows with the parent's memory. */
export function copiesPageTables(m: SpawnMechanism): boolean {
  return m === 'fork';
}

const STRACE_SYSCALLS = 'clone,clone3,fork,vfork,execve';

export interface TraceRequest {
  strace: string;
  /** The driver command (executable and leading arguments), its case and key=value arguments. */
  command: readonly string[];
  caseName: string;
  args: Record<string, string | number>;
  target: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Runs the driver once under strace (one timed start: "run 1"), and classifies what it did. */
export async function traceMechanism(req: TraceRequest): Promise<MechanismResult> {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-strace-'));
  const out = join(dir, 'trace.txt');
  try {
    const argv = [
      '-f',
      '-qq',
      '--seccomp-bpf',
      '-e',
      `trace=${STRACE_SYSCALLS}`,
      '-o',
      out,
      ...req.command,
      req.caseName,
      ...Object.entries(req.args).map(([k, v]) => `${k}=${v}`),
    ];
    const r = await runCommand(req.strace, argv, { timeoutMs: req.timeoutMs, input: 'run 1\nstop\n', ...(req.signal ? { signal: req.signal } : {}) });
    if (r.state === 'failed') return { state: 'unknown', why: `strace: ${r.why}` };
    let text: string;
    try {
      text = readFileSync(out, 'utf8');
    } catch (e) {
      return { state: 'unknown', why: `strace wrote no trace (${(e as Error).message})` };
    }
    return classifyTrace(text.split('\n'), req.target);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
