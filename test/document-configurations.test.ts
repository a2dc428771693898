// A document's configurations typed by the fields their experiment declares (NAME/configuration.ts): the reader
// hands them out for a known experiment, and what stored runs hold has the types declared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { configurationsOf, type RunDocument } from '../src/document/run.js';
import { parseRunDocument } from '../src/document/validate.js';
import { EXPERIMENTS, FIELDS, type KnownExperiment } from '../src/experiments/index.js';
import { METHODS, THP_MODES } from '../src/experiments/spawn/summary.js';
import { COW_THP_MODES } from '../src/experiments/cow/index.js';
import { VMA_METHODS } from '../src/experiments/vma/configuration.js';
import { VARIANTS } from '../src/experiments/deadlock/configuration.js';
import { LAYOUTS, PHASES } from '../src/experiments/pagetables/configuration.js';
import { WAYS } from '../src/experiments/fds/configuration.js';

const stored = (name: string): RunDocument => parseRunDocument(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8'));
/** The claims' fixtures: one real run of each experiment (configurations only). */
const claimsRun = (name: string) => JSON.parse(readFileSync(new URL(`./claims-fixtures/${name}.json`, import.meta.url), 'utf8')) as RunDocument;
const docs = () => [...EXPERIMENTS.map((e) => claimsRun(e.name)), ...['spawn', 'spawn-b', 'cow', 'vma', 'deadlock', 'pagetables', 'exec', 'create'].map(stored)];

const isKnown = (name: string): name is KnownExperiment => name in FIELDS;

const isIn = <T>(xs: readonly T[], v: unknown, what: string) => assert.ok(xs.includes(v as T), `${what}: ${JSON.stringify(v)}`);
const numberOrAbsent = (v: unknown, what: string) => assert.ok(v === undefined || typeof v === 'number', `${what}: ${JSON.stringify(v)}`);

test('configurationsOf: a known experiment its own, typed; another experiment null', () => {
  const doc = stored('spawn');
  assert.equal(configurationsOf(doc, 'cow'), null);
  const cs = configurationsOf(doc, 'spawn');
  assert.ok(cs && cs.length === doc.configurations.length);
});

test('every configuration of the fixtures has the fields its experiment declares in its spec', () => {
  let checked = 0;
  for (const doc of docs()) {
    const name = doc.experiment;
    if (!isKnown(name)) assert.fail(`${name} has no fields spec`);
    checked += configurationsOf(doc, name)?.length ?? 0;
  }
  assert.ok(checked > 100, `only ${checked} configurations checked`);
});

test('stored runs hold the fields their experiments declare, with the types declared', () => {
  let checked = 0;
  for (const doc of docs()) {
    for (const c of configurationsOf(doc, 'spawn') ?? []) {
      isIn(METHODS, c.method, 'spawn method');
      isIn(THP_MODES, c.thp, 'spawn thp');
      assert.equal(typeof c.rssMb, 'number');
      assert.ok(c.hugePagesKb === null || typeof c.hugePagesKb === 'number');
      checked++;
    }
    for (const c of configurationsOf(doc, 'cow') ?? []) {
      isIn(COW_THP_MODES, c.thp, 'cow thp');
      assert.equal(typeof c.sizeMb, 'number');
      numberOrAbsent(c.pages, 'cow pages');
      checked++;
    }
    for (const c of configurationsOf(doc, 'vma') ?? []) {
      isIn(VMA_METHODS, c.method, 'vma method');
      assert.equal(typeof c.vmas, 'number');
      checked++;
    }
    for (const c of configurationsOf(doc, 'deadlock') ?? []) {
      isIn(VARIANTS, c.variant, 'deadlock variant');
      assert.ok(c.childAcquired === null || typeof c.childAcquired === 'boolean');
      checked++;
    }
    for (const c of configurationsOf(doc, 'pagetables') ?? []) {
      isIn(LAYOUTS, c.layout, 'pagetables layout');
      if (c.series === 'phase' && 'phase' in c) isIn(PHASES, c.phase, 'pagetables phase');
      checked++;
    }
    for (const c of configurationsOf(doc, 'exec') ?? []) {
      isIn(['fork-exit', 'getppid', 'ld-debug', 'fork-exec'], c.method, 'exec method');
      if (c.method === 'fork-exec') assert.equal(typeof c.target, 'string');
      checked++;
    }
    for (const c of configurationsOf(doc, 'create') ?? []) {
      isIn(['pthread-create-join', 'fork-waitpid'], c.method, 'create method');
      checked++;
    }
    for (const c of configurationsOf(doc, 'fds') ?? []) {
      isIn(WAYS, c.way, 'fds way');
      assert.equal(c.series, c.way);
      assert.ok(typeof c.fds === 'number' && typeof c.nofile === 'number' && c.fds < c.nofile);
      assert.ok(c.highestFd === null || typeof c.highestFd === 'number');
      checked++;
    }
    for (const c of configurationsOf(doc, 'runtimes') ?? []) {
      assert.equal(typeof c.runtime, 'string');
      assert.equal(typeof c.heapMb, 'number');
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} configurations checked`);
});
