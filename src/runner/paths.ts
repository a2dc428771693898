// Where the native build put the probe and its helpers (node-gyp: build/Release under the package root).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ForklabError } from '../errors.js';

/** The package root: this file is src/runner/paths.ts or dist/runner/paths.js. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface NativePaths {
  probe: string;
  loop: string;
  targetStatic: string;
  targetDynamic: string;
}

/** build/Release under the package root, or FORKLAB_NATIVE_DIR when set (a probe built elsewhere, or a fake one in tests). */
export function nativePaths(root: string = PACKAGE_ROOT): NativePaths {
  const dir = process.env.FORKLAB_NATIVE_DIR || join(root, 'build', 'Release');
  return {
    probe: join(dir, 'forklab-probe'),
    loop: join(dir, 'forklab-loop'),
    targetStatic: join(dir, 'forklab-target-static'),
    targetDynamic: join(dir, 'forklab-target-dynamic'),
  };
}

export class ProbeMissingError extends ForklabError {
  constructor(path: string) {
    super('probe-missing', `the C probe is not built (${path} is missing)`, {
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
