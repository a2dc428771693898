// import checks what a document means, not only its shape: a known experiment, samples a call can take,
// statistics that are those of the samples; and it reads a bounded amount (import /dev/zero stops at once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDocumentMeaning, MAX_SAMPLE_NS } from '../src/store/meaning.js';
import { DocumentError } from '../src/document/validate.js';
import { readBounded } from '../src/cli/input.js';
import type { RunDocument } from '../src/document/run.js';
import { runCli, sandbox } from './helpers/cli.js';

const QUICK = ['spawn', '--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '8', '--ci-target', '0'];
const box = sandbox();
const source = join(box.dir, 'run.json');
const measured = runCli(box, [...QUICK, '--no-store', '--json', source]);
const doc = (): RunDocument => JSON.parse(readFileSync(source, 'utf8')) as RunDocument;
const KNOWN = ['spawn', 'cow'];

test('a real document passes; each kind of nonsense is named', () => {
  assert.equal(measured.code, 0, measured.stderr);
  checkDocumentMeaning(doc(), KNOWN);
  const unknown = { ...doc(), experiment: 'nosuch' };
  assert.throws(
    () => checkDocumentMeaning(unknown, KNOWN),
    (e: Error) => e instanceof DocumentError && /experiment "nosuch" is not one this forklab knows \(spawn, cow\)/.test(e.message),
  );
  const huge = doc();
  (huge.configurations[0]!.samplesNs as number[])[2] = 1e308;
  assert.throws(() => checkDocumentMeaning(huge, KNOWN), /configurations\[0\]\.samplesNs\[2\] is 1e\+308 ns, more than a day/);
  assert.ok(MAX_SAMPLE_NS >= 3600e9, 'a long call (an hour) is still a measurement');
  const zero = doc();
  zero.configurations[0]!.samplesNs[1] = 0;
  assert.throws(() => checkDocumentMeaning(zero, KNOWN), /configurations\[0\]\.samplesNs\[1\]: 0 ns is not a measured call/);
  const lying = doc();
  const stats = lying.configurations[0]!.stats!;
  stats.medianNs = stats.medianNs! * 1.48;
  assert.throws(() => checkDocumentMeaning(lying, KNOWN), /configurations\[0\]\.stats\.medianNs is .* but its 8 samples give .*: the statistics disagree/);
  const wide = doc();
  wide.configurations[0]!.stats!.ciHighNs = 1e15;
  assert.throws(() => checkDocumentMeaning(wide, KNOWN), /the interval .* does not hold the median/);
});

test('forklab import refuses nonsense and changes nothing; /dev/zero stops with a reason', () => {
  assert.equal(measured.code, 0, measured.stderr);
  const db = join(box.dir, 'imports.db');
  const cases: [string, (d: RunDocument) => void, RegExp][] = [
    ['unknown', (d) => (d.experiment = 'nosuch'), /experiment "nosuch" is not one this forklab knows/],
    ['huge', (d) => ((d.configurations[0]!.samplesNs as number[])[0] = 1e308), /more than a day/],
    ['lying', (d) => ((d.configurations[0]!.stats as { medianNs: number }).medianNs += 48_000), /the statistics disagree with the raw samples/],
  ];
  for (const [name, spoil, why] of cases) {
    const d = doc();
    spoil(d);
    const file = join(box.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(d));
    const r = runCli(box, ['import', file, '--db', db]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, why, name);
    assert.match(r.stderr, /nothing was imported/);
  }
  assert.equal(existsSync(db), false, 'a refused import creates no database');
  const zero = runCli(box, ['import', '/dev/zero', '--db', db]);
  assert.equal(zero.code, 2, zero.stderr);
  assert.match(zero.stderr, /\/dev\/zero is larger than \d+ MiB \(or never ends\)/);
  const ok = runCli(box, ['import', source, '--db', db]);
  assert.equal(ok.code, 0, ok.stderr);
});

test('readBounded: stops one byte past the limit, reads what fits', () => {
  const file = join(box.dir, 'ten.txt');
  writeFileSync(file, '0123456789');
  assert.equal(readBounded(file, 10), '0123456789');
  assert.throws(() => readBounded(file, 9), /larger than/);
  assert.throws(() => readBounded(join(box.dir, 'missing')), /cannot read .*missing: no such file or directory \(ENOENT\)/);
});
