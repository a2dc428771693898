// Where the probe and its helpers are: the ones built here (node-gyp's build/Release under the package root, made
// at install time where a C compiler is present), else the prebuilt set for this CPU that ships in the package
// (prebuilds/linux-x64, prebuilds/linux-arm64: scripts/prebuild.mjs), or FORKLAB_NATIVE_DIR when set (a set
// elsewhere, a prebuilt one chosen by hand, or a fake one in tests). Which one runs is recorded with every run.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ForklabError } from '../errors.js';
import type { ProbeRecord } from '../env/machine.js';

/** The package root: this file is src/runner/paths.ts or dist/runner/paths.js. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface NativePaths {
  probe: string;
  loop: string;
  targetStatic: string;
  targetDynamic: string;
}

/** Which probe set runs: built on this machine, a prebuilt one (with its build id), or one FORKLAB_NATIVE_DIR names. */
export type ProbeOrigin =
  | { kind: 'built-here'; dir: string }
  | { kind: 'prebuilt'; dir: string; platform: string; buildId: string; chosenBy: 'package' | 'FORKLAB_NATIVE_DIR' }
  | { kind: 'native-dir'; dir: string };

const NAMES = { probe: 'forklab-probe', loop: 'forklab-loop', targetStatic: 'forklab-target-static', targetDynamic: 'forklab-target-dynamic' } as const;

function pathsIn(dir: string): NativePaths {
  return { probe: join(dir, NAMES.probe), loop: join(dir, NAMES.loop), targetStatic: join(dir, NAMES.targetStatic), targetDynamic: join(dir, NAMES.targetDynamic) };
}

const complete = (p: NativePaths) => Object.values(p).every((f) => existsSync(f));

/** The prebuilt set's platform directory for a CPU, e.g. prebuilds/linux-arm64 (null where none is made). */
function prebuiltDir(root: string = PACKAGE_ROOT, arch: string = process.arch): string | null {
  return arch === 'x64' || arch === 'arm64' ? join(root, 'prebuilds', `linux-${arch}`) : null;
}

/** BUILD.json of a prebuilt set (libc: the C library inside its static binaries), or null when there is none. */
function readBuildManifest(dir: string): { platform: string; buildId: string; libc: string | null } | null {
  try {
    const m = JSON.parse(readFileSync(join(dir, 'BUILD.json'), 'utf8')) as { platform?: unknown; buildId?: unknown; toolchain?: { static?: unknown } };
    const libc = typeof m.toolchain?.static === 'string' ? (/glibc [0-9.]+/.exec(m.toolchain.static)?.[0] ?? null) : null;
    return typeof m.platform === 'string' && typeof m.buildId === 'string' ? { platform: m.platform, buildId: m.buildId, libc } : null;
  } catch {
    return null;
  }
}

/**
 * The probe set this process uses, and where it came from: FORKLAB_NATIVE_DIR when set; else build/Release when
 * all four binaries are there; else the prebuilt set for this CPU. With none, build/Release's paths (missing:
 * requireNative says so).
 */
export function locateNative(root: string = PACKAGE_ROOT, env: NodeJS.ProcessEnv = process.env, arch: string = process.arch): { paths: NativePaths; origin: ProbeOrigin } {
  const chosen = env.FORKLAB_NATIVE_DIR;
  if (chosen) {
    const m = readBuildManifest(chosen);
    const origin: ProbeOrigin = m
      ? { kind: 'prebuilt', dir: chosen, platform: m.platform, buildId: m.buildId, chosenBy: 'FORKLAB_NATIVE_DIR' }
      : { kind: 'native-dir', dir: chosen };
    return { paths: pathsIn(chosen), origin };
  }
  const built = join(root, 'build', 'Release');
  if (complete(pathsIn(built))) return { paths: pathsIn(built), origin: { kind: 'built-here', dir: built } };
  const pre = prebuiltDir(root, arch);
  const m = pre === null ? null : readBuildManifest(pre);
  if (pre !== null && m !== null && complete(pathsIn(pre)))
    return { paths: pathsIn(pre), origin: { kind: 'prebuilt', dir: pre, platform: m.platform, buildId: m.buildId, chosenBy: 'package' } };
  return { paths: pathsIn(built), origin: { kind: 'built-here', dir: built } };
}

export function nativePaths(root: string = PACKAGE_ROOT): NativePaths {
  return locateNative(root).paths;
}

/** What the machine record keeps of an origin. */
export function probeRecordOf(o: ProbeOrigin): ProbeRecord {
  return { origin: o.kind, buildId: o.kind === 'prebuilt' ? o.buildId : null, dir: o.dir };
}

/** What doctor reports of the probe: the set forklab would run (null when it is missing) and a prebuilt set's libc. */
export function probeFacts(located: { paths: NativePaths; origin: ProbeOrigin } = locateNative()): { record: ProbeRecord | null; libc: string | null } {
  const present = [located.paths.probe, located.paths.targetStatic, located.paths.targetDynamic].every((p) => existsSync(p));
  return { record: present ? probeRecordOf(located.origin) : null, libc: located.origin.kind === 'prebuilt' ? (readBuildManifest(located.origin.dir)?.libc ?? null) : null };
}

/** One line for people: "built here (DIR)", "prebuilt linux-x64, build id …". */
export function describeOrigin(o: ProbeOrigin): string {
  if (o.kind === 'built-here') return `built here (${o.dir})`;
  if (o.kind === 'native-dir') return `from FORKLAB_NATIVE_DIR (${o.dir})`;
  return `prebuilt ${o.platform}, build id ${o.buildId}${o.chosenBy === 'FORKLAB_NATIVE_DIR' ? ' (chosen by FORKLAB_NATIVE_DIR)' : ''}`;
}

class ProbeMissingError extends ForklabError {
  constructor(path: string) {
    const prebuilt = prebuiltDir() !== null;
    super('probe-missing', `the C probe is not built (${path} is missing)${prebuilt ? '' : `, and no prebuilt probe ships for ${process.arch}`}`, {
      hint: 'run `npm rebuild forklab` (in a checkout: `node scripts/build-native.mjs`); it needs gcc, make and python3',
      exitCode: 1,
    });
    this.name = 'ProbeMissingError';
  }
}

export function requireNative(paths: NativePaths = nativePaths()): NativePaths {
  for (const p of [paths.probe, paths.targetStatic, paths.targetDynamic]) if (!existsSync(p)) throw new ProbeMissingError(p);
  return paths;
}
