// What ships: the prebuilt addon matches native/ (SOURCES.sha256), loads first in an installed layout without
// a compiler's output, and the loader's error names every path it tried with platform, arch and N-API
// version; every `files` entry exists; the root forklab tarball bundles the package.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pkgDir } from './helpers/addon.js';
// @ts-expect-error: a plain .mjs script without types
import { sourcesHash } from '../scripts/sources-hash.mjs';

const repoDir = dirname(dirname(pkgDir));
const prebuild = join(pkgDir, 'prebuilds', 'linux-x64-glibc', 'forklab_spawn.node');
const layout = mkdtempSync(join(tmpdir(), 'forklab-spawn-layout-'));
after(() => rmSync(layout, { recursive: true, force: true }));

test('the prebuild was made from the current native/ sources (node packages/spawn/scripts/prebuild.mjs)', () => {
  const recorded = readFileSync(join(dirname(prebuild), 'SOURCES.sha256'), 'utf8').trim();
  assert.equal(recorded, sourcesHash(pkgDir), 'native/ changed: run `node packages/spawn/scripts/prebuild.mjs` and commit the prebuild');
});

/** An installed copy of the package with the given extra directories, compiled from the current sources. */
function install(name: string, withPrebuild: boolean): string {
  const dir = join(layout, name, 'node_modules', '@forklab', 'spawn');
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'binding.gyp']) cpSync(join(pkgDir, f), join(dir, f));
  if (withPrebuild) cpSync(dirname(prebuild), join(dir, 'prebuilds', 'linux-x64-glibc'), { recursive: true });
  const tsc = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(pkgDir, 'tsconfig.cjs.json'), '--outDir', join(dir, 'dist', 'cjs')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stdout);
  writeFileSync(join(dir, 'dist', 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
  return join(layout, name);
}

function nodeIn(cwd: string, code: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete env.FORKLAB_SPAWN_ADDON;
  return spawnSync(process.execPath, ['-e', code], { cwd, encoding: 'utf8', timeout: 60_000, env });
}

test('installed with only the prebuild (no build/): it loads and serves spawnSync', () => {
  const project = install('prebuilt', true);
  const r = nodeIn(
    project,
    `const f = require('@forklab/spawn'); console.log(JSON.stringify([f.unavailableReason(), f.execFileSync('sh', ['-c', 'echo ok'], { encoding: 'utf8' }), f.registerStats().served]))`,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [null, 'ok\n', 1]);
});

test('no usable addon: the error lists every path tried, with platform, arch and N-API version; calls fall back, counted', () => {
  const project = install('bare', false);
  const r = nodeIn(
    project,
    `const f = require('@forklab/spawn'); const why = f.unavailableReason(); const out = f.execFileSync('sh', ['-c', 'echo still works'], { encoding: 'utf8' }); console.log(JSON.stringify([why, out, f.registerStats()]))`,
  );
  assert.equal(r.status, 0, r.stderr);
  const [why, out, stats] = JSON.parse(r.stdout) as [string, string, { fallbacks: number; served: number }];
  for (const part of [
    'prebuilds/linux-x64-glibc/forklab_spawn.node',
    'build/Release/forklab_spawn.node',
    'build/Debug/forklab_spawn.node',
    'linux-x64',
    `N-API ${process.versions.napi}`,
  ]) {
    assert.ok(why.includes(part), `${part} in: ${why}`);
  }
  assert.equal(out, 'still works\n');
  assert.deepEqual([stats.served, stats.fallbacks], [0, 1]);
});

test("every entry of the package's files exists, and the root tarball bundles the package with its prebuild", () => {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { files: string[]; repository?: unknown; license: string };
  for (const f of pkg.files.filter((x) => x !== 'dist')) assert.ok(existsSync(join(pkgDir, f)), f);
  assert.ok(pkg.repository, 'repository');
  assert.equal(pkg.license, 'MIT');
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoDir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const [packed] = JSON.parse(r.stdout) as [{ bundled: string[]; files: { path: string }[] }];
  assert.deepEqual(packed.bundled, ['@forklab/spawn']);
  const paths = new Set(packed.files.map((f) => f.path));
  for (const f of ['prebuilds/linux-x64-glibc/forklab_spawn.node', 'dist/index.js', 'dist/cjs/index.js', 'scripts/find-node-gyp.mjs', 'LICENSE']) {
    assert.ok(paths.has(`node_modules/@forklab/spawn/${f}`), f);
  }
});
