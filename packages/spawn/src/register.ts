// `node --import @forklab/spawn/register app.js` (or -r, or through NODE_OPTIONS, which worker threads
// inherit): from then on every child_process function of this thread is served by forklab, for
// require('child_process') and for `import { spawn } from 'node:child_process'` in modules linked after
// this one, through ChildProcess.prototype.spawn's process handle and the spawn_sync binding. A call
// forklab cannot serve (uid, gid) goes to Node's own handle; every such fallback is counted
// (registerStats()), published on the diagnostics channel 'forklab:spawn:fallback', and logged to stderr
// when FORKLAB_SPAWN_LOG=1. It installs nothing with FORKLAB_SPAWN=off in the environment (an incident switch
// that needs no new deploy), nor on a Node that starts its children with posix_spawn itself (said once on the
// channel). Nothing here throws: a part that cannot be installed leaves those calls to node:child_process.
// It also replaces child_process's functions on node:child_process with the package's (internals.ts). The wrapped
// prototype and binding alone would serve every call forklab can serve; the exports put forklab on each call's path
// before Node's code runs, which three things need: the counts name the function called (the handle alone sees a
// 'ChildProcess'); where the binding cannot be wrapped (the permission model refuses process.binding; under
// --pending-deprecation calling it warns, DEP0111) each sync call is still counted and published as child_process's;
// and a spy that puts Node's own ChildProcess.prototype.spawn back is noticed at the next call and wrapped over
// again. A stack trace could name the function; nothing else is on the path for the other two: without the
// exports those calls would go uncounted, or silently to Node's fork.
import { stepAsideReason } from './aside.js';
import { exec, execFile, execFileSync, execSync, fork, spawn, spawnSync } from './index.js';
import { registerHandle, replaceExports, state } from './internals.js';
import { registerSync } from './sync.js';

export { FALLBACK_CHANNEL, type FallbackEvent } from './counts.js';
export { registerStats, type RegisterStats } from './stats.js';

// (once per thread, whichever copy or entry runs first: state.ts)
if (!state.registered && !state.disabled && !stepAsideReason()) {
  registerHandle(); // (marks it registered)
  registerSync(); // (under the permission model it cannot: those calls are counted as child_process's)
  replaceExports({ spawn, exec, execFile, fork, spawnSync, execSync, execFileSync });
}
