// Bun: PATH, ~/.bun/bin ($BUN_INSTALL/bin), node_modules/.bin, forklab's cache; its node:child_process and
// Bun.spawn.
import { join } from 'node:path';
import { home, singleBinaryCandidates } from '../locations.js';
import { listedByDriver } from '../probe.js';
import { DRIVERS_DIR, type DriverTarget, type FamilySpec, variant } from '../spec.js';

const driver = (rt: DriverTarget) => [rt.path, join(DRIVERS_DIR, 'bun.mjs')];

export const bun: FamilySpec<'bun'> = {
  family: 'bun',
  namePrefixes: ['bun'],
  nameParts: 1,
  install: 'forklab runtimes --fetch bun (or: npm install -g bun)',
  heapKinds: ['buffers', 'objects'],
  otherKindsFor: ['bun-spawn'],
  variants: [
    variant('bun', 'spawn', "node:child_process spawn(target), timed to 'exit'", 'child_process.spawn'),
    variant('bun', 'bun-spawn', 'await Bun.spawn([target]).exited', 'Bun.spawn'),
  ],
  driverFiles: ['bun.mjs', 'js-common.mjs'],
  candidates: (c) => singleBinaryCandidates('bun', c.env.BUN_INSTALL || home(c.env, '.bun'), c),
  probe: (exe, run) => listedByDriver(exe, driver({ path: exe }), run),
  driver: (rt) => driver(rt),
  npm: (arch) => ({ pkg: `@oven/bun-linux-${arch === 'x64' ? 'x64' : 'aarch64'}`, exe: 'bun' }),
  program: /^bun$/,
};
