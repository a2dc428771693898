// SHA-256 over binding.gyp and native/* (names and contents, sorted): what a prebuild was built from.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
  return h.digest('hex');
}
