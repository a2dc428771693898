// forklab selfcheck: the same up-front checks as the experiments, the pairs it compares, its verdict and advice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { parseSelfcheck } from '../src/cli/selfcheck.js';
import { preflightSelfcheck, selfcheckPairs } from '../src/lab/selfcheck.js';
import { BLOCK, blockMeans, type Cell, type SelfcheckParams } from '../src/claims/selfcheck.js';
import { renderSelfcheck } from '../src/report/selfcheck.js';
import { nativePaths } from '../src/runner/paths.js';
import { median } from '../src/stats/descriptive.js';
import { UsageError } from '../src/errors.js';
import { computeWitness } from '../src/env/witness.js';
import { runCli, sandbox } from './helpers/cli.js';

const DEFAULTS = { suites: 'spawn', methods: 'fork-exec,vfork-exec,posix-spawn', rss: '0,512', thp: 'off', iterations: '200', rounds: '5' };
const NATIVE = { probe: 'p', loop: 'l', targetStatic: 'ts', targetDynamic: 'td' } as never;

test('--thp takes a list or all, never silently the first', () => {
  assert.deepEqual(parseSelfcheck({ ...DEFAULTS, thp: 'on,off' }, null).thp, ['on', 'off']);
  assert.deepEqual(parseSelfcheck({ ...DEFAULTS, thp: 'all' }, null).thp, ['on', 'off', 'default']);
  const p = parseSelfcheck({ ...DEFAULTS, thp: 'on,off', rss: '0' }, null);
  assert.deepEqual(
    selfcheckPairs(p).map((x) => x.label),
    ['fork-exec 0 MB THP on', 'vfork-exec 0 MB THP on', 'posix-spawn 0 MB THP on', 'fork-exec 0 MB THP off', 'vfork-exec 0 MB THP off', 'posix-spawn 0 MB THP off'],
  );
  assert.throws(() => parseSelfcheck({ ...DEFAULTS, thp: 'sometimes' }, null), /--thp: unknown value "sometimes"/);
});

test('--pin must be one of the allowed CPUs', () => {
  assert.equal(parseSelfcheck({ ...DEFAULTS, pin: '1' }, [0, 1]).pinCpu, 1);
  assert.throws(
    () => parseSelfcheck({ ...DEFAULTS, pin: '7' }, [0, 1]),
    (e: unknown) => e instanceof UsageError && /--pin: CPU 7 is not one this process may run on \(allowed: 0,1\)/.test(e.message),
  );
});

test('memory preflight: an --rss that does not fit is refused before anything runs', () => {
  const p = parseSelfcheck({ ...DEFAULTS, rss: '0,1048576' }, null);
  assert.throws(
    () => preflightSelfcheck(p, 2 * 2 ** 30),
    (e: unknown) => e instanceof UsageError && /--rss: 1048576 MB does not fit: this machine can give about 2048 MB more/.test(e.message),
  );
  preflightSelfcheck(parseSelfcheck(DEFAULTS, null), 2 * 2 ** 30);
  preflightSelfcheck({ ...p, suites: ['create'] } as SelfcheckParams, 2 * 2 ** 30); // no region without spawn
});

test('the pairs of create and exec compare each probe series with a loop of the same operation', () => {
  const p = parseSelfcheck({ ...DEFAULTS, suites: 'create,exec,cow' }, null);
  const pairs = selfcheckPairs(p);
  assert.deepEqual(
    pairs.map((x) => [x.label, x.probe(NATIVE).caseName, x.probe(NATIVE).series, x.loop(NATIVE, 9)[0], x.loop(NATIVE, 9)[4]]),
    [
      ['create thread', 'create', 'thread', 'thread', 'ts'],
      ['create fork', 'create', 'fork', 'threaded-fork-exit', 'ts'], // a process that has made a thread, as the probe's has
      ['exec dynamic', 'exec', 'exec-dynamic', 'fork-exec', 'td'],
      ['exec static', 'exec', 'exec-static', 'fork-exec', 'ts'],
      ['cow first write per page 64 MB THP off', 'cow', 'fork', 'cow', 'ts'],
    ],
  );
  const cow = pairs.at(-1)!;
  assert.equal(cow.calls!(200), 10);
  const blocks = cow.probe(NATIVE).blocks!;
  assert.deepEqual(blocks({ series: 'fork', samplesNs: [1, 1], columns: { firstWriteNs: [3000, 5000] } }, { pages: 4 }), [750, 1250], 'each first-write pass ÷ pages');
  assert.equal(blocks({ series: 'fork', samplesNs: [1], columns: {} }, { pages: 4 }), null);
});

function cell(label: string, probe: number[][], loop: number[][], failures: string[] = []): Cell {
  const p = parseSelfcheck(DEFAULTS, null);
  return { pair: { ...selfcheckPairs(p)[0]!, label }, probeRoundsNs: probe, loopRoundsNs: loop, failures };
}
/** Rounds of blocks around a level: each round its own offset, each block a small spread. */
const rounds = (levels: number[]) => levels.map((l) => [l - 4, l - 2, l, l + 2, l + 4, l - 1, l + 1, l - 3, l + 3, l]);

