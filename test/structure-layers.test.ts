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

/**
 * Parts a part may not import although it ranks above them: the command line reaches the probe (locating it,
 * starting it, killing it, resolving a program) only through a run's life in src/lab/.
 */
export const SKIPPED: Readonly<Record<string, readonly string[]>> = { cli: ['runner'] };

test('no part imports a part it must reach through another', () => {
  const through: string[] = [];
  for (const file of sources(SRC)) {
    const from = partOf(file);
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const to = partOf(resolve(dirname(file), spec));
      if (SKIPPED[from]?.includes(to)) through.push(`src/${relative(SRC, file)} imports ${spec} (${from} → ${to})`);
    }
  }
  assert.deepEqual(through, []);
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

/**
 * The circles among files: each strongly connected group of more than one file (or a file importing itself), its
 * files sorted. `edges` maps a file to the files it imports.
 */
export function circlesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (edges.get(v) ?? []).includes(v)) out.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

test('no circle of imports among the files of one folder', () => {
  const edges = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const mine = relative(SRC, file);
    const same = importsOf(readFileSync(file, 'utf8'))
      .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
      .filter((target) => dirname(target) === dirname(file))
      .map((target) => relative(SRC, target));
    edges.set(mine, same);
  }
  const circles = circlesOf(edges).map((c) => `src/${dirname(c[0]!)}: ${c.map((f) => f.split('/').pop()).join(' ↔ ')}`);
  assert.deepEqual(circles, []);
});

test('the circle finder names every file of a circle, and nothing else', () => {
  const edges = new Map<string, string[]>([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
    ['f.ts', ['d.ts']],
  ]);
  assert.deepEqual(circlesOf(edges), [['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  assert.deepEqual(
    circlesOf(
      new Map([
        ['x.ts', ['y.ts']],
        ['y.ts', []],
      ]),
    ),
    [],
  );
});
