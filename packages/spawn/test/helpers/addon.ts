// The tests run the package's sources against an addon built from native/ (build/Release): one missing or
// older than native/ is built here first (node-gyp, a few seconds). npm test runs two files at a time, and on a
// fresh clone both find no addon: one builds it under a lock (node-gyp rebuild empties build/ first), the other
// waits and then finds it built. FORKLAB_TEST_PREBUILT=1 (where no compiler is: .ci/oldlibc.sh's Debian 11) uses
// the committed prebuild for this CPU instead, and builds nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const prebuilt = process.env.FORKLAB_TEST_PREBUILT === '1';
/** The addon the tests load: node-gyp's build of native/, or with FORKLAB_TEST_PREBUILT=1 the prebuild for this CPU. */
export const addonPath = prebuilt ? join(pkgDir, 'prebuilds', `linux-${process.arch}-glibc`, 'forklab_spawn.node') : join(pkgDir, 'build', 'Release', 'forklab_spawn.node');

function stale(): boolean {
  if (!existsSync(addonPath)) return true;
  const built = statSync(addonPath).mtimeMs;
  const sources = ['binding.gyp', ...readdirSync(join(pkgDir, 'native')).map((f) => join('native', f))];
  return sources.some((f) => statSync(join(pkgDir, f)).mtimeMs > built);
}

const BUILD_LIMIT_MS = 300_000;
/** Outside build/ (which the build removes), one per checkout. */
const lockDir = join(tmpdir(), `forklab-spawn-addon-build-${createHash('sha256').update(pkgDir).digest('hex').slice(0, 12)}.lock`);

function holderGone(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
  } catch {
    // made but its pid not yet written, or the lock just went: gone only if that has lasted
    try {
      return Date.now() - statSync(lockDir).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Runs fn holding the build lock; a lock whose holder has died is taken over. */
function withBuildLock(fn: () => void): void {
  const end = Date.now() + BUILD_LIMIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (holderGone()) rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > end) throw new Error(`waited ${BUILD_LIMIT_MS / 1000} s for another test file to build the addon (lock ${lockDir}); remove it if no test runs`);
      else Atomics.wait(pause, 0, 0, 100);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

export function ensureAddon(): void {
  if (!stale()) return;
  withBuildLock(() => {
    if (!stale()) return; // built by the file that held the lock before
    const r = spawnSync(process.execPath, [join(pkgDir, 'scripts', 'build.mjs')], { encoding: 'utf8', timeout: BUILD_LIMIT_MS, env: { ...process.env, FORKLAB_SPAWN_BUILD: '1' } });
    if (r.status !== 0) throw new Error(`building the addon failed:\n${r.stdout}\n${r.stderr}`);
  });
}

if (!prebuilt) ensureAddon();
else if (!existsSync(addonPath)) throw new Error(`FORKLAB_TEST_PREBUILT=1: no prebuild for ${process.arch} at ${addonPath}`);
// The tests (and the processes they start) load the addon just built (or, FORKLAB_TEST_PREBUILT=1, the prebuild).
process.env.FORKLAB_SPAWN_ADDON ??= addonPath;
