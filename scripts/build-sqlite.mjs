#!/usr/bin/env node
// The run history's SQLite engine at install time. A Node with node:sqlite (22.13+, 24, 26) needs nothing
// built: forklab uses it. Node 20 has none, so better-sqlite3 is built here from its bundled SQLite sources
// (its own install script is turned off in package.json's allowScripts: it would try to download a prebuilt
// binary, then Node's headers). As for the C probe, the headers of the running Node are used when its install
// has them (include/node under its prefix), so the build works offline (node-gyp found as the C probe's is). ~100 s of one core.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findNodeGyp, nodeGypArgs, nodeGypEnv } from '@forklab/spawn/scripts/find-node-gyp.mjs';

function hasNodeSqlite() {
  const emit = process.emitWarning;
  process.emitWarning = () => {}; // Node 22 calls it experimental
  try {
    return Boolean(process.getBuiltinModule?.('node:sqlite'));
  } catch {
    return false;
  } finally {
    process.emitWarning = emit;
  }
}

if (hasNodeSqlite()) process.exit(0);

const require = createRequire(import.meta.url);
let dir;
try {
  dir = dirname(require.resolve('better-sqlite3/package.json'));
} catch {
  console.error(`forklab: Node ${process.version} has no node:sqlite and better-sqlite3 is not installed; run npm ci again, or use Node 22.13 or newer`);
  process.exit(1);
}
const built = join(dir, 'build', 'Release', 'better_sqlite3.node');
if (existsSync(built)) {
  try {
    require(built);
    process.exit(0); // already built for this Node
  } catch {
    // built for another Node: build again
  }
}

const args = [...nodeGypArgs(), '--release'];
const gyp = findNodeGyp();
if (!gyp) {
  console.error('forklab: cannot find node-gyp to build better-sqlite3 (Node 20 has no node:sqlite); install npm with its bundled node-gyp, or use Node 22.13 or newer');
  process.exit(1);
}
const env = nodeGypEnv();
const verbose = Boolean(process.env.FORKLAB_BUILD_VERBOSE);
const started = Date.now();
const r = spawnSync(process.execPath, [gyp, ...args], { cwd: dir, stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'], env, maxBuffer: 64 * 1024 * 1024 });
if (r.status !== 0) {
  if (!verbose) {
    if (r.stdout?.length) process.stderr.write(r.stdout);
    if (r.stderr?.length) process.stderr.write(r.stderr);
    if (r.error) console.error(`forklab: ${r.error.message}`);
  }
  console.error(`forklab: building better-sqlite3 failed (Node ${process.version} has no node:sqlite, so the history needs it); Node 22.13 or newer needs no build`);
  process.exit(r.status ?? 1);
}
console.log(`forklab: built better-sqlite3 for the history (Node ${process.version} has no node:sqlite) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
