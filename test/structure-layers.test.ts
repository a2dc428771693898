// Layers point one way: probe → runner → experiments → document → store and fleet (side by side, each reading
// documents) → claims → report → lab → cli, on a ground of libraries every layer may use (stats, env, reference,
// text, errors, version). An import from a lower layer to a higher one, or between two ground libraries, fails
// here, naming the file and the import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** The rank of each top-level part of src/: a file may import its own part and parts of a lower rank. */
export const RANKS: Readonly<Record<string, number>> = {
  'errors.ts': 0,
  'version.ts': 0,
  text: 1,
  stats: 1,
  env: 1,
  reference: 1,
  runner: 2,
  experiments: 3,
  document: 4,
  store: 5,
  fleet: 5,
  claims: 6,
  report: 7,
  lab: 8,
  cli: 9,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** The relative module specifiers a file imports (static, re-exports and dynamic imports; type-only ones too). */
export function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[1] ?? m[2]!;
    if (spec.startsWith('.')) out.push(spec);
  }
  return out;
}

const partOf = (file: string) => relative(SRC, file).split('/')[0]!.replace(/\.js$/, '.ts');

test('every part of src/ has a rank', () => {
  for (const part of readdirSync(SRC)) assert.ok(part in RANKS, `src/${part} has no rank in test/structure-layers.test.ts`);
});

test('every part sits at a whole rank', () => {
  for (const [part, rank] of Object.entries(RANKS)) assert.ok(Number.isInteger(rank), `src/${part} has rank ${rank}`);
});

test('no import runs against the direction of the layers', () => {
  const against: string[] = [];
  for (const file of sources(SRC)) {
    const from = partOf(file);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const to = partOf(resolve(dirname(file), spec));
      if (to === from) continue;
      const ok = RANKS[to]! < RANKS[from]! && !(RANKS[to] === 1 && RANKS[from] === 1);
      if (!ok) against.push(`src/${relative(SRC, file)} imports ${spec} (${from} → ${to})`);
    }
  }
  assert.deepEqual(against, []);
});

test('the import parser sees every form of import', () => {
  const text = [
    "import a from './a.js';",
    "import type { B } from '../b/b.js';",
    "export { c } from '../c.js';",
    "import {\n  d,\n  e,\n} from '../d.js';",
    "const f = await import('../f.js');",
    "import pc from 'picocolors';",
  ].join('\n');
  assert.deepEqual(importsOf(text), ['./a.js', '../b/b.js', '../c.js', '../d.js', '../f.js']);
});
