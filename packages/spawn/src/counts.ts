// What forklab served and what it left to node:child_process, per function, since the package loaded in this
// thread; every call it left is published on the diagnostics channel (a reason about the whole process once),
// and written to stderr when FORKLAB_SPAWN_LOG=1. Shared by every copy of the package loaded in the thread
// (ES module and CommonJS builds: state.ts).
import { channel } from 'node:diagnostics_channel';
import { type FunctionName, type FunctionStats, shared } from './state.js';

export const FALLBACK_CHANNEL = 'forklab:spawn:fallback';

export type { FunctionName, FunctionStats } from './state.js';

export interface FallbackEvent {
  /** why node:child_process served the call: an option (uid, gid), 'unavailable: …', 'node internals: …',
   * 'disabled: …', 'permission: …'; or, with function and command null, why forklab serves nothing in this
   * process ('node spawns with posix_spawn: …'), said once when the package loads */
  reason: string;
  function: FunctionName | null;
  command: string | null;
}

const counts = shared.counts;
const fallbackChannel = channel(FALLBACK_CHANNEL);

/** Reasons about the whole process rather than the call: said once. */
const PROCESS_WIDE = ['unavailable', 'node internals', 'disabled', 'permission', 'node spawns'];

function publish(event: FallbackEvent): void {
  if (PROCESS_WIDE.some((p) => event.reason.startsWith(p))) {
    if (counts.said.has(event.reason)) return;
    counts.said.add(event.reason);
  }
  if (fallbackChannel.hasSubscribers) fallbackChannel.publish(event);
  if (process.env.FORKLAB_SPAWN_LOG === '1') {
    const what = event.function ? `${event.function}(${event.command})` : 'every call';
    process.stderr.write(`@forklab/spawn: node:child_process serves ${what}: ${event.reason}\n`);
  }
}

export function count(fn: FunctionName, served: boolean, reason: string | null, command: unknown): void {
  let s = counts.stats.get(fn);
  if (!s) {
    s = { served: 0, fallbacks: 0, byReason: {} };
    counts.stats.set(fn, s);
  }
  if (served) {
    s.served++;
    return;
  }
  const why = reason ?? 'unknown';
  s.fallbacks++;
  s.byReason[why] = (s.byReason[why] ?? 0) + 1;
  publish({ reason: why, function: fn, command: String(command) });
}

/** A reason that concerns no call in particular (forklab serves nothing here): said once. */
export function announce(reason: string): void {
  publish({ reason, function: null, command: null });
}

/** Counts per function since the package loaded in this thread. */
export function statsByFunction(): Partial<Record<FunctionName, FunctionStats>> {
  const out: Partial<Record<FunctionName, FunctionStats>> = {};
  for (const [fn, s] of counts.stats) out[fn] = { served: s.served, fallbacks: s.fallbacks, byReason: { ...s.byReason } };
  return out;
}
