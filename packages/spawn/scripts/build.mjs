#!/usr/bin/env node
// Install script; it never fails the install. The prebuilt addon for this CPU (prebuilds/linux-<arch>-glibc: x64
// and arm64, glibc 2.17 and later) is used when it loads here; otherwise node-gyp builds native/ into build/Release
// when a C compiler, make and python3 are present (offline when the running Node ships its headers:
// find-node-gyp.mjs); otherwise one warning line, and at run time forklab/spawn's functions are child_process's own
// (the package's loader says why: unavailableReason(), FORKLAB_SPAWN_LOG=1).
// FORKLAB_SPAWN_BUILD=1 always builds, and then a failed build fails (for development).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingBuildTools } from './build-tools.mjs';
import { findNodeGyp, nodeGypArgs, nodeGypEnv } from './find-node-gyp.mjs';

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const forced = process.env.FORKLAB_SPAWN_BUILD === '1';
const warn = (why) => console.error(`@forklab/spawn: ${why}; forklab/spawn will use node:child_process here (FORKLAB_SPAWN_LOG=1 says why at run time).`);

function libc() {
  try {
    return /ld-musl|libc\.musl/.test(readFileSync('/proc/self/maps', 'latin1')) ? 'musl' : 'glibc';
  } catch {
    return 'glibc';
  }
}

/** null when the addon at path loads in a fresh Node (its own process: a crash stays there); else why not. */
function loadError(path) {
  const r = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', path], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status === 0) return null;
  const lines = `${r.stderr ?? ''}`.split('\n').filter((l) => /Error|error:/.test(l));
  return (lines[0] ?? r.error?.message ?? `exit ${r.status ?? r.signal}`).replace(/^\S*Error: /, '').trim();
}

if (process.platform !== 'linux') {
  console.error(`@forklab/spawn: Linux only (posix_spawn + pidfd); nothing built on ${process.platform}.`);
  process.exit(0);
}
const platform = `linux-${process.arch}-${libc()}`;
const prebuild = join(pkgDir, 'prebuilds', platform, 'forklab_spawn.node');
let why = `no prebuilt addon for ${platform}`;
if (!forced && existsSync(prebuild)) {
  const err = loadError(prebuild);
  if (err === null) process.exit(0);
  why = `the prebuilt addon for ${platform} does not load here (${err})`;
}
const missing = forced ? [] : missingBuildTools();
if (missing.length > 0) {
  warn(
    `${why}, and ${missing.map((m) => m[0]).join(', ')} to build one ${missing.length > 1 ? 'are' : 'is'} missing (sudo apt-get install ${missing.map((m) => m[1]).join(' ')}, then npm rebuild @forklab/spawn)`,
  );
  process.exit(0);
}
const gyp = findNodeGyp();
if (!gyp) {
  if (forced) {
    console.error('@forklab/spawn: cannot find node-gyp to build the addon; install npm with its bundled node-gyp.');
    process.exit(1);
  }
  warn(`${why}, and node-gyp (npm's) is not found to build one`);
  process.exit(0);
}
if (!forced) console.error(`@forklab/spawn: ${why}: building it (node-gyp, a few seconds)`);
const r = spawnSync(process.execPath, [gyp, ...nodeGypArgs()], {
  stdio: forced ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  env: nodeGypEnv(),
  cwd: pkgDir,
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
if (r.status !== 0) {
  if (forced) {
    console.error('@forklab/spawn: building the addon failed; it needs a C compiler (gcc), make and python3.');
    process.exit(r.status ?? 1);
  }
  const last = `${r.stderr ?? ''}`.trim().split('\n').filter(Boolean).pop() ?? `exit ${r.status}`;
  warn(`${why}, and building one failed (${last}; FORKLAB_SPAWN_BUILD=1 npm rebuild @forklab/spawn shows the whole build)`);
}
process.exit(0);
