// Deno: PATH, ~/.deno/bin ($DENO_INSTALL/bin), node_modules/.bin, forklab's cache; Deno.Command and its
// node:child_process.
import { join } from 'node:path';
import { home, singleBinaryCandidates } from '../locations.js';
import { listedByDriver } from '../probe.js';
import { DRIVERS_DIR, type DriverTarget, type FamilySpec, variant } from '../spec.js';

// --allow-all: the driver reads /proc/thread-self for its usage line, which Deno grants only to all access.
const driver = (rt: DriverTarget, heapMb: number) => [
  rt.path,
  'run',
  '--allow-all',
  '--no-prompt',
  `--v8-flags=--max-old-space-size=${Math.max(512, heapMb * 2 + 256)}`,
  join(DRIVERS_DIR, 'deno.mjs'),
];

export const deno: FamilySpec<'deno'> = {
  family: 'deno',
  namePrefixes: ['deno'],
  nameParts: 1,
  install: 'forklab runtimes --fetch deno (or: npm install -g deno)',
  heapKinds: ['buffers', 'objects'],
  otherKindsFor: ['command'],
  variants: [
    variant('deno', 'command', 'await new Deno.Command(target).output()', 'Deno.Command'),
    variant('deno', 'spawn', "node:child_process spawn(target), timed to 'exit'", 'child_process.spawn'),
  ],
  driverFiles: ['deno.mjs', 'js-common.mjs'],
  candidates: (c) => singleBinaryCandidates('deno', c.env.DENO_INSTALL || home(c.env, '.deno'), c),
  probe: (exe, run) => listedByDriver(exe, driver({ path: exe }, 0), run),
  driver: (rt, _v, heapMb) => driver(rt, heapMb),
  npm: (arch) => ({ pkg: `@deno/linux-${arch}-glibc`, exe: 'deno' }),
  program: /^deno$/,
};
