// forklab runtime driver for Node: starts the target the ways a Node program does and times each start
// to its reaping, inside Node. Speaks the probe protocol (docs/protocol.md, drivers/js-common.mjs).
//   node [--max-old-space-size=MB] node.mjs CASE target=PATH [heap-mb=N] [heap-kind=buffers|objects]
// Cases: spawn (child_process.spawn, timed to its 'exit' event), spawnSync, execFile (timed to its
// callback), forklab-spawn (@forklab/spawn's spawn, through forklab/spawn; one N-API binary for every Node).
import { execFile, spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import { runDriver, timed, timedExit } from './js-common.mjs';

async function loadForklabSpawn() {
  try {
    const m = await import('forklab/spawn');
    const f = m.spawn ?? m.default?.spawn;
    return typeof f === 'function' ? { spawn: f } : { absent: 'forklab/spawn exports no spawn function' };
  } catch (e) {
    return { absent: `forklab/spawn cannot be imported (${e?.code ? e.code : e})` };
  }
}

function spawnSyncOnce(target) {
  const r = spawnSync(target, []);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`target exited with ${r.signal ?? `status ${r.status}`}`);
}

function execFileOnce(target) {
  return new Promise((resolve, reject) => execFile(target, [], (err) => (err ? reject(err) : resolve())));
}

await runDriver({
  runtime: 'node',
  version: process.versions.node,
  info: { libuv: process.versions.uv, v8: process.versions.v8 },
  heapUsed: () => process.memoryUsage().heapUsed,
  errnos: constants.errno,
  cases: {
    spawn: (target) => () => timedExit(() => spawn(target, [])),
    spawnSync: (target) => () => timed(() => spawnSyncOnce(target)),
    execFile: (target) => () => timed(() => execFileOnce(target)),
    'forklab-spawn': async (target) => {
      const f = await loadForklabSpawn();
      return f.absent ? f : () => timedExit(() => f.spawn(target, []));
    },
  },
});
