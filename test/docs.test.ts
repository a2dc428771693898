// The generated parts of docs/published-figures.md and docs/reproduce.md (src/cli/docs.ts) match data/published.json
// and the code: a change to a claim, a band, a bootstrap constant, a preset or an option without `npm run docs`
// fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { applySections, describeCheck, generatedSections } from '../src/cli/docs.js';
import { getClaim, loadPublished } from '../src/reference/published.js';
import { RESAMPLES } from '../src/stats/resample.js';

const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

test('the generated sections of the docs are up to date (npm run docs rewrites them)', () => {
  for (const [file, sections] of Object.entries(generatedSections())) {
    const text = read(file);
    assert.equal(applySections(text, sections, file), text, `${file} is stale: run npm run docs`);
  }
});

test('the generated text says what the code does', () => {
  const p = loadPublished();
  // A claim judged on means says mean, one judged on medians says median.
  assert.match(describeCheck(getClaim('000.thp-off-1g-20x', p)!.check), /^mean\(/);
  assert.match(describeCheck(getClaim('002.fork-1.8x-thread', p)!.check), /^median\(.*band 1 \+ \(1\.8 − 1\) ×\/÷ 2 = 1\.4–2\.6/);
  const docs = generatedSections(p);
  assert.match(docs['docs/reproduce.md']!['judging']!, new RegExp(`${RESAMPLES} resamples`));
  assert.doesNotMatch(read('docs/reproduce.md'), /1000 resamples/);
  // A stale section is detected: the same file with one claim changed no longer matches.
  const changed = JSON.parse(JSON.stringify(p)) as typeof p;
  changed.claims[0]!.statement = 'something else';
  const file = 'docs/published-figures.md';
  assert.notEqual(applySections(read(file), generatedSections(changed)[file]!, file), read(file));
  assert.throws(() => applySections('no markers', { claims: 'x' }, 'x.md'), /no <!-- generated:claims -->/);
});
