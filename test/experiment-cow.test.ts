// The cow experiment: input checks, the split of the probe's per-fork line, and one short real run
// checking shape (first write ≫ second write, one CoW fault per page, reads fault-free), never absolute time.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { cowExperiment, splitForkSeries, thpVerdict, COW_SERIES } from '../src/experiments/cow/index.js';
import { measurementToJson } from '../src/document/run.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';

const SIZE_MB = 24; // unusual, so the leftover check below can recognise this test's probes
const PAGES = SIZE_MB * 256;

/** Probes (and their forked children, which share the command line) still alive: children of this test
 * process running the probe, or any process with this test's probe command line (orphans included). */
function leftovers(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const isProbe = cmd[0]?.endsWith('forklab-probe') ?? false;
      // The probe cuts its key=value arguments in place, so its command line reads "size-mb 24".
      const ours = isProbe && cmd[1] === 'cow' && cmd.join(' ').replace(/=/g, ' ').includes(`size-mb ${SIZE_MB} `);
      if ((ppid === process.pid && isProbe) || ours) found.push(`${pid} ${cmd.join(' ')}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ thp: 'sometimes' }, '--thp'],
    [{ thp: 'on,' }, '--thp'],
    [{ sizeMb: '0' }, '--size-mb'],
    [{ sizeMb: 'eighty' }, '--size-mb'],
    [{ sizeMb: '80MB' }, '--size-mb'],
    [{ sizeMb: '-1' }, '--size-mb'],
    [{ sizeMb: '99999999999' }, '--size-mb'],
    [{ iterations: '0' }, '--iterations'],
    [{ repeats: 'x' }, '--repeats'],
    [{ warmup: '-1' }, '--warmup'],
  ];
  assertRefused((raw) => cowExperiment.parse(raw), cases);
});

test('defaults follow the article: 80 MB, THP off and on, 5 repeats of 3 forks', () => {
  assert.deepEqual(cowExperiment.parse({}), { sizeMb: 80, thp: ['off', 'on'], repeats: 5, iterations: 3, warmup: 1 });
});

test('a --size-mb that does not fit (parent + child copy) is refused before any work', () => {
  const p = cowExperiment.parse({ sizeMb: String(4 * 1024 * 1024) }); // 4 TiB: parses, fits no machine this runs on
  assert.throws(() => cowExperiment.preflight(p), usageErrorFor('--size-mb', /does not fit/));
});

test("the probe's per-fork line becomes five series in ns per page, not rounded", () => {
  const fork = {
    series: 'fork',
    samplesNs: [9_000_000],
    columns: {
      readNs: [100],
      readMinflt: [0],
      firstWriteNs: [8_000_000],
      firstWriteMinflt: [1000],
      hugeBeforeKb: [2048],
      hugeAfterKb: [0],
      secondWriteNs: [9_500],
      secondWriteMinflt: [0],
      noForkWriteNs: [5_400],
      noForkWriteMinflt: [0],
      parentHugeKb: [2048],
      noForkReadNs: [15_600],
      noForkReadMinflt: [0],
    },
  };
  const s = splitForkSeries(fork, 1000);
  assert.deepEqual(
    s.map((x) => x.series),
    [...COW_SERIES],
  );
  const get = (n: string) => s.find((x) => x.series === n)!;
  assert.deepEqual(get('read').samplesNs, [0.1]);
  assert.deepEqual(get('first-write').samplesNs, [8000]);
  assert.deepEqual(get('second-write').samplesNs, [9.5]);
  assert.deepEqual(get('no-fork-write').samplesNs, [5.4]);
  assert.deepEqual(get('first-write').columns, { passNs: [8_000_000], minflt: [1000], hugeBeforeKb: [2048], hugeAfterKb: [0], forkToReapNs: [9_000_000] });
  assert.deepEqual(get('no-fork-write').columns.hugeKb, [2048]);
  assert.deepEqual(get('no-fork-read').samplesNs, [15.6]);
  assert.deepEqual(get('no-fork-read').columns, { passNs: [15_600], minflt: [0] });
  assert.deepEqual(splitForkSeries(undefined, 1000), []);
});

test("a line from a probe without the parent's read pass gives the other four series", () => {
  const columns: Record<string, number[]> = {
    readNs: [100],
    readMinflt: [0],
    firstWriteNs: [8_000],
    firstWriteMinflt: [1],
    secondWriteNs: [50],
    secondWriteMinflt: [0],
    noForkWriteNs: [40],
    noForkWriteMinflt: [0],
  };
  const s = splitForkSeries({ series: 'fork', samplesNs: [9_000], columns }, 10);
  assert.deepEqual(
    s.map((x) => x.series),
    ['read', 'first-write', 'second-write', 'no-fork-write'],
  );
});

test('THP verdicts from huge pages and faults', () => {
  const regionKb = 80 * 1024;
  assert.equal(thpVerdict(regionKb, 0, 0, 1), 'no-huge-pages');
  assert.equal(thpVerdict(regionKb, regionKb, 0, 1), 'split');
  assert.equal(thpVerdict(regionKb, regionKb, regionKb, 1 / 512), 'copied-huge');
  assert.equal(thpVerdict(regionKb, regionKb, regionKb, 1), 'mixed');
});

test('real run: every pass measured, one CoW fault per page, reads fault-free, THP reported coherently', async () => {
  const params = cowExperiment.parse({ sizeMb: String(SIZE_MB), thp: 'off,on', repeats: '1', iterations: '2', warmup: '1' });
  cowExperiment.preflight(params);
  const run = await cowExperiment.run(params, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.measurements.filter((m) => m.state !== 'ok').map((m) => m.failure)));
  assert.equal(run.measurements.length, 2 * COW_SERIES.length);
  for (const m of run.measurements) {
    assert.ok((COW_SERIES as readonly string[]).includes(m.series));
    assert.deepEqual([m.identity.sizeMb, m.identity.pages], [SIZE_MB, PAGES]);
    assert.equal(m.samplesNs.length, 2);
    assert.ok(m.samplesNs.every((x) => x > 0 && Number.isFinite(x)));
    assert.equal(m.columns.minflt?.length, 2);
    const j = measurementToJson(m);
    assert.equal(j.series, m.series);
    assert.equal(j.thp, m.identity.thp);
    assert.equal(j.pages, PAGES);
    assert.deepEqual(j.samplesNs, m.samplesNs);
  }
  for (const cell of run.summary.cells) {
    const p = cell.passes;
    const [rd, w1, w2] = [p.read!, p['first-write']!, p['second-write']!];
    assert.ok(rd && w1 && w2 && p['no-fork-write'] && p['no-fork-read']);
    assert.ok(p['no-fork-read'].faultsPerPage < 0.05, `THP ${cell.thp}: the parent's read took ${p['no-fork-read'].minflt} faults`);
    // How much slower the first write is, is a figure (npm run bench:*, forklab cow), not a test: two iterations on a
    // shared machine say nothing about it. The structure holds whatever the timings.
    assert.ok(w1.medianNs > 0 && w2.medianNs > 0);
    assert.ok(rd.faultsPerPage < 0.05, `THP ${cell.thp}: read took ${rd.minflt} faults`);
    assert.ok(w2.faultsPerPage < 0.05, `THP ${cell.thp}: second write took ${w2.minflt} faults`);
    assert.ok(cell.cowTotalMs! > 0 && Math.abs(cell.cowTotalMs! - (w1.medianNs * PAGES) / 1e6) < 1e-9);
    assert.ok(cell.firstToSecond && Number.isFinite(cell.firstToSecond.ratio) && cell.firstToSecond.ratio > 0);
    assert.equal(cell.thpVerdict, thpVerdict(SIZE_MB * 1024, cell.hugeBeforeKb!, cell.hugeAfterKb!, w1.faultsPerPage));
    if (cell.thp === 'off') {
      assert.equal(cell.hugeBeforeKb, 0);
      assert.ok(w1.faultsPerPage >= 0.9 && w1.faultsPerPage <= 1.1, `THP off: ${w1.faultsPerPage} faults per page on the first write`);
    }
    if (cell.thpVerdict === 'split') assert.ok(w1.faultsPerPage >= 0.9 && w1.faultsPerPage <= 1.1 && cell.hugeAfterKb! < cell.hugeBeforeKb!);
    if (cell.thpVerdict === 'copied-huge') assert.ok(w1.minflt >= PAGES / 512 / 2 && w1.minflt <= (PAGES / 512) * 2 + 2);
  }
  const rendered = renderView(cowExperiment.view(run), { color: false });
  assert.match(rendered, /THP off: child after fork/);
  assert.match(rendered, /THP on: child after fork/);
  assert.match(rendered, /first ÷ second write = /);
  assert.match(rendered, /kernel: AnonHugePages/);
  assert.deepEqual(leftovers(), [], 'no probe or child left behind');
});
