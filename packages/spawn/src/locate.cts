// Loads the addon from the package's build/ directory. CommonJS on purpose: __dirname and require work in
// both builds (dist/ as ES modules imports this file; dist/cjs/ requires it), so neither needs import.meta.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function packageDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'binding.gyp'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`@forklab/spawn: cannot find the package directory above ${__dirname}`);
    dir = up;
  }
  return dir;
}

export function requireAddon(): unknown {
  return require(join(packageDir(), 'build', 'Release', 'forklab_spawn.node'));
}
