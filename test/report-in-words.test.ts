// The claims engine's notes in words (src/report/in-words.ts): document keys become words and units, units stay units.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inWords } from '../src/report/in-words.js';

test('document keys become words; a unit such as kB or MB is left as it is', () => {
  assert.equal(inWords('method=fork-exec,thp=off at rssMb 1024'), 'method fork-exec, thp off at rss (MB) 1024');
  assert.equal(inWords('only 0 kB of 1048576 kB were huge pages'), 'only 0 kB of 1048576 kB were huge pages');
  assert.equal(inWords('the prior for readings (kB, faults, bytes)'), 'the prior for readings (kB, faults, bytes)');
  assert.match(inWords('hugePagesKb below regionRssKb'), /^huge pages \(kB\) below region rss \(kB\)$/);
});
