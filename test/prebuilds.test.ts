// The prebuilt probe sets (prebuilds/linux-x64, prebuilds/linux-arm64) are what the committed sources make: their
// SOURCES hash is today's, every file is the one BUILD.json names, built for its CPU; the probe, the loop and the
// static target are static; the dynamic target needs no glibc newer than 2.17 and is bound to versioned symbols
// only. They run: natively here, and the arm64 set under qemu-user when it is installed (behaviour, never timing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/runner/paths.js';
// @ts-expect-error: plain .mjs scripts without types
import { DYNAMIC_GLIBC_FLOOR, PROBE_PLATFORMS, probeSourcesHash, probeTargets, packageVersion } from '../scripts/probe-recipe.mjs';
// @ts-expect-error: plain .mjs scripts without types
import { compareVersions, glibcNeeds } from '../packages/spawn/scripts/elf.mjs';
// @ts-expect-error: plain .mjs scripts without types
import { buildIdOf, sha256 } from '../packages/spawn/scripts/prebuild-kit.mjs';

interface FileEntry {
  name: string;
  bytes: number;
  sha256: string;
  linkage: string;
  glibcFloor: string | null;
}
interface Manifest {
  platform: string;
  sourcesSha256: string;
  buildId: string;
  files: FileEntry[];
}
interface Target {
  name: string;
  static: boolean;
}
interface Needs {
  machine: string;
  linkage: 'static' | 'dynamic';
  interpreter: string | null;
  needed: string[];
  glibcFloor: string | null;
  unversioned: string[];
}

const REBUILD = 'run `npm run prebuilds` and commit prebuilds/';
const platforms = PROBE_PLATFORMS as Record<string, { arch: string; machine: string }>;
const targets = probeTargets(PACKAGE_ROOT) as Target[];
const dirOf = (platform: string) => join(PACKAGE_ROOT, 'prebuilds', platform);
const manifestOf = (platform: string) => JSON.parse(readFileSync(join(dirOf(platform), 'BUILD.json'), 'utf8')) as Manifest;
const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
const qemu = run('qemu-aarch64', ['--version']).status === 0;

for (const [platform, p] of Object.entries(platforms)) {
  test(`${platform}: built from the committed native/ sources and version (else: ${REBUILD})`, () => {
    const hash = probeSourcesHash(PACKAGE_ROOT) as string;
    assert.equal(readFileSync(join(dirOf(platform), 'SOURCES.sha256'), 'utf8').trim(), hash, `native/, the version or scripts/probe-recipe.mjs changed: ${REBUILD}`);
    assert.equal(manifestOf(platform).sourcesSha256, hash, `BUILD.json: ${REBUILD}`);
  });

  test(`${platform}: every binary is the one BUILD.json names, and the build id is theirs`, () => {
    const m = manifestOf(platform);
    assert.equal(m.platform, platform);
    assert.deepEqual(
      m.files.map((f) => f.name),
      targets.map((t) => t.name),
    );
    for (const f of m.files) {
      const bytes = readFileSync(join(dirOf(platform), f.name));
      assert.equal(sha256(bytes), f.sha256, `${platform}/${f.name} is not the file BUILD.json names: ${REBUILD}`);
      assert.equal(bytes.length, f.bytes);
    }
    assert.equal(m.buildId, buildIdOf(platform, m.files));
  });

  test(`${platform}: the probe, the loop and the static target are static; the dynamic target needs glibc ≤ ${DYNAMIC_GLIBC_FLOOR}`, () => {
    const m = manifestOf(platform);
    for (const t of targets) {
      const n = glibcNeeds(join(dirOf(platform), t.name)) as Needs;
      const entry = m.files.find((f) => f.name === t.name)!;
      assert.equal(n.machine, p.machine, `${t.name}: built for ${n.machine}`);
      assert.equal(entry.linkage, n.linkage);
      assert.equal(entry.glibcFloor, n.glibcFloor, `${t.name}: BUILD.json's glibcFloor is not what the file needs`);
      if (t.static) {
        assert.equal(n.linkage, 'static', `${t.name} has an interpreter (${n.interpreter}) or needs ${n.needed.join(', ')}`);
        continue;
      }
      assert.equal(n.linkage, 'dynamic');
      assert.deepEqual(n.needed, ['libc.so.6'], `${t.name} needs ${n.needed.join(', ')}`);
      assert.match(n.interpreter ?? '', /^\/lib(64)?\/ld-linux-(x86-64|aarch64)\.so\.[12]$/);
      assert.ok(n.glibcFloor !== null && compareVersions(n.glibcFloor, DYNAMIC_GLIBC_FLOOR) <= 0, `${t.name} needs glibc ${n.glibcFloor}, above ${DYNAMIC_GLIBC_FLOOR}`);
      assert.deepEqual(n.unversioned, [], `${t.name} binds symbols of no version: ${n.unversioned.join(', ')}`);
    }
  });

  const native = arch() === p.arch;
  test(`${platform}: the probe reports the package's version and the targets exit 0${native ? '' : ' (under qemu-user)'}`, {
    skip: !native && !qemu ? 'qemu-user is not installed (apt-get install qemu-user): the arm64 binaries are not run' : false,
  }, () => {
    const wrap = (exe: string, args: string[]) => (native ? run(exe, args) : run('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', exe, ...args]));
    const v = wrap(join(dirOf(platform), 'forklab-probe'), ['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout.trim(), packageVersion(PACKAGE_ROOT));
    const hello = wrap(join(dirOf(platform), 'forklab-probe'), []);
    assert.match(hello.stdout, /"type":"hello".*"cases":\[[^\]]*"cow"[^\]]*"spawn"/);
    for (const t of ['forklab-target-static', 'forklab-target-dynamic']) {
      if (!native && t === 'forklab-target-dynamic' && !existsSync('/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1')) continue;
      const r = wrap(join(dirOf(platform), t), []);
      assert.equal(r.status, 0, `${t}: ${r.stderr}`);
    }
  });
}
