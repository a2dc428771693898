#!/usr/bin/env node
// Builds the C probe (native/) with node-gyp at install time.
// node-gyp downloads Node's headers unless it is told where they are; a Node install that ships its
// headers (include/node/node_api.h under the prefix of the running node) is used as --nodedir so that
// `npm ci` works offline. Elsewhere node-gyp behaves as usual.
// Quiet on success (one line); node-gyp's and the compiler's full output is printed only when the build fails,
// or always with FORKLAB_BUILD_VERBOSE=1.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findNodeGyp } from '@forklab/spawn/scripts/find-node-gyp.mjs';

const prefix = dirname(dirname(process.execPath));
const args = ['rebuild'];
if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

const gyp = findNodeGyp();
if (!gyp) {
  console.error('forklab: cannot find node-gyp to build the C probe (native/). Install npm with its bundled node-gyp.');
  process.exit(1);
}
const env = { ...process.env };
if (env.npm_config_nodedir === '') delete env.npm_config_nodedir;
const verbose = Boolean(process.env.FORKLAB_BUILD_VERBOSE);
const started = Date.now();
const r = spawnSync(process.execPath, [gyp, ...args], {
  stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  env,
  maxBuffer: 64 * 1024 * 1024,
});
if (r.status !== 0) {
  if (!verbose) {
    // Everything node-gyp and the compiler said: their output, then their errors.
    if (r.stdout?.length) process.stderr.write(r.stdout);
    if (r.stderr?.length) process.stderr.write(r.stderr);
    if (r.error) console.error(`forklab: ${r.error.message}`);
  }
  console.error('forklab: building the C probe failed; forklab needs a C compiler (gcc), make and python3, and static glibc (libc6-dev) for the static exec target.');
  process.exit(r.status ?? 1);
}
console.log(`forklab: built the C probe (native/ → build/Release) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
