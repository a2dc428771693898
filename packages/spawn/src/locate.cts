// Finds and loads the addon. CommonJS on purpose: __dirname and require work in both builds (dist/ as ES
// modules imports this file; dist/cjs/ requires it), so neither needs import.meta.
// Order: FORKLAB_SPAWN_ADDON (an explicit path; ignored, with a warning, under Node's permission model, where
// an environment variable must not choose native code to load), the prebuild shipped in the package for this
// CPU (prebuilds/linux-x64-glibc/, prebuilds/linux-arm64-glibc/), then node-gyp's build/Release and build/Debug.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function packageDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'binding.gyp'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`@forklab/spawn: cannot find the package directory above ${__dirname}`);
    dir = up;
  }
  return dir;
}

/** Set when the last look at /proc failed for want of descriptors or memory (then nothing is concluded). */
let unsure = false;

/** libc of this process: 'glibc' or 'musl' (the prebuild is for glibc only). */
function libc(): string {
  try {
    return /ld-musl|libc\.musl/.test(readFileSync('/proc/self/maps', 'latin1')) ? 'musl' : 'glibc';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EMFILE' || code === 'ENFILE' || code === 'ENOMEM') unsure = true;
    return 'unknown';
  }
}

export interface Candidate {
  path: string;
  why: string;
}

let warned = false;

/** FORKLAB_SPAWN_ADDON, unless Node's permission model is on (then a warning, once). */
function overridePath(): string | undefined {
  const override = process.env.FORKLAB_SPAWN_ADDON;
  if (!override) return undefined;
  if ((process as { permission?: unknown }).permission === undefined) return override;
  if (!warned) {
    warned = true;
    process.emitWarning(`FORKLAB_SPAWN_ADDON=${override} is ignored under Node's permission model: only the package's own addon is loaded`, {
      type: 'Warning',
      code: 'FORKLAB_SPAWN_ADDON_IGNORED',
    });
  }
  return undefined;
}

export function candidates(): Candidate[] {
  const list: Candidate[] = [];
  const override = overridePath();
  if (override) list.push({ path: override, why: 'FORKLAB_SPAWN_ADDON' });
  let pkg: string;
  try {
    pkg = packageDir();
  } catch (err) {
    if (override) return list;
    throw err;
  }
  if (process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') && libc() === 'glibc') {
    list.push({ path: join(pkg, 'prebuilds', `linux-${process.arch}-glibc`, 'forklab_spawn.node'), why: 'prebuild' });
  }
  list.push({ path: join(pkg, 'build', 'Release', 'forklab_spawn.node'), why: 'node-gyp' });
  list.push({ path: join(pkg, 'build', 'Debug', 'forklab_spawn.node'), why: 'node-gyp debug' });
  return list;
}

/** dlopen failures that say nothing about the addon: the process was at a limit at that moment. */
const TRANSIENT = /Too many open files|Cannot allocate memory|Resource temporarily unavailable/;

/** The addon's refusals that are about the machine, not the file: no other candidate is tried. */
const MACHINE = new Set(['ERR_FORKLAB_SPAWN_NO_PIDFD', 'ERR_FORKLAB_SPAWN_OLD_LIBC', 'ERR_FORKLAB_SPAWN_SILENT_EXEC']);

/** What this version of the package calls: an addon without one of them is from another version. */
const REQUIRED = ['spawn', 'kill', 'ref', 'unref', 'closeProcessHandle', 'spawnSync'];

/** The first candidate that loads; otherwise an error naming every path tried and why each failed. */
export function requireAddon(): { addon: unknown; path: string } {
  const tried: string[] = [];
  unsure = false;
  let transient = false;
  for (const c of candidates()) {
    if (!existsSync(c.path)) {
      tried.push(`  ${c.path} (${c.why}): absent`);
      continue;
    }
    try {
      const addon = require(c.path) as Record<string, unknown>;
      const lacks = REQUIRED.filter((name) => typeof addon[name] !== 'function');
      if (lacks.length === 0) return { addon, path: c.path };
      tried.push(`  ${c.path} (${c.why}): built from other sources (no ${lacks.join(', ')})`);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (MACHINE.has(e.code ?? '')) throw err;
      if (TRANSIENT.test(e.message)) transient = true;
      tried.push(`  ${c.path} (${c.why}): ${e.message.split('\n')[0]}`);
    }
  }
  const napi = process.versions.napi ?? 'unknown';
  throw Object.assign(
    new Error(
      `@forklab/spawn: no usable addon for ${process.platform}-${process.arch} (${libc()}, N-API ${napi}, Node ${process.version}). Tried:\n${tried.join('\n')}\n` +
        'Build one with `npm rebuild @forklab/spawn` (needs gcc, make, python3) or set FORKLAB_SPAWN_ADDON to a built forklab_spawn.node.',
    ),
    // (transient: the process was out of descriptors or memory; the next call tries again)
    { code: 'ERR_FORKLAB_SPAWN_NO_ADDON', transient: transient || unsure },
  );
}
