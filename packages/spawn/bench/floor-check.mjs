// bench:spawn's check, before it measures, that the C floor gives its child what forklab gives it (floor-state.c
// writes what a child was given: descriptors 0-2, their access modes, blocking, socket buffers, shared
// descriptions, the signal mask and ignored signals): stdio 'ignore' against floor:ignore and 'pipe' against
// floor:pipe. A floor that gives its child less would be a floor forklab cannot be fairly compared with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFloor } from './floor.mjs';

const PAIRS = [
  ['ignore', 'ignore'],
  ['pipe', 'pipe'],
];

function throughForklab(forklab, exe, stdio, out) {
  return new Promise((resolve, reject) => {
    const c = forklab.spawn(exe, [], { stdio, timeout: 30_000, env: { ...process.env, FLOOR_STATE_OUT: out } });
    c.stdout?.resume();
    c.stderr?.resume();
    c.on('error', reject);
    c.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`floor-state through forklab ended with ${signal ?? code}`))));
  });
}

/** The differences found (an empty list: the floor's child and forklab's were given the same). */
export async function checkFloor(floor) {
  const forklab = await import('../dist/index.js');
  const differences = [];
  for (const [stdio, mode] of PAIRS) {
    const ours = join(floor.dir, `state-forklab-${mode}`);
    const theirs = join(floor.dir, `state-floor-${mode}`);
    const before = forklab.registerStats().served;
    await throughForklab(forklab, floor.stateExe, stdio, ours);
    if (forklab.registerStats().served !== before + 1) {
      differences.push(`stdio '${stdio}': forklab did not serve the check's spawn (${forklab.unavailableReason() ?? JSON.stringify(forklab.registerStats().byReason)})`);
      continue;
    }
    const f = startFloor(floor.exe, 0, floor.stateExe, { FLOOR_STATE_OUT: theirs });
    await f.ready();
    await f.run(1, mode);
    await f.stop();
    const a = readFileSync(ours, 'utf8');
    const b = readFileSync(theirs, 'utf8');
    if (a !== b)
      differences.push(`stdio '${stdio}' against floor:${mode}:\n  forklab's child: ${a.trim().split('\n').join('; ')}\n  the floor's:     ${b.trim().split('\n').join('; ')}`);
  }
  return differences;
}
