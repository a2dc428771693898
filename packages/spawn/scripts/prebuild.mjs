#!/usr/bin/env node
// Makes the prebuilt addons shipped in the package, from the committed native/ sources, with Zig's C compiler for
// glibc 2.17 (x86-64 and aarch64): prebuilds/linux-<arch>-glibc/forklab_spawn.node, stripped, with SOURCES.sha256
// (what it was built from: a test fails when native/ changes without a new prebuild) and BUILD.json (build id,
// toolchain, size, the highest glibc symbol version it needs). N-API 8: one binary serves Node 20 to 26.
//   node packages/spawn/scripts/prebuild.mjs      (also run by forklab's `npm run prebuilds`)
// Needs Node's headers (include/node under the running Node's prefix) and Zig 0.14.0-dev.2456 ($ZIG, else fetched
// from the npm registry into a cache: prebuild-kit.mjs). Each result is checked before its manifest is written: it
// exports only N-API's registration, has no thread-local storage of its own, binds the C library's errno
// (__errno_location) and needs no glibc symbol version above the floor (a Zig that compiles libc code of its own
// into the addon, as 0.11 did for glibc 2.17, fails here).
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonExportProblems, compareVersions, glibcNeeds } from './elf.mjs';
import { describeFiles, findZig, run, writeManifest, zigVersionOf } from './prebuild-kit.mjs';
import { ADDON_FLAGS, ADDON_LIBS, ADDON_TARGETS, addonSources, sourcesHash } from './sources-hash.mjs';

const pkgDir = dirname(dirname(fileURLToPath(import.meta.url)));

/** Builds every addon prebuild; returns their manifests. */
export function prebuildAddons(zig = findZig()) {
  const headers = join(dirname(dirname(process.execPath)), 'include', 'node');
  if (!existsSync(join(headers, 'node_api.h'))) throw new Error(`prebuild: Node's headers are not in ${headers} (node_api.h): use a Node install that ships them`);
  const sources = addonSources(pkgDir);
  const hash = sourcesHash(pkgDir);
  const manifests = [];
  for (const [platform, t] of Object.entries(ADDON_TARGETS)) {
    console.log(`prebuild: @forklab/spawn addon for ${platform} (zig cc -target ${t.zigTarget})`);
    const out = join(pkgDir, 'prebuilds', platform);
    mkdirSync(out, { recursive: true });
    rmSync(join(out, 'forklab_spawn.node'), { force: true });
    run(zig, ['cc', '-target', t.zigTarget, ...ADDON_FLAGS, `-I${headers}`, '-o', join(out, 'forklab_spawn.node'), ...sources, ...ADDON_LIBS], { cwd: pkgDir });
    const described = describeFiles(out, ['forklab_spawn.node']);
    if (described[0].machine !== t.machine) throw new Error(`prebuild: ${platform}: built for ${described[0].machine}, not ${t.machine}`);
    const needs = glibcNeeds(join(out, 'forklab_spawn.node'));
    const problems = addonExportProblems(needs);
    if (compareVersions(needs.glibcFloor ?? '0', t.glibcFloor) > 0) problems.push(`needs glibc ${needs.glibcFloor}, above ${t.glibcFloor}`);
    if (problems.length > 0) throw new Error(`prebuild: ${platform}: the addon ${problems.join('; ')}`);
    const files = [{ ...described[0], exported: needs.exported.sort(), tlsBytes: needs.tlsBytes }];
    const m = writeManifest(out, {
      set: '@forklab/spawn addon',
      platform,
      sourcesSha256: hash,
      toolchain: { cc: `${zigVersionOf(zig)} cc -target ${t.zigTarget}`, napi: 8, nodeHeaders: process.version },
      glibcFloorTarget: t.glibcFloor,
      files,
      rebuild: 'npm run prebuilds',
    });
    const extra = files[0].unversioned.length ? `; and, bound to no version, ${files[0].unversioned.join(', ')} (newer than glibc ${t.glibcFloor}: look them up at run time)` : '';
    console.log(`prebuild: ${platform}: ${m.buildId}, ${files[0].bytes} bytes, needs glibc ${files[0].glibcFloor}${extra}; exports ${files[0].exported.join(', ')}; no TLS`);
    manifests.push(m);
  }
  return manifests;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) prebuildAddons();
