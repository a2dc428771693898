// Node: every release line found (nvm, fnm, volta, asdf, n, PATH, forklab's cache), its child_process and
// @forklab/spawn; the driver says which cases it can run and the version.
import { join } from 'node:path';
import { cached, home, onPath, versions } from '../locations.js';
import { listedByDriver } from '../probe.js';
import { DRIVERS_DIR, type DriverTarget, type FamilySpec, variant } from '../spec.js';

// Room for a V8 heap of heapMb (objects carry their headers) without a GC-driven abort.
const driver = (rt: DriverTarget, heapMb: number) => [rt.path, `--max-old-space-size=${Math.max(512, heapMb * 2 + 256)}`, join(DRIVERS_DIR, 'node.mjs')];

export const node: FamilySpec<'node'> = {
  family: 'node',
  namePrefixes: ['node'],
  nameParts: 1,
  selectEachLine: true,
  install: 'https://nodejs.org/en/download (or: apt-get install nodejs)',
  heapKinds: ['buffers', 'objects'],
  otherKindsFor: ['spawn'],
  variants: [
    variant('node', 'spawn', "child_process.spawn(target), timed to 'exit'", 'child_process.spawn'),
    variant('node', 'spawnSync', 'child_process.spawnSync(target)', 'child_process.spawnSync'),
    variant('node', 'execFile', 'child_process.execFile(target, callback), timed to the callback', 'child_process.execFile'),
    variant('node', 'forklab-spawn', "@forklab/spawn spawn(target), timed to 'exit'", '@forklab/spawn spawn'),
  ],
  driverFiles: ['node.mjs', 'js-common.mjs'],
  /** Every Node the user may run: this one, PATH's, nvm, fnm, volta, asdf, n and the cache. */
  candidates: ({ env, cacheDir, thisNode }) => {
    const fnmRoot = env.FNM_DIR || (env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'fnm') : home(env, '.local', 'share', 'fnm'));
    return [
      { path: thisNode, origin: 'this-node', preferred: true },
      ...onPath('node', env).map((c) => ({ ...c, preferred: false })),
      ...versions(join(env.NVM_DIR || home(env, '.nvm') || '/nonexistent', 'versions', 'node'), 'bin', 'node', 'nvm'),
      ...versions(fnmRoot ? join(fnmRoot, 'node-versions') : null, join('installation', 'bin'), 'node', 'fnm'),
      ...versions(home(env, '.fnm', 'node-versions'), join('installation', 'bin'), 'node', 'fnm'),
      ...versions(join(env.VOLTA_HOME || home(env, '.volta') || '/nonexistent', 'tools', 'image', 'node'), 'bin', 'node', 'volta'),
      ...versions(join(env.ASDF_DATA_DIR || home(env, '.asdf') || '/nonexistent', 'installs', 'nodejs'), 'bin', 'node', 'asdf'),
      ...versions(join(env.N_PREFIX || '/usr/local', 'n', 'versions', 'node'), 'bin', 'node', 'n'),
      ...cached(cacheDir, 'node', 'node'),
    ];
  },
  probe: (exe, run) => listedByDriver(exe, driver({ path: exe }, 0), run),
  driver: (rt, _v, heapMb) => driver(rt, heapMb),
  npm: (arch) => ({ pkg: `node-linux-${arch}`, exe: 'node' }),
  program: /^(node|nodejs)(\d+)?$/,
};
