// The runtimes registry is the one place that knows the families: each family's spec (src/experiments/runtimes/
// families/) carries how it is found, how its version is read, its driver command and, compiled, its build. No
// other file of the runtimes experiment, and not trace's list of runtimes, names a family in quotes: a family
// added in its spec and its line in FAMILIES is then found, probed, built, fetched and traced like the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_VARIANTS, DRIVER_FILES, FAMILIES, familyOfName, familySpec } from '../src/experiments/runtimes/registry.js';
import { runtimeOf } from '../src/experiments/trace/model.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNTIMES = join(ROOT, 'src/experiments/runtimes');

/** Where a family may be named: its spec, and the table of what each project documents (data by family, not a switch). */
const MAY_NAME = new Set(['src/experiments/runtimes/history.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** Every quoted literal that is a family's name, with its file and line. */
function quotedFamilies(files: readonly { name: string; text: string }[]): string[] {
  const names = FAMILIES.map((f) => f.family).join('|');
  const re = new RegExp(`(['"\`])(${names})\\1`, 'g');
  return files.flatMap(({ name, text }) => text.split('\n').flatMap((line, i) => [...line.matchAll(re)].map((m) => `${name}:${i + 1}: ${m[0]}`)));
}

const read = (file: string) => ({ name: relative(ROOT, file), text: readFileSync(file, 'utf8') });

test('no file of the runtimes experiment outside the family specs, and not trace’s runtime list, names a family', () => {
  const files = sources(RUNTIMES).filter((f) => !relative(RUNTIMES, f).startsWith('families/') && !MAY_NAME.has(relative(ROOT, f)));
  assert.ok(files.some((f) => f.endsWith('discover.ts')) && files.some((f) => f.endsWith('build.ts')), 'the scan reads the runtimes folder');
  assert.deepEqual(quotedFamilies([...files, join(ROOT, 'src/experiments/trace/model.ts')].map(read)), []);
});

test('the scan finds a family named in a switch, and not a word that begins like one', () => {
  const planted = "// go and rust, in a comment\nif (family === 'go') build();\nswitch (f) { case \"rust\": case 'gopher': }\n";
  assert.deepEqual(quotedFamilies([{ name: 'planted.ts', text: planted }]), ["planted.ts:2: 'go'", 'planted.ts:3: "rust"']);
});

test('each family spec is whole: its files, variants, a finder and a probe; a compiled driver names its source', () => {
  const seen = new Set<string>();
  for (const f of FAMILIES) {
    assert.ok(!seen.has(f.family), `${f.family} is listed twice`);
    seen.add(f.family);
    assert.equal(familySpec(f.family), f);
    assert.ok(f.driverFiles.length > 0, `${f.family} names its driver files`);
    for (const d of f.driverFiles) assert.ok(DRIVER_FILES.includes(d), `${f.family}: ${d} is in the experiment's drivers`);
    for (const v of f.variants) assert.equal(v.id, `${f.family}/${v.caseName}`);
    assert.equal(typeof f.candidates, 'function');
    assert.equal(typeof f.probe, 'function');
    if (f.build) assert.ok(f.driverFiles.includes(f.build.source), `${f.family}: its build's source ${f.build.source} is one of its driver files`);
  }
  assert.equal(
    ALL_VARIANTS.length,
    FAMILIES.reduce((n, f) => n + f.variants.length, 0),
  );
});

test('a --runtime name and a traced program are told apart by the specs alone', () => {
  for (const f of FAMILIES) {
    for (const p of f.namePrefixes) assert.equal(familyOfName(`${p}42`), f.family, `${p}42 is ${f.family}`);
    // A family whose programs trace can name knows its own command.
    if (f.program) assert.equal(runtimeOf(`/usr/bin/${f.family}`), f.family);
  }
  assert.equal(familyOfName('zsh'), null);
  assert.equal(runtimeOf('/bin/bash'), 'shell');
  assert.equal(runtimeOf('/usr/bin/make'), 'other');
  // A compiled program has no name of its runtime's.
  assert.equal(runtimeOf('/usr/lib/go-1.19/bin/go'), 'other');
});
