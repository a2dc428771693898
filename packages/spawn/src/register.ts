// `node --import @forklab/spawn/register app.js` (or -r, or through NODE_OPTIONS, which worker threads
// inherit): from then on every child_process function of this thread is served by forklab, for
// require('child_process') and `import { spawn } from 'node:child_process'` alike (in modules loaded before this
// one too), through ChildProcess.prototype.spawn's process handle and the spawn_sync binding. A call
// forklab cannot serve (uid, gid) goes to Node's own handle; every such fallback is counted
// (registerStats()), published on the diagnostics channel 'forklab:spawn:fallback', and logged to stderr
// when FORKLAB_SPAWN_LOG=1. It installs nothing with FORKLAB_SPAWN=off in the environment (an incident switch
// that needs no new deploy), nor on a Node that starts its children with posix_spawn itself (said once on the
// channel). Nothing here throws: a part that cannot be installed leaves those calls to node:child_process.
// node:child_process's exports are left as they are: every function of it ends in the two places wrapped (a
// ChildProcess's spawn, the spawn_sync binding), and the counts read which function a call came through from the
// stack (internals.ts). Where the binding cannot be wrapped (the permission model refuses process.binding; under
// --pending-deprecation calling it warns, DEP0111), spawnSync, execSync and execFileSync are child_process's and
// forklab does not see them: said once on the channel (a reason about the whole thread), not counted per call.
import { stepAsideReason } from './aside.js';
import { announce } from './counts.js';
import './index.js';
import { registerHandle, state } from './internals.js';
import { registerSync } from './sync.js';

export { FALLBACK_CHANNEL, type FallbackEvent } from './counts.js';
export { registerStats, type RegisterStats } from './stats.js';

// (once per thread, whichever copy or entry runs first: state.ts)
if (!state.registered && !state.disabled && !stepAsideReason()) {
  registerHandle(); // (marks it registered)
  const why = registerSync();
  if (why !== null) announce(`${why}: spawnSync, execSync and execFileSync are node:child_process's in this thread, uncounted`);
}
