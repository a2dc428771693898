// The fds experiment: option errors name their flag before any work, a limit above the hard RLIMIT_NOFILE is
// refused and --fds beyond the largest limit capped with a warning, the conclusion says what the intervals establish
// (a synthetic run), and a short real run measures every way on both axes with its descriptors verified.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderView } from '../src/report/terminal.js';
import { capFds, fdsExperiment as exp, HARD_CAP, hardNofile, parseNofile } from '../src/experiments/fds/index.js';
import { configsOf, FD_MARGIN, parseUnavailable, summarizeFds, type FdsParams, type FdsSummary } from '../src/experiments/fds/summary.js';
import { fdsConclusion } from '../src/experiments/fds/conclusion.js';
import { WAYS } from '../src/experiments/fds/configuration.js';
import { parseLimit, readOpenFilesLimit } from '../src/env/limits.js';
import { seriesStats } from '../src/experiments/shared/measure.js';
import { mulberry32 } from '../src/stats/random.js';
import type { ExperimentRun, Measurement } from '../src/experiments/contract/types.js';
import { forklabChildrenOf } from './helpers/procs.js';
import { testContext } from './helpers/context.js';
import { assertRefused, usageErrorFor } from './helpers/bad-input.js';

test('parse: bad values name their flag', () => {
  assertRefused(exp.parse, [
    [{ fds: 'lots' }, '--fds'],
    [{ fds: '0,,10' }, '--fds'],
    [{ fds: '-1' }, '--fds'],
    [{ nofile: '10' }, '--nofile'],
    [{ nofile: 'soft' }, '--nofile'],
    [{ nofile: '1024,' }, '--nofile'],
    [{ ways: 'fork-exec,vfork' }, '--ways'],
    [{ iterations: '0' }, '--iterations'],
    [{ repeats: '0' }, '--repeats'],
    [{ warmup: 'x' }, '--warmup'],
  ]);
  const p = exp.parse({ fds: '1000,0,1000', nofile: '4096,1024', ways: 'posix-spawn,fork-exec' });
  assert.deepEqual(p.fds, [0, 1000]);
  assert.deepEqual(p.nofile, [1024, 4096]);
  assert.deepEqual(p.ways, ['posix-spawn', 'fork-exec']);
});

test("--nofile's hard is the hard limit, at most HARD_CAP; unreadable, it is refused naming the flag", () => {
  assert.deepEqual(
    parseNofile('1024,hard', () => 20000),
    [1024, 20000],
  );
  assert.deepEqual(
    parseNofile('hard,20000', () => 20000),
    [20000],
  );
  assert.throws(() => parseNofile('hard', () => null), usageErrorFor('--nofile', /cannot be read/));
  assert.equal(hardNofile({ soft: 1024, hard: 20000 }), 20000);
  assert.equal(hardNofile({ soft: 1024, hard: 1_048_576 }), HARD_CAP);
  assert.equal(hardNofile({ soft: null, hard: null }), HARD_CAP);
  assert.equal(hardNofile(null), null);
});

test('parseLimit reads /proc/self/limits lines, "unlimited" as null', () => {
  const text = [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    'Max open files            1024                 524288               files     ',
  ].join('\n');
  assert.deepEqual(parseLimit(text, 'Max open files'), { soft: 1024, hard: 524288 });
  assert.deepEqual(parseLimit(text, 'Max cpu time'), { soft: null, hard: null });
  assert.equal(parseLimit(text, 'Max locked memory'), null);
  assert.equal(parseLimit('Max open files  lots  1024  files', 'Max open files'), null);
  assert.equal(typeof readOpenFilesLimit()?.hard, 'number');
});

test('preflight refuses a limit above the hard limit and caps --fds to what the largest limit leaves', () => {
  const hard = readOpenFilesLimit()?.hard;
  if (typeof hard === 'number') {
    const p = exp.parse({ nofile: `1024,${hard + 1}` });
    assert.throws(() => exp.preflight(p), usageErrorFor('--nofile', /hard RLIMIT_NOFILE.*ulimit -Hn/));
  }
  assert.throws(() => exp.preflight(exp.parse({ fds: '2000', nofile: '1024' })), usageErrorFor('--nofile', /no room/));
  const p = exp.parse({ fds: '0,3000', nofile: '1024,2048' });
  const warnings = exp.preflight(p);
  assert.deepEqual(p.fds, [0, 2048 - FD_MARGIN]);
  assert.deepEqual(p.requestedFds, [0, 3000]);
  assert.equal(warnings[0]?.code, 'fds-capped');
  assert.deepEqual(capFds([0, 100], 1024), { fds: [0, 100], warning: null });
});

test('the configurations: every limit at the fewest descriptors, every descriptor count at the largest limit', () => {
  assert.deepEqual(configsOf({ fds: [0, 1000, 4000], nofile: [1024, 4096, 20000] }), [
    { fds: 0, nofile: 1024 },
    { fds: 0, nofile: 4096 },
    { fds: 0, nofile: 20000 },
    { fds: 1000, nofile: 20000 },
    { fds: 4000, nofile: 20000 },
  ]);
  assert.deepEqual(parseUnavailable('fork-close-range: close_range: ENOSYS (kernel before 5.9); posix-spawn-closefrom: x'), [
    { way: 'fork-close-range', why: 'close_range: ENOSYS (kernel before 5.9)' },
    { way: 'posix-spawn-closefrom', why: 'x' },
  ]);
});

