// Finds and loads the addon. CommonJS on purpose: __dirname and require work in both builds (dist/ as ES
// modules imports this file; dist/cjs/ requires it), so neither needs import.meta.
// Order: FORKLAB_SPAWN_ADDON (an explicit path), the prebuild shipped in the package
// for this CPU (prebuilds/linux-x64-glibc/, prebuilds/linux-arm64-glibc/), then node-gyp's build/Release and build/Debug.
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

/** libc of this process: 'glibc' or 'musl' (the prebuild is for glibc only). */
function libc(): string {
  try {
    return /ld-musl|libc\.musl/.test(readFileSync('/proc/self/maps', 'latin1')) ? 'musl' : 'glibc';
  } catch {
    return 'unknown';
  }
}

export interface Candidate {
  path: string;
  why: string;
}

export function candidates(): Candidate[] {
  const list: Candidate[] = [];
  const override = process.env.FORKLAB_SPAWN_ADDON;
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

/** The first candidate that loads; otherwise an error naming every path tried and why each failed. */
export function requireAddon(): { addon: unknown; path: string } {
  const tried: string[] = [];
  for (const c of candidates()) {
    if (!existsSync(c.path)) {
      tried.push(`  ${c.path} (${c.why}): absent`);
      continue;
    }
    try {
      return { addon: require(c.path), path: c.path };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ERR_FORKLAB_SPAWN_NO_PIDFD') throw err;
      tried.push(`  ${c.path} (${c.why}): ${e.message.split('\n')[0]}`);
    }
  }
  const napi = process.versions.napi ?? 'unknown';
  throw Object.assign(
    new Error(
      `@forklab/spawn: no usable addon for ${process.platform}-${process.arch} (${libc()}, N-API ${napi}, Node ${process.version}). Tried:\n${tried.join('\n')}\n` +
        'Build one with `npm rebuild @forklab/spawn` (needs gcc, make, python3) or set FORKLAB_SPAWN_ADDON to a built forklab_spawn.node.',
    ),
    { code: 'ERR_FORKLAB_SPAWN_NO_ADDON' },
  );
}
