#!/usr/bin/env node
// Install script: a prebuilt addon ships for linux-x64 (glibc) in prebuilds/; when it loads here, nothing is
// built. Otherwise (another architecture, musl, FORKLAB_SPAWN_BUILD=1) node-gyp builds native/ into
// build/Release, offline when the running Node ships its headers (scripts/find-node-gyp.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNodeGyp, nodeGypArgs, nodeGypEnv } from './find-node-gyp.mjs';

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const prebuild = join(pkgDir, 'prebuilds', 'linux-x64-glibc', 'forklab_spawn.node');

if (process.platform !== 'linux') {
  console.error(`@forklab/spawn: Linux only (posix_spawn + pidfd); nothing built on ${process.platform}.`);
  process.exit(0);
}
if (process.env.FORKLAB_SPAWN_BUILD !== '1' && process.arch === 'x64' && existsSync(prebuild)) {
  try {
    createRequire(import.meta.url)(prebuild);
    process.exit(0);
  } catch (err) {
    console.error(`@forklab/spawn: the prebuilt addon does not load here (${err.message.split('\n')[0]}); building one.`);
  }
}
const gyp = findNodeGyp();
if (!gyp) {
  console.error('@forklab/spawn: cannot find node-gyp to build the addon; install npm with its bundled node-gyp.');
  process.exit(1);
}
const r = spawnSync(process.execPath, [gyp, ...nodeGypArgs()], { stdio: 'inherit', env: nodeGypEnv(), cwd: pkgDir });
if (r.status !== 0) {
  console.error('@forklab/spawn: building the addon failed; it needs a C compiler (gcc), make and python3.');
  process.exit(r.status ?? 1);
}
