// Process checks shared by the tests that must prove nothing is left behind.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** Parent pid of a process from /proc/PID/stat, or null when it is gone. */
export function parentOf(pid: number | string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Live children of pid. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && parentOf(d) === pid)
    .map(Number);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** forklab's own processes (probe, exec targets) among the children of pid; tsx's esbuild service is not ours. */
export function forklabChildrenOf(pid: number): number[] {
  return childrenOf(pid).filter((c) => cmdline(c).includes('forklab-'));
}

/** True while pid exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

/** True while pid is a live forklab probe. */
export function probeAlive(pid: number): boolean {
  return existsSync(`/proc/${pid}`) && isAlive(pid) && cmdline(pid).includes('forklab-probe');
}
