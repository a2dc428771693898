// The tests run the package's sources against an addon built from native/ (build/Release): one missing or
// older than native/ is built here first (node-gyp, a few seconds).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
export const addonPath = join(pkgDir, 'build', 'Release', 'forklab_spawn.node');

function stale(): boolean {
  if (!existsSync(addonPath)) return true;
  const built = statSync(addonPath).mtimeMs;
  const sources = ['binding.gyp', ...readdirSync(join(pkgDir, 'native')).map((f) => join('native', f))];
  return sources.some((f) => statSync(join(pkgDir, f)).mtimeMs > built);
}

export function ensureAddon(): void {
  if (!stale()) return;
  const r = spawnSync(process.execPath, [join(pkgDir, 'scripts', 'build.mjs')], { encoding: 'utf8', timeout: 300_000, env: { ...process.env, FORKLAB_SPAWN_BUILD: '1' } });
  if (r.status !== 0) throw new Error(`building the addon failed:\n${r.stdout}\n${r.stderr}`);
}

ensureAddon();
// The tests (and the processes they start) load the addon just built, not the committed prebuild.
process.env.FORKLAB_SPAWN_ADDON ??= addonPath;
