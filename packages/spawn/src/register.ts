// `node --import @forklab/spawn/register app.js` (or through NODE_OPTIONS): child_process.spawn becomes
// forklab's for the whole process, for require('child_process') and for `import { spawn } from
// 'node:child_process'` in modules linked after this one. A call forklab cannot serve goes to the real
// spawn; every such fallback is counted and published on the diagnostics channel 'forklab:spawn:fallback'
// (and logged to stderr when FORKLAB_SPAWN_LOG=1).
import childProcess from 'node:child_process';
import { channel } from 'node:diagnostics_channel';
import { syncBuiltinESMExports } from 'node:module';
import { spawn as forklabSpawn } from './index.js';
import { unavailableReason } from './native.js';
import { splitArgs, unsupportedReason } from './options.js';

export const FALLBACK_CHANNEL = 'forklab:spawn:fallback';

export interface FallbackEvent {
  /** the option that needed node:child_process, or 'unavailable: <why the addon cannot load>' */
  reason: string;
  command: string;
}

export interface RegisterStats {
  served: number;
  fallbacks: number;
  byReason: Record<string, number>;
}

const fallbackChannel = channel(FALLBACK_CHANNEL);
const stats: RegisterStats = { served: 0, fallbacks: 0, byReason: {} };
const realSpawn = childProcess.spawn;
const marker = Symbol.for('forklab.spawn.registered');

/** Counts of calls served by forklab and of fallbacks to node:child_process since registration. */
export function registerStats(): RegisterStats {
  return { served: stats.served, fallbacks: stats.fallbacks, byReason: { ...stats.byReason } };
}

function fallback(reason: string, command: unknown): void {
  stats.fallbacks++;
  stats.byReason[reason] = (stats.byReason[reason] ?? 0) + 1;
  const event: FallbackEvent = { reason, command: String(command) };
  if (fallbackChannel.hasSubscribers) fallbackChannel.publish(event);
  if (process.env.FORKLAB_SPAWN_LOG === '1') {
    process.stderr.write(`forklab/spawn: fallback to node:child_process for ${event.command}: ${reason}\n`);
  }
}

function patchedSpawn(this: unknown, ...callArgs: unknown[]): unknown {
  const [command, args, options] = callArgs;
  let reason: string | null;
  try {
    reason = unavailableReason();
    if (reason !== null) reason = `unavailable: ${reason}`;
    else reason = unsupportedReason(splitArgs(args, options).options);
  } catch {
    reason = 'invalid arguments'; // the real spawn reports them in its own words
  }
  if (reason !== null) {
    fallback(reason, command);
    return Reflect.apply(realSpawn, this, callArgs);
  }
  stats.served++;
  return Reflect.apply(forklabSpawn, this, callArgs);
}

const target = childProcess as unknown as Record<symbol, boolean> & { spawn: unknown };
if (!target[marker]) {
  target[marker] = true;
  Object.defineProperty(patchedSpawn, 'name', { value: 'spawn' });
  target.spawn = patchedSpawn;
  syncBuiltinESMExports();
}
