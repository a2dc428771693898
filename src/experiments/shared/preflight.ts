// The memory check every experiment makes before it starts anything: what its largest configuration needs
// against what this machine can give (src/env/memory.ts), refused with the flag that sets the size.
import { readMemoryBudget, type MemoryBudget } from '../../env/memory.js';
import { UsageError } from '../../errors.js';

const MIB = 2 ** 20;

/** What forklab keeps free besides a configuration's own memory (the probe, its children, forklab itself). */
export const HEADROOM_BYTES = 64 * MIB;

/** Where the budget comes from, in words: "MemAvailable 1234 MB, cgroup limit 2048 MB". */
export function budgetSources(b: MemoryBudget): string {
  const available = `MemAvailable ${b.memAvailableBytes === null ? '?' : Math.floor(b.memAvailableBytes / MIB)} MB`;
  return b.cgroupLimitBytes === null ? available : `${available}, cgroup limit ${Math.floor(b.cgroupLimitBytes / MIB)} MB`;
}

/**
 * Throws UsageError(flag, problem(MB the machine can give)) when needBytes does not fit; nothing when it does or
 * when the machine does not say (fitBytes null).
 */
export function requireMemory(flag: string, needBytes: number, problem: (canGiveMb: number) => string, fitBytes: number | null = readMemoryBudget().fitBytes): void {
  if (fitBytes !== null && needBytes > fitBytes) throw new UsageError(flag, problem(Math.floor(fitBytes / MIB)));
}
