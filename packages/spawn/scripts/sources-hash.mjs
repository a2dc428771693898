// What an addon prebuild is made from, and its SHA-256 (SOURCES.sha256 beside each prebuild; a test fails when
// native/, binding.gyp or the recipe below change without a new prebuild): binding.gyp and native/* (names and
// contents, sorted), then the recipe (compiler flags and targets) as JSON.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Zig's targets: glibc 2.17 (the oldest glibc anyone still runs Node on); each prebuild must need no newer. */
export const ADDON_TARGETS = {
  'linux-x64-glibc': { zigTarget: 'x86_64-linux-gnu.2.17', machine: 'x86-64', glibcFloor: '2.17' },
  'linux-arm64-glibc': { zigTarget: 'aarch64-linux-gnu.2.17', machine: 'aarch64', glibcFloor: '2.17' },
};

/**
 * -z now: a function missing from the C library fails the load (the loader then falls back), never a call.
 * -fvisibility=hidden: no name of the addon's own C code is visible outside its object files; node_api.h marks
 * N-API's registration symbols visible. --version-script=native/exports.map: the linker exports those two and makes
 * every other symbol in the output local, whatever brought it in. -fvisibility=hidden alone does not cover code
 * the toolchain links in: Zig links its compiler_rt as one object of weak, default-visibility symbols, pulled in
 * as a whole as soon as one of them is needed (on aarch64, where Zig's clang outlines every atomic read-modify-write
 * into an __aarch64_* helper even with -mno-outline-atomics), and the aarch64 addon then exported 536 names
 * (__aarch64_*, __divti3, memcpy, sqrt, ...). The version script is the export list itself, the same on both
 * arches and for node-gyp's build (binding.gyp), so no toolchain can widen it. Kept out still: compiler_rt's memcpy
 * and memset take glibc's place when it is linked in, so the addon's atomics are inline (FL_INLINE_ATOMICS,
 * compat.h) and elf.mjs's check wants glibc's memcpy and memset bound. -Wno-unused-command-line-argument: Zig
 * 0.14's clang warns, per file, about flags Zig itself passes to it.
 */
export const ADDON_FLAGS = [
  '-O2',
  '-std=gnu11',
  '-Wall',
  '-Wextra',
  '-Wno-unused-parameter',
  '-Wno-unused-command-line-argument',
  '-fvisibility=hidden',
  '-D_GNU_SOURCE',
  '-DNAPI_VERSION=8',
  '-shared',
  '-fPIC',
  '-s',
  '-Wl,-z,now',
  '-Wl,--version-script=native/exports.map',
];
export const ADDON_LIBS = ['-ldl', '-lpthread'];

/** The addon's C sources, as binding.gyp lists them. */
export function addonSources(pkgDir) {
  const gyp = JSON.parse(readFileSync(join(pkgDir, 'binding.gyp'), 'utf8'));
  return gyp.targets.find((t) => t.target_name === 'forklab_spawn').sources;
}

export function sourcesHash(pkgDir) {
  const h = createHash('sha256');
  const files = [
    'binding.gyp',
    ...readdirSync(join(pkgDir, 'native'))
      .sort()
      .map((f) => join('native', f)),
  ];
  for (const f of files)
    h.update(`${f}\0`)
      .update(readFileSync(join(pkgDir, f)))
      .update('\0');
  h.update(JSON.stringify({ targets: ADDON_TARGETS, flags: ADDON_FLAGS, libs: ADDON_LIBS }));
  return h.digest('hex');
}
