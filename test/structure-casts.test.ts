// A value whose type the checker cannot see is given a real type (a declaration, a schema's check), never cast
// through unknown: `as unknown as` in src/ fails here, naming the file and the line.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** The lines of a text that cast through unknown (outside // comments), as "LINE: text". */
export function doubleCasts(text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const code = line.replace(/\/\/.*$/, '');
    return /\bas\s+unknown\s+as\b/.test(code) ? [`${i + 1}: ${line.trim()}`] : [];
  });
}

test('the finder sees a cast through unknown, and not one in a comment', () => {
  assert.deepEqual(doubleCasts('const a = b as unknown as C;\n// x as unknown as y\nconst d = e as F;'), ['1: const a = b as unknown as C;']);
});

test('no value in src/ is cast through unknown', () => {
  const found = sources(SRC).flatMap((f) => doubleCasts(readFileSync(f, 'utf8')).map((l) => `src/${relative(SRC, f)}:${l}`));
  assert.deepEqual(found, []);
});
