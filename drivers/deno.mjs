// forklab runtime driver for Deno: starts the target the ways a Deno program does and times each start to
// its reaping, inside Deno. Speaks the probe protocol (docs/protocol.md, drivers/js-common.mjs).
//   deno run --allow-all deno.mjs CASE target=PATH [heap-mb=N] [heap-kind=...]
// Cases: command (new Deno.Command(target).output()), spawn (node:child_process spawn, timed to 'exit').
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { runDriver, timed, timedExit } from './js-common.mjs';

async function commandOnce(target) {
  const r = await new Deno.Command(target).output();
  if (!r.success) throw new Error(`target exited with ${r.signal ?? `status ${r.code}`}`);
}

await runDriver({
  runtime: 'deno',
  version: Deno.version.deno,
  info: { v8: Deno.version.v8 },
  heapUsed: () => Deno.memoryUsage().heapUsed,
  errnos: constants.errno,
  cases: {
    command: (target) => () => timed(() => commandOnce(target)),
    spawn: (target) => () => timedExit(() => spawn(target, [])),
  },
});
