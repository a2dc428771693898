// The resource limits this process runs under (/proc/self/limits): what a probe it starts inherits and may raise
// its soft limit up to. Read before any probe starts, to refuse a limit the machine does not allow.
import { readTextOrNull, type ReadText } from './memory.js';

/** A soft and a hard limit; null where the kernel says "unlimited". */
export interface Limit {
  soft: number | null;
  hard: number | null;
}

/** The limit named `name` ("Max open files") of a /proc/PID/limits text; null when absent or unreadable. */
export function parseLimit(text: string, name: string): Limit | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const fields = line.slice(name.length).trim().split(/\s+/);
    const value = (s: string | undefined): number | null | undefined => {
      if (s === 'unlimited') return null;
      const v = Number(s);
      return s !== undefined && /^\d+$/.test(s) && Number.isSafeInteger(v) ? v : undefined;
    };
    const soft = value(fields[0]);
    const hard = value(fields[1]);
    return soft === undefined || hard === undefined ? null : { soft, hard };
  }
  return null;
}

/** RLIMIT_NOFILE of this process (what `ulimit -Sn` and `ulimit -Hn` say); null when /proc/self/limits cannot be read. */
export function readOpenFilesLimit(read: ReadText = readTextOrNull): Limit | null {
  const text = read('/proc/self/limits');
  return text === null ? null : parseLimit(text, 'Max open files');
}
