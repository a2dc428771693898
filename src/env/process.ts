// Who is running: a process's identity (enough to tell it from a later process that reused its pid) and the
// boot it runs in. The history store uses them to tell a run whose process died from one still going.
import { readFileSync } from 'node:fs';
import { parseCpusAllowedList } from './parse.js';

/** The identity of a live process: enough to tell it from a later process that reused its pid. */
export interface ProcessIdentity {
  startTicks: number | null;
  cmdline: string | null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Identity of a running process, or null when there is none with this pid (or only its zombie). */
export function processIdentity(pid: number): ProcessIdentity | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) {
    if (readOrNull('/proc/self/stat') !== null) return null; // /proc works: no such process
    try {
      process.kill(pid, 0);
      return { startTicks: null, cmdline: null };
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM' ? { startTicks: null, cmdline: null } : null;
    }
  }
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (rest[0] === 'Z' || rest[0] === 'X') return null;
  const start = Number(rest[19]);
  const cmd = readOrNull(`/proc/${pid}/cmdline`);
  return { startTicks: Number.isFinite(start) ? start : null, cmdline: cmd === null ? null : cmd.replace(/\0/g, ' ').trim() };
}

/** This boot's id (/proc/sys/kernel/random/boot_id), or null where it cannot be read. */
export function bootId(): string | null {
  return readOrNull('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
}

/** The CPUs this process may run on (Cpus_allowed_list of /proc/self/status); null where it cannot be read. */
export function cpusAllowed(): number[] | null {
  const status = readOrNull('/proc/self/status');
  const line = status?.split('\n').find((l) => l.startsWith('Cpus_allowed_list:'));
  return line ? parseCpusAllowedList(line.split(':')[1]!.trim()) : null;
}
