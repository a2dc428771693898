// A pure reader of what `strace -f -T -ttt -e trace=clone,clone3,fork,vfork,execve,exit_group -o FILE` writes:
// one event per completed system call, with "<unfinished ...>" and "<... NAME resumed>" halves joined, and the
// native frames strace -k prints under a call kept with it. No I/O.
// Lines this reader does not need (signals, "+++ exited" lines, detach notices) are skipped, never fatal.

/** One completed system call of a traced thread (tid: the thread strace names, not its process). */
export interface SyscallEvent {
  tid: number;
  /** Wall-clock seconds (strace -ttt) at which the call started. */
  startS: number;
  name: string;
  /** The call's arguments as strace printed them (joined across unfinished/resumed halves). */
  args: string;
  /** The return value: a number (a child's pid, 0, -1), or null for `?` (exit_group, a call cut short). */
  ret: number | null;
  /** errno name when the call failed (ENOENT), else null. */
  errno: string | null;
  /** Seconds spent in the call (strace -T), null when strace did not print it. */
  durationS: number | null;
  /** The native frames strace -k printed after the call (`/usr/bin/make(new_job+0x1a3) [0x2f1c3]`), innermost first. */
  stack?: string[];
}

/** A thread or process ending, from a "+++ exited with N +++" or "+++ killed by SIG +++" line. */
export interface ExitEvent {
  tid: number;
  atS: number;
  exitCode: number | null;
  signal: string | null;
}

export interface StraceLog {
  calls: SyscallEvent[];
  exits: ExitEvent[];
  /** Lines that looked like strace output but could not be read (kept for the document, never fatal). */
  unreadLines: number;
}

const LINE = /^(\d+)\s+(\d+\.\d+)\s+(.*)$/;
/** A native frame strace -k prints under a call: " > /usr/lib/x86_64-linux-gnu/libc.so.6(__libc_fork+0x4b) [0xd3ecb]". */
const STACK_LINE = /^ > (.+)$/;
const RESUMED = /^<\.\.\. (\w+) resumed>(.*)$/;
const UNFINISHED = /^(\w+)\((.*) <unfinished \.\.\.>$/;
/** The end of a completed call: ") = RET [ERRNO (text)] [<DURATION>]", after the arguments. */
const RESULT = /^(.*)\)\s+=\s+(-?\d+|\?|0x[0-9a-f]+)(?:\s+([A-Z][A-Z0-9_]+)(?:\s+\([^)]*\))?)?(?:\s+<(\d+\.\d+|unavailable)>)?\s*$/;

function result(name: string, tid: number, startS: number, rest: string): SyscallEvent | null {
  const m = RESULT.exec(rest);
  if (!m) return null;
  const raw = m[2]!;
  const ret = raw === '?' ? null : raw.startsWith('0x') ? Number.parseInt(raw, 16) : Number(raw);
  const durationS = m[4] === undefined || m[4] === 'unavailable' ? null : Number(m[4]);
  return { tid, startS, name, args: m[1]!, ret, errno: m[3] ?? null, durationS };
}

/** Reads a whole strace output file. */
export function parseStrace(text: string): StraceLog {
  const calls: SyscallEvent[] = [];
  const exits: ExitEvent[] = [];
  let unreadLines = 0;
  // Per thread, the first half of a call strace printed as unfinished.
  const pending = new Map<number, { name: string; startS: number; head: string }>();
  // The call strace -k's frames (" > …" lines) belong to: the last completed call, until another line comes.
  let last: SyscallEvent | null = null;
  const push = (ev: SyscallEvent) => {
    calls.push(ev);
    last = ev;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const frame = STACK_LINE.exec(line);
    if (frame) {
      const ev = last as SyscallEvent | null;
      if (ev) {
        ev.stack ??= [];
        ev.stack.push(frame[1]!);
      }
      continue;
    }
    last = null;
    const m = LINE.exec(line);
    if (!m) {
      unreadLines++;
      continue;
    }
    const tid = Number(m[1]);
    const atS = Number(m[2]);
    const rest = m[3]!;
    if (rest.startsWith('---')) continue; // a signal delivered: not a creation
    if (rest.startsWith('+++')) {
      const ex = /^\+\+\+ exited with (\d+) \+\+\+$/.exec(rest);
      const killed = /^\+\+\+ killed by (SIG\w+)/.exec(rest);
      if (ex) exits.push({ tid, atS, exitCode: Number(ex[1]), signal: null });
      else if (killed) exits.push({ tid, atS, exitCode: null, signal: killed[1]! });
      else unreadLines++;
      continue;
    }
    const resumed = RESUMED.exec(rest);
    if (resumed) {
      const first = pending.get(tid);
      pending.delete(tid);
      if (!first || first.name !== resumed[1]) {
        unreadLines++;
        continue;
      }
      const ev = result(first.name, tid, first.startS, `${first.head}${resumed[2]!}`);
      if (ev) push(ev);
      else if (!/<detached \.\.\.>/.test(rest)) unreadLines++;
      continue;
    }
    const unfinished = UNFINISHED.exec(rest);
    if (unfinished) {
      pending.set(tid, { name: unfinished[1]!, startS: atS, head: unfinished[2]! });
      continue;
    }
    const open = /^(\w+)\((.*)$/.exec(rest);
    if (!open) {
      unreadLines++;
      continue;
    }
    const ev = result(open[1]!, tid, atS, open[2]!);
    if (ev) push(ev);
    else unreadLines++;
  }
  // Calls still unfinished at the end (a process killed in the middle, or the trace detached): exit_group
  // never returns, so it counts; other calls are dropped with nothing to time them by.
  for (const [tid, p] of pending) if (p.name === 'exit_group') calls.push({ tid, startS: p.startS, name: p.name, args: p.head, ret: null, errno: null, durationS: null });
  calls.sort((a, b) => a.startS - b.startS);
  return { calls, exits, unreadLines };
}

/** The CLONE_* names in a clone or clone3 call's flags (`flags=CLONE_VM|CLONE_VFORK|SIGCHLD`). */
export function cloneFlags(args: string): string[] {
  const m = /flags=([A-Z0-9_|]+)/.exec(args);
  return m ? m[1]!.split('|').filter((f) => f.startsWith('CLONE_')) : [];
}

/** The path of an execve (its first argument), null when strace did not print a string there. */
export function execPath(args: string): string | null {
  const m = /^"((?:[^"\\]|\\.)*)"/.exec(args);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : null;
}

/** The argv of an execve as strace printed it (strings strace shortened end in "..."). */
export function execArgv(args: string): string[] {
  const m = /^"(?:[^"\\]|\\.)*",\s*\[(.*?)\](?:\.\.\.)?,\s*/.exec(args);
  if (!m) return [];
  const out: string[] = [];
  for (const s of m[1]!.matchAll(/"((?:[^"\\]|\\.)*)"(\.\.\.)?/g)) out.push(s[1]!.replace(/\\(.)/g, '$1') + (s[2] ?? ''));
  return out;
}
