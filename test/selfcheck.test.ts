// forklab selfcheck: the same up-front checks as the experiments, the pairs it compares, its verdict and advice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSelfcheck, preflightSelfcheck, renderSelfcheck, selfcheckPairs, type Cell, type SelfcheckParams } from '../src/cli/selfcheck.js';
import { UsageError } from '../src/experiments/types.js';
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
      ['create fork', 'create', 'fork', 'fork-exit', 'ts'],
      ['exec dynamic', 'exec', 'exec-dynamic', 'fork-exec', 'td'],
      ['exec static', 'exec', 'exec-static', 'fork-exec', 'ts'],
      ['cow first write per page 64 MB THP off', 'cow', 'fork', 'cow', 'ts'],
    ],
  );
  const cow = pairs.at(-1)!;
  assert.equal(cow.calls!(200), 10);
  const figure = cow.probe(NATIVE).figure!;
  assert.equal(figure({ series: 'fork', samplesNs: [1, 1], columns: { firstWriteNs: [3000, 5000] } }, { pages: 4 }), 1000, 'mean first-write pass ÷ pages');
  assert.equal(figure({ series: 'fork', samplesNs: [1], columns: {} }, { pages: 4 }), null);
});

function cell(label: string, probe: number[], loop: number[], failures: string[] = []): Cell {
  const p = parseSelfcheck(DEFAULTS, null);
  return { pair: { ...selfcheckPairs(p)[0]!, label }, probeMeansNs: probe, loopMeansNs: loop, failures };
}

test('verdict: least disturbed round per side; out of tolerance says why, with the witness', () => {
  const p = parseSelfcheck(DEFAULTS, null);
  const good = renderSelfcheck([cell('a', [1000, 1500], [1020, 3000])], p, null);
  assert.equal(good.pass, true);
  assert.ok(Math.abs(good.worst - 0.0196) < 0.001);
  assert.match(good.text, /passed/);

  const busy = computeWitness({ wallMs: 1000, pressureBeforeUs: 0, pressureAfterUs: 600_000, ticksBefore: null, ticksAfter: null, probes: null, pinnedCpu: null });
  const bad = renderSelfcheck([cell('a', [1000], [1000]), cell('b', [1300], [1000])], p, busy);
  assert.equal(bad.pass, false);
  assert.match(bad.text, /worst deviation: 30\.0 %/);
  assert.match(bad.text, /witness: CPU pressure 60 %/);
  assert.match(bad.text, /not passed: b outside ±10 %, while the machine was busy \(tasks waited for a CPU 60 % of the time\)/);
  assert.match(bad.text, /more --rounds \(now 5\)/);

  const quiet = renderSelfcheck(
    [cell('b', [1300], [1000])],
    p,
    computeWitness({ wallMs: 1000, pressureBeforeUs: 0, pressureAfterUs: 0, ticksBefore: null, ticksAfter: null, probes: null, pinnedCpu: null }),
  );
  assert.match(quiet.text, /with no contention seen: forklab's harness changes this figure/);

  const failed = renderSelfcheck([cell('c', [], [1000], ['probe: probe was killed by SIGKILL'])], p, null);
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