test('verdict: forklab ÷ loop with an interval over rounds; ok inside ±10 %, OUT outside, ? across, each saying why', () => {
  const p = parseSelfcheck(DEFAULTS, null);
  const good = renderSelfcheck([cell('a', rounds([1000, 1004, 998, 1002, 1000]), rounds([1010, 1006, 1012, 1008, 1010]))], p, null);
  assert.equal(good.pass, true, good.text);
  assert.ok(Math.abs(good.worst - 0.0099) < 0.002, String(good.worst));
  assert.match(good.text, /a +[\d.]+ +[\d.]+ +0\.99\d \[0\.9\d\d–\d\.\d+\] +ok/);
  assert.match(good.text, /passed/);

  const busy = computeWitness({ wallMs: 1000, pressureBeforeUs: 0, pressureAfterUs: 600_000, ticksBefore: null, ticksAfter: null, probes: null, pinnedCpu: null });
  const quietWitness = computeWitness({ wallMs: 1000, pressureBeforeUs: 0, pressureAfterUs: 0, ticksBefore: null, ticksAfter: null, probes: null, pinnedCpu: null });
  const slower = () => cell('b', rounds([1300, 1302, 1298, 1301, 1299]), rounds([1000, 1002, 998, 1001, 999]));
  const bad = renderSelfcheck([cell('a', rounds([1000, 1000, 1000]), rounds([1000, 1000, 1000])), slower()], p, busy);
  assert.equal(bad.pass, false);
  assert.match(bad.text, /worst deviation: 30\.0 %/);
  assert.match(bad.text, /witness: CPU pressure 60 %/);
  assert.match(bad.text, /not passed: b: the whole 95 % interval of forklab ÷ loop lies outside ±10 %, while the machine was busy \(tasks waited for a CPU 60 % of the time\)/);
  const quiet = renderSelfcheck([slower()], p, quietWitness);
  assert.match(quiet.text, /b +[\d.]+ +[\d.]+ +1\.30\d .* OUT/);
  assert.match(quiet.text, /forklab's harness changes this figure/);

  // Fresh processes that swing by ±30 % around the same level: not established either way.
  const swinging = renderSelfcheck([cell('c', rounds([700, 1300, 1000, 800, 1200]), rounds([1300, 700, 1000, 1200, 800]))], p, quietWitness);
  assert.equal(swinging.pass, false);
  assert.match(swinging.text, /c +.* \?$/m);
  assert.match(swinging.text, /undecided: c: the interval reaches past ±10 %\. Fresh processes of the same side differ by up to 86 %/);
  assert.match(swinging.text, /Rerun with --rounds 20 .*, or with --pin CPU\./);
  const pinned = renderSelfcheck([cell('c', rounds([700, 1300, 1000, 800, 1200]), rounds([1300, 700, 1000, 1200, 800]))], { ...p, pinCpu: 0 }, quietWitness);
  assert.doesNotMatch(pinned.text, /--pin/, 'no --pin advice to a pinned run');

  const failed = renderSelfcheck([cell('c', [], rounds([1000]), ['probe: probe was killed by SIGKILL'])], p, null);
  assert.equal(failed.pass, false);
  assert.match(failed.text, /c: probe: probe was killed by SIGKILL/);
});

test('through the CLI: bad --rss and --pin are refused before any work, naming the flag', () => {
  const box = sandbox();
  const run = (...args: string[]) => runCli(box, ['selfcheck', ...args]);
  const rss = run('--rss', '4194304');
  assert.equal(rss.code, 2, rss.stderr);
  assert.match(rss.stderr, /--rss: 4194304 MB does not fit/);
  const pin = run('--pin', '4000');
  assert.equal(pin.code, 2, pin.stderr);
  assert.match(pin.stderr, /--pin: CPU 4000 is not one this process may run on/);
  assert.doesNotMatch(rss.stdout + pin.stdout, /selfcheck:/, 'nothing was measured');
});

test('a round is the median of its blocks’ means per call: one disturbed call spoils one block, not the round', () => {
  assert.deepEqual(blockMeans([1, 2, 3, 4, 5, 6, 7], 3), [2, 5], 'a trailing partial block is left out');
  assert.deepEqual(blockMeans([4, 6], 3), [5], 'unless it is the only one');
  assert.deepEqual(blockMeans([], 3), []);
  const calls = Array.from({ length: 200 }, () => 250);
  calls[57] = 40_000; // one preempted call: the mean per call moves by 80 %, the median of block means not at all
  assert.ok(Math.abs(calls.reduce((a, b) => a + b, 0) / calls.length / 250 - 1.795) < 0.001);
  assert.equal(median(blockMeans(calls, BLOCK)), 250);
});

test('the C loop prints its block means beside its mean per call', () => {
  const n = nativePaths();
  const out = JSON.parse(execFileSync(n.loop, ['fork-exit', '0', 'default', '25', n.targetStatic, '0', '10'], { encoding: 'utf8', timeout: 30_000 })) as {
    meanNs: number;
    iterations: number;
    blockMeansNs: number[];
  };
  assert.equal(out.iterations, 25);
  assert.equal(out.blockMeansNs.length, 2, '25 calls in blocks of 10: two whole blocks');
  assert.ok(out.blockMeansNs.every((x) => x > 0) && out.meanNs > 0);
  const cow = JSON.parse(execFileSync(n.loop, ['cow', '4', 'off', '3', n.targetStatic], { encoding: 'utf8', timeout: 30_000 })) as { blockMeansNs: number[]; perPage: boolean };
  assert.equal(cow.perPage, true);
  assert.equal(cow.blockMeansNs.length, 3, 'one block per pass over the region');
});

test("the C loop forks from a process that has made a thread when asked (create fork's pair), and the same number of times", () => {
  const n = nativePaths();
  const out = JSON.parse(execFileSync(n.loop, ['threaded-fork-exit', '0', 'default', '20', n.targetStatic, '2', '10'], { encoding: 'utf8', timeout: 30_000 })) as {
    iterations: number;
    blockMeansNs: number[];
  };
  assert.equal(out.iterations, 20);
  assert.equal(out.blockMeansNs.length, 2);
  assert.throws(
    () => execFileSync(n.loop, ['threaded-fork', '0', 'default', '5', n.targetStatic], { encoding: 'utf8', timeout: 30_000, stdio: 'pipe' }),
    /unknown method threaded-fork/,
  );
});
