#!/usr/bin/env node
// The run history's SQLite engine at install time. A Node with node:sqlite (22.13+, 24, 26) needs nothing: forklab
// uses it. Node 20 has none: its stand-in is better-sqlite3, an optional dependency. Installed from the registry it
// builds itself (its prebuilt download, else node-gyp); when that fails npm leaves it out and the install goes on.
// In a checkout its own script is turned off (package.json's allowScripts: it would try a download, then Node's
// headers), and it is built here from its bundled SQLite sources with the running Node's headers, offline
// (~100 s of one core). Where it cannot be had, one line says what the history needs, and every command still
// runs with --no-store. Run on its own, exits 1 when Node 20 is left without an engine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingBuildTools } from '@forklab/spawn/scripts/build-tools.mjs';
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

const loads = (file) => spawnSync(process.execPath, ['-e', 'require(process.argv[1])', file], { stdio: 'ignore', timeout: 60_000 }).status === 0;

/** Why the history cannot be kept on this Node, and what to do: one line. */
const unavailable = (why) =>
  `forklab: Node ${process.version} has no node:sqlite and ${why}: the run history needs Node 22.13 or newer, or better-sqlite3 built here (gcc, make, python3; then npm rebuild better-sqlite3); until then measure with --no-store`;

/** { ok, line }: ok when the history has an engine (line: what was done, or null); else line says why not. */
export function ensureSqlite({ verbose = Boolean(process.env.FORKLAB_BUILD_VERBOSE) } = {}) {
  if (hasNodeSqlite()) return { ok: true, line: null };
  const require = createRequire(import.meta.url);
  let dir;
  try {
    dir = dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    return { ok: false, line: unavailable('better-sqlite3 (its optional stand-in) could not be installed here') };
  }
  const built = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(built) && loads(built)) return { ok: true, line: null };
  const missing = missingBuildTools();
  if (missing.length > 0) return { ok: false, line: unavailable(`better-sqlite3 is not built (${missing.map((m) => m[0]).join(', ')} missing)`) };
  const gyp = findNodeGyp();
  if (!gyp) return { ok: false, line: unavailable('node-gyp is not found to build better-sqlite3') };
  const started = Date.now();
  const r = spawnSync(process.execPath, [gyp, ...nodeGypArgs(), '--release'], {
    cwd: dir,
    stdio: verbose ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: nodeGypEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    if (!verbose) {
      if (r.stdout?.length) process.stderr.write(r.stdout);
      if (r.stderr?.length) process.stderr.write(r.stderr);
    }
    return { ok: false, line: unavailable('building better-sqlite3 failed (its output is above)') };
  }
  return { ok: true, line: `forklab: built better-sqlite3 for the history (Node ${process.version} has no node:sqlite) in ${((Date.now() - started) / 1000).toFixed(1)} s` };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = ensureSqlite();
  if (r.line) (r.ok ? console.log : console.error)(r.line);
  process.exit(r.ok ? 0 : 1);
}
