// LD_DEBUG=statistics parsing on literal fixtures: this machine's glibc, an older glibc, and broken input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLdStatistics, summarizeLdStatistics, type LdStatistics } from '../src/experiments/exec/ldstats.js';

// glibc 2.36 (Debian 12), x86-64: two blocks, every line prefixed with the pid and a tab.
const GLIBC_236 = [
  '     13372:\t',
  '     13372:\truntime linker statistics:',
  '     13372:\t  total startup time in dynamic loader: 183783 cycles',
  '     13372:\t            time needed for relocation: 11058 cycles (6.0%)',
  '     13372:\t                 number of relocations: 83',
  '     13372:\t      number of relocations from cache: 7',
  '     13372:\t        number of relative relocations: 3',
  '     13372:\t           time needed to load objects: 36379 cycles (19.7%)',
  '     13372:\t',
  '     13372:\truntime linker statistics:',
  '     13372:\t           final number of relocations: 84',
  '     13372:\tfinal number of relocations from cache: 7',
  '',
].join('\n');

// Older glibc: "clock cycles", no load-objects line, no exit block; the program wrote to stderr too.
const OLDER = [
  'hello from the program',
  '      4242:\t',
  '      4242:\truntime linker statistics:',
  '      4242:\t  total startup time in dynamic loader: 1026180 clock cycles',
  '      4242:\t            time needed for relocation: 363060 clock cycles (35.3%)',
  '      4242:\t                 number of relocations: 137',
  '      4242:\t      number of relocations from cache: 3',
  '      4242:\t        number of relative relocations: 1185',
  '      4242:\t',
].join('\n');

test('glibc 2.36 output: every figure of both blocks', () => {
  const r = parseLdStatistics(GLIBC_236);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.deepEqual(r.stats, {
    totalStartupCycles: 183783,
    relocationCycles: 11058,
    loadObjectsCycles: 36379,
    relocations: 83,
    relocationsFromCache: 7,
    relativeRelocations: 3,
    finalRelocations: 84,
  });
});

test('older glibc output: clock cycles, missing optional lines are null, other stderr ignored', () => {
  const r = parseLdStatistics(OLDER);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.equal(r.stats.totalStartupCycles, 1026180);
  assert.equal(r.stats.relocationCycles, 363060);
  assert.equal(r.stats.relocations, 137);
  assert.equal(r.stats.relativeRelocations, 1185);
  assert.equal(r.stats.loadObjectsCycles, null);
  assert.equal(r.stats.finalRelocations, null);
});

test('lines without the pid prefix parse too', () => {
  const r = parseLdStatistics(GLIBC_236.replace(/^ +\d+:\t/gm, ''));
  assert.ok(r.ok);
  assert.equal(r.stats.relocations, 83);
});

test('malformed input is refused with a reason, never a made-up number', () => {
  const cases: [string, RegExp][] = [
    ['', /no "runtime linker statistics" block/],
    ['ld.so: something else entirely\n', /no "runtime linker statistics" block/],
    [GLIBC_236.replace('number of relocations: 83', 'number of relocations: lots'), /"number of relocations" is not a whole number/],
    [GLIBC_236.replace('183783 cycles', '1.8e5 cycles'), /"total startup time in dynamic loader" is not a whole number/],
    [GLIBC_236.replace(/.*time needed for relocation.*\n/, ''), /no "time needed for relocation" line/],
    ['     1:\truntime linker statistics:\n     1:\t  total startup time in dynamic loader: 5 cycles\n', /no "time needed for relocation" line/],
  ];
  for (const [text, reason] of cases) {
    const r = parseLdStatistics(text);
    assert.equal(r.ok, false, JSON.stringify(text.slice(0, 80)));
    if (!r.ok) assert.match(r.reason, reason);
  }
});

test('summary: medians of cycles, counts of the first run, varying counts flagged', () => {
  const run = (total: number, reloc: number, relocations = 83): LdStatistics => ({
    totalStartupCycles: total,
    relocationCycles: reloc,
    loadObjectsCycles: null,
    relocations,
    relocationsFromCache: 7,
    relativeRelocations: 3,
    finalRelocations: 84,
  });
  assert.equal(summarizeLdStatistics([]), null);
  const s = summarizeLdStatistics([run(300, 30), run(100, 10), run(200, 20), run(1000, 40)])!;
  assert.equal(s.runs, 4);
  assert.equal(s.totalStartupCyclesMedian, 250);
  assert.equal(s.relocationCyclesMedian, 25);
  assert.equal(s.loadObjectsCyclesMedian, null);
  assert.equal(s.relocations, 83);
  assert.equal(s.countsVaried, false);
  assert.equal(summarizeLdStatistics([run(1, 1), run(1, 1, 90)])!.countsVaried, true);
});
