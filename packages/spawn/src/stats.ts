// Counts of calls forklab served and of calls node:child_process served instead, per function.
import { type FunctionName, type FunctionStats, statsByFunction } from './counts.js';

export interface RegisterStats extends FunctionStats {
  byFunction: Partial<Record<FunctionName, FunctionStats>>;
}

/** Since the package loaded in this thread: totals, reasons of the fallbacks, and the same per function
 * (under register, the function a call came through; 'ChildProcess' for a ChildProcess spawned directly). */
export function registerStats(): RegisterStats {
  const byFunction = statsByFunction();
  const total: RegisterStats = { served: 0, fallbacks: 0, byReason: {}, byFunction };
  for (const s of Object.values(byFunction)) {
    total.served += s.served;
    total.fallbacks += s.fallbacks;
    for (const [why, n] of Object.entries(s.byReason)) total.byReason[why] = (total.byReason[why] ?? 0) + n;
  }
  return total;
}
