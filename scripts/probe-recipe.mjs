// What the prebuilt probe sets (prebuilds/linux-x64, prebuilds/linux-arm64) are made from, and its SHA-256
// (SOURCES.sha256 and BUILD.json beside each set; test/prebuilds.test.ts fails when native/, the package's version
// or this recipe change without `npm run prebuilds`).
// The probe, the fidelity loop and the static target are static with this build's glibc (Debian's gcc and
// gcc-aarch64-linux-gnu with libc6-dev-arm64-cross): glibc's own posix_spawn, vfork and fork, as the articles
// measure. The dynamic `return 0` target is linked against glibc 2.17 (Zig), so that exec-dynamic runs the ld.so of
// the machine it runs on.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PROBE_PLATFORMS = {
  'linux-x64': { arch: 'x64', gcc: 'gcc', zigTarget: 'x86_64-linux-gnu.2.17', machine: 'x86-64' },
  'linux-arm64': { arch: 'arm64', gcc: 'aarch64-linux-gnu-gcc', zigTarget: 'aarch64-linux-gnu.2.17', machine: 'aarch64' },
};

/** The dynamic target's ceiling: it must run on glibc 2.17 and later. */
export const DYNAMIC_GLIBC_FLOOR = '2.17';

const CFLAGS = ['-O2', '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter', '-D_GNU_SOURCE', '-ffile-prefix-map=./=', '-s'];

/** The probe's case files (native/case_*.c), sorted, as scripts/list-cases.mjs gives them to binding.gyp. */
function cases(root) {
  return readdirSync(join(root, 'native'))
    .filter((f) => /^case_[a-z0-9_]+\.c$/.test(f))
    .sort()
    .map((f) => `native/${f}`);
}

export function packageVersion(root) {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
}

/**
 * The four binaries of a set: name, compiler ('gcc': the platform's gcc; 'zig': zig cc for glibc 2.17), flags,
 * sources, libraries, and whether it must be static. Paths are relative to the package root (the build's cwd).
 */
export function probeTargets(root) {
  const version = packageVersion(root);
  return [
    {
      name: 'forklab-probe',
      cc: 'gcc',
      static: true,
      flags: [...CFLAGS, `-DFL_PROBE_VERSION_TOKENS=${version}`, '-static'],
      sources: ['native/probe.c', 'native/emit.c', 'native/region.c', 'native/launch.c', 'native/child.c', ...cases(root)],
      libs: ['-lpthread'],
    },
    { name: 'forklab-loop', cc: 'gcc', static: true, flags: [...CFLAGS, '-static'], sources: ['native/loop.c', 'native/region.c'], libs: ['-lpthread'] },
    { name: 'forklab-target-static', cc: 'gcc', static: true, flags: [...CFLAGS, '-static'], sources: ['native/target.c'], libs: [] },
    { name: 'forklab-target-dynamic', cc: 'zig', static: false, flags: [...CFLAGS, '-fPIE', '-pie'], sources: ['native/target.c'], libs: [] },
  ];
}

/** SHA-256 over native/* (names and contents, sorted), the package's version and the recipe. */
export function probeSourcesHash(root) {
  const h = createHash('sha256');
  for (const f of readdirSync(join(root, 'native')).sort())
    h.update(`native/${f}\0`)
      .update(readFileSync(join(root, 'native', f)))
      .update('\0');
  h.update(JSON.stringify({ platforms: PROBE_PLATFORMS, targets: probeTargets(root) }));
  return h.digest('hex');
}
