// `node --import @forklab/spawn/register app.js` (or -r, or through NODE_OPTIONS, which worker threads
// inherit): from then on every child_process function of this thread is served by forklab, for
// require('child_process') and for `import { spawn } from 'node:child_process'` in modules linked after
// this one, through ChildProcess.prototype.spawn's process handle and the spawn_sync binding. A call
// forklab cannot serve (uid, gid) goes to Node's own handle; every such fallback is counted
// (registerStats()), published on the diagnostics channel 'forklab:spawn:fallback', and logged to stderr
// when FORKLAB_SPAWN_LOG=1. With FORKLAB_SPAWN=off in the environment it changes nothing: an incident switch
// that needs no new deploy.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { exec, execFile, execFileSync, execSync, fork, spawn, spawnSync } from './index.js';
import { registerHandle, state } from './internals.js';
import { registerSync } from './sync.js';

export { FALLBACK_CHANNEL, type FallbackEvent } from './internals.js';
export { registerStats, type RegisterStats } from './stats.js';

const marker = Symbol.for('forklab.spawn.registered');
const target = childProcess as unknown as Record<string | symbol, unknown>;
if (!target[marker] && !state.disabled) {
  target[marker] = true;
  registerHandle();
  registerSync();
  // the exports too, only so that the counts name the function called
  Object.assign(target, { spawn, exec, execFile, fork, spawnSync, execSync, execFileSync });
  syncBuiltinESMExports();
}
