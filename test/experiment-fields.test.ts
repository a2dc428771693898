// An experiment's fields are declared once, as a spec (its configuration.ts): its run writes them through it and
// cannot write a field the spec does not declare — each line under a @ts-expect-error below does not compile
// (`tsc -p tsconfig.test.json` fails if one ever does) — and what is read back is checked against the same spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { measurementsFrom } from '../src/experiments/shared/measure.js';
import { measurementsOf } from '../src/experiments/contract/fields.js';
import { COW_FIELDS } from '../src/experiments/cow/configuration.js';
import { CONTEND_FIELDS } from '../src/experiments/contend/configuration.js';
import { FIELDS, EXPERIMENTS, RECORDED } from '../src/experiments/index.js';
import { configurationsOf, type RunDocument } from '../src/document/run.js';
import { ForklabError } from '../src/errors.js';
import type { ProbeResult } from '../src/runner/probe.js';

const result: ProbeResult = {
  state: 'ok',
  caseName: 'cow',
  args: {},
  info: {},
  series: [{ series: 'first-write', samplesNs: [120, 130, 125], columns: {} }],
  durationMs: 1,
  stderr: '',
};

test('a run writes the fields its spec declares, and those only', () => {
  const ms = measurementsFrom(COW_FIELDS, result, { sizeMb: 64, thp: 'on', pages: 16384 }, { hugePagesKb: null }, 0, ['first-write'], 1);
  assert.deepEqual(ms[0]!.identity, { sizeMb: 64, thp: 'on', pages: 16384 });
  assert.deepEqual(ms[0]!.observed, { hugePagesKb: null });
  // An optional field left out is not written.
  assert.deepEqual(measurementsFrom(COW_FIELDS, result, { sizeMb: 64, thp: 'on' }, { hugePagesKb: 2048 }, 0, ['first-write'], 1)[0]!.identity, { sizeMb: 64, thp: 'on' });

  // The type check refuses each of these (they would run: nothing is checked at run time on this path).
  const observed = { hugePagesKb: 0, hugePagesKB: 0 };
  // @ts-expect-error a misspelt identity field (sizeMB) does not compile
  measurementsFrom(COW_FIELDS, result, { sizeMB: 64, thp: 'on' }, { hugePagesKb: null }, 0, [], 1);
  // @ts-expect-error an undeclared field in an object passed in (not written in the call) does not compile either
  measurementsFrom(COW_FIELDS, result, { sizeMb: 64, thp: 'on' }, observed, 0, [], 1);
  // @ts-expect-error a value the spec does not allow (thp 'always') does not compile
  measurementsFrom(COW_FIELDS, result, { sizeMb: 64, thp: 'always' }, { hugePagesKb: null }, 0, [], 1);
  // @ts-expect-error a field no kind of contend's configurations declares (creator: 'thread' is a field of one, threads of none)
  measurementsFrom(CONTEND_FIELDS, result, { method: 'fork-exec', threads: 2, rssMb: 0 }, { cpusUsable: 2 }, 0, [], 1);
});

test('measurements read back are checked against the spec: a field of another type is an error naming it', () => {
  const ms = measurementsFrom(COW_FIELDS, result, { sizeMb: 64, thp: 'on' }, { hugePagesKb: null }, 0, ['first-write'], 1);
  assert.equal(measurementsOf(COW_FIELDS, ms).length, 1);
  const bad = ms.map((m) => ({ ...m, identity: { ...m.identity, thp: 'always' } }));
  assert.throws(
    () => measurementsOf(COW_FIELDS, bad),
    (e: unknown) => e instanceof ForklabError && /cow measurement \(series first-write, repeat 0\).*\/thp/.test(e.message),
  );
});

test('every experiment has its fields spec, under its name', () => {
  for (const e of [...EXPERIMENTS, ...RECORDED]) {
    const spec = (FIELDS as Readonly<Record<string, (typeof FIELDS)[keyof typeof FIELDS]>>)[e.name];
    assert.ok(spec, `${e.name} has no entry in FIELDS (src/experiments/index.ts)`);
    for (const s of Array.isArray(spec) ? spec : [spec]) assert.equal(s.experiment, e.name);
  }
});

test('a configuration without the fields its experiment declares is named', () => {
  const doc = JSON.parse(readFileSync(new URL('./claims-fixtures/cow.json', import.meta.url), 'utf8')) as RunDocument;
  assert.ok(configurationsOf(doc, 'cow')!.length > 0);
  const bad: RunDocument = { ...doc, configurations: doc.configurations.map((c, i) => (i === 1 ? { ...c, thp: 'always' } : c)) };
  assert.throws(() => configurationsOf(bad, 'cow'), /^DocumentError: configurations\[1\]\.thp is not one of off, on, default \(got "always"\)$/);
});
