// forklab runtime driver for Bun: starts the target the ways a Bun program does and times each start to its
// reaping, inside Bun. Speaks the probe protocol (docs/protocol.md, drivers/js-common.mjs).
//   bun bun.mjs CASE target=PATH [heap-mb=N] [heap-kind=buffers|objects]
// Cases: spawn (node:child_process spawn, timed to its 'exit' event), bun-spawn (Bun.spawn, timed to `exited`).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import process from 'node:process';
import { runDriver, timed, timedExit } from './js-common.mjs';

async function bunSpawnOnce(target) {
  const child = Bun.spawn([target], { stdin: 'ignore', stdout: 'ignore', stderr: 'inherit' });
  const code = await child.exited;
  if (code !== 0) throw new Error(`target exited with ${child.signalCode ?? `status ${code}`}`);
}

await runDriver({
  runtime: 'bun',
  version: typeof Bun === 'undefined' ? '' : Bun.version,
  info: { revision: typeof Bun === 'undefined' ? '' : Bun.revision },
  heapUsed: () => process.memoryUsage().heapUsed,
  errnos: constants.errno,
  cases: {
    spawn: (target) => () => timedExit(() => spawn(target, [])),
    'bun-spawn': (target) => () => timed(() => bunSpawnOnce(target)),
  },
});