/** A run whose cell medians are level(way, fds, nofile) µs, two repeats, samples of sd 3 % (log scale). */
function syntheticRun(level: (way: string, fds: number, nofile: number) => number): ExperimentRun<FdsSummary, FdsParams> {
  const rng = mulberry32(3);
  const gauss = () => Math.sqrt(-2 * Math.log(rng() || 1e-12)) * Math.cos(2 * Math.PI * rng());
  const params: FdsParams = { ways: [...WAYS], fds: [0, 10000], requestedFds: [0, 10000], nofile: [1024, 20000], iterations: 40, warmup: 2, repeats: 2 };
  const ms: Measurement[] = [];
  for (const c of configsOf(params))
    for (const repeat of [1, 2]) {
      const shared = 0.01 * gauss();
      for (const way of WAYS) {
        const samplesNs = Array.from({ length: 40 }, () => level(way, c.fds, c.nofile) * 1000 * Math.exp(shared + 0.03 * gauss()));
        ms.push({
          series: way,
          identity: { way, fds: c.fds, nofile: c.nofile },
          observed: { highestFd: c.fds + 3, nofileHard: 20000 },
          repeat,
          state: 'ok',
          failure: null,
          info: {},
          samplesNs,
          columns: {},
          stats: seriesStats(samplesNs, 1),
        });
      }
    }
  return { experiment: 'fds', params, measurements: ms, summary: summarizeFds(ms, 1), warnings: [], complete: true };
}

test('the conclusion: the loops grow with the limit, the others do not; the cheapest way to close where both are largest', () => {
  const loops = new Set(['fork-close-loop', 'fork-fcntl-loop', 'posix-spawn-addclose']);
  const run = syntheticRun((way, fds, nofile) => 500 + (loops.has(way) ? nofile * 0.2 : 0) + fds * (way === 'fork-proc-fd' ? 0.3 : 0.05));
  const lines = fdsConclusion(run);
  assert.equal(lines.length, 3, lines.join('\n'));
  assert.match(lines[0]!, /^Raising RLIMIT_NOFILE from 1,024 to 20,000 \(0 descriptors open\) makes .*dearer; the other 5 ways show no established growth/);
  for (const loop of ['the fcntl loop', 'the close\\(\\) loop', "posix_spawn's close action"]) assert.match(lines[0]!, new RegExp(`${loop}[^;]* \\d+(\\.\\d+)?× \\[95 % CI`));
  assert.match(lines[0]!, /20\d ns per descriptor of the limit/);
  assert.match(lines[1]!, /^From 0 to 10,000 descriptors open \(RLIMIT_NOFILE 20,000\) every way grow/);
  assert.match(lines[2]!, /cheapest way to close in the child is close_range/);
  // The view puts it first, then both axes' tables.
  const view = exp.view(run);
  assert.equal(view[0]!.kind, 'conclusion');
  const text = renderView(view, { color: false });
  assert.match(text, /Against RLIMIT_NOFILE, 0 descriptors open/);
  assert.match(text, /Against descriptors open, RLIMIT_NOFILE 20,000/);
  // Nothing established where every way costs the same.
  const flat = fdsConclusion(syntheticRun(() => 700));
  assert.match(flat[0]!, /\(0 descriptors open\): fork\+exec with close-on-exec alone, .*close_range.* show no established growth/);
  assert.match(flat[1]!, /no way's growth is established/);
});

test('a short real run: every way on both axes, descriptors opened close-on-exec and the closing verified; nothing left behind', async () => {
  const p = exp.parse({ fds: '0,300', nofile: '256,512', iterations: '4', warmup: '1', repeats: '2' });
  assert.deepEqual(exp.preflight(p), []);
  const run = await exp.run(p, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.warnings));
  const unavailable = new Set(run.summary.unavailable.map((u) => u.way));
  const ways = WAYS.filter((w) => !unavailable.has(w));
  assert.ok(ways.includes('fork-fcntl-loop') && ways.includes('posix-spawn'), `measured: ${ways.join(', ')}`);
  assert.equal(run.measurements.length, 3 * 2 * ways.length);
  for (const m of run.measurements) {
    assert.equal(m.series, m.identity.way);
    assert.equal(m.state, 'ok', m.failure ?? '');
    assert.equal(m.samplesNs.length, 4);
    assert.equal(m.info.cloexec, true);
    assert.equal(m.info.nofile, m.identity.nofile);
    assert.ok((m.observed.highestFd as number) >= (m.identity.fds as number), `highest descriptor ${m.observed.highestFd}`);
    for (const w of ways.filter((x) => x.startsWith('fork-') && x !== 'fork-exec')) assert.match(String(m.info.closeVerified), new RegExp(`\\b${w}\\b`));
  }
  assert.deepEqual([...new Set(run.summary.fits.map((f) => `${f.axis}@${f.at}`))], ['nofile@0', 'fds@512']);
  assert.equal(run.summary.cells.length, 3 * ways.length);
  const text = renderView(exp.view(run), { color: false });
  assert.match(text, /ns per fd of limit/);
  assert.match(text, /ns per open fd/);
  assert.deepEqual(forklabChildrenOf(process.pid), []);
});
