#!/usr/bin/env node
// Makes the prebuilt addon shipped in the package: builds native/ with node-gyp, strips it into
// prebuilds/linux-x64-glibc/forklab_spawn.node and records the SHA-256 of the sources it was built from
// (SOURCES.sha256; a test fails when native/ changes without a new prebuild). N-API: one binary serves
// Node 20 to 26. Needs glibc >= 2.34 at run time (dlopen and pthread in libc).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findNodeGyp, nodeGypArgs, nodeGypEnv } from './find-node-gyp.mjs';
import { sourcesHash } from './sources-hash.mjs';

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(pkgDir, 'prebuilds', 'linux-x64-glibc');
const gyp = findNodeGyp();
if (!gyp) throw new Error('node-gyp not found');
const r = spawnSync(process.execPath, [gyp, ...nodeGypArgs()], { stdio: 'inherit', env: nodeGypEnv(), cwd: pkgDir });
if (r.status !== 0) process.exit(r.status ?? 1);
mkdirSync(out, { recursive: true });
const target = join(out, 'forklab_spawn.node');
copyFileSync(join(pkgDir, 'build', 'Release', 'forklab_spawn.node'), target);
const s = spawnSync('strip', ['--strip-unneeded', target], { stdio: 'inherit' });
if (s.status !== 0) process.exit(s.status ?? 1);
writeFileSync(join(out, 'SOURCES.sha256'), `${sourcesHash(pkgDir)}\n`);
console.log(`prebuild: ${target}`);
