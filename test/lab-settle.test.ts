// reproduce --settle: what a look measures again (only what the open claims rest on), how several runs of one
// experiment count (their probes are repeats of their own), the confidence of each look (alpha spending), and one
// real reproduce --quick --only 002 --settle whose summary says what it settled and what stays open.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configsBehind, narrowParams, selectorsOf } from '../src/claims/needs.js';
import { probesOf } from '../src/claims/evidence.js';
import { lookConfidence, MAX_LOOKS, SETTLE_ALPHA } from '../src/lab/settle.js';
import { FIXTURES, claim } from './helpers/claims-data.js';
import { runCli, sandbox } from './helpers/cli.js';

test('a look measures only the configurations behind the open claims', () => {
  const spawn = FIXTURES.spawn!.configurations;
  const behind = configsBehind([claim('000.posix-spawn-near-vfork')], spawn);
  assert.deepEqual([...new Set(behind.map((c) => c['method']))].sort(), ['posix-spawn', 'vfork-exec']);
  const params = { methods: ['fork-exec', 'vfork-exec', 'posix-spawn'], rssMb: [0, 128, 512, 1024], thp: ['on', 'off'], iterations: 200 };
  assert.deepEqual(narrowParams(params, behind), { ...params, methods: ['vfork-exec', 'posix-spawn'] });
  const one = configsBehind([claim('000.thp-off-1g-20x')], spawn);
  assert.deepEqual(narrowParams(params, one), { ...params, methods: ['fork-exec'], rssMb: [0, 1024], thp: ['off'] });
  assert.deepEqual(selectorsOf(claim('003.deadlock-without-atfork').check), [{ variant: 'without-atfork' }]);
});

test("two runs of one experiment are six repeats, not three pooled pairwise; the looks' confidences spend at most 5 %", () => {
  const probe = (repeat: number) => ({ series: 'fork', repeat, state: 'ok' as const, info: {}, samplesNs: [], stats: null });
  const a = { configurations: [1, 2, 3].map(probe) };
  const b = { configurations: [1, 2, 3].map(probe) };
  assert.deepEqual(
    probesOf([a, b]).map((c) => c.repeat),
    [1, 2, 3, 4, 5, 6],
  );
  assert.equal(probesOf([a])[0], a.configurations[0], 'one run: its own configurations');
  let spent = 0;
  for (let k = 1; k <= MAX_LOOKS; k++) {
    assert.ok(lookConfidence(k) > lookConfidence(k - 1 || 1) - 1e-12);
    spent += 1 - lookConfidence(k);
  }
  assert.ok(spent < SETTLE_ALPHA, `${spent}`);
});

test('reproduce --settle: the summary says how many settled, what stays open and why; settled verdicts say how', () => {
  const box = sandbox();
  const r = runCli(box, ['reproduce', '--quick', '--only', '002', '--no-store', '--no-color', '--settle', '8', '--json', '-'], { limitMs: 240_000 });
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const m = r.stderr.match(/Settling \(--settle 8\): (\d+) of (\d+) inconclusive verdicts? settled in (\d+) looks?/);
  assert.ok(m, r.stderr);
  const [settled, open] = [Number(m[1]), Number(m[2]) - Number(m[1])];
  assert.ok(Number(m[3]) <= MAX_LOOKS);
  assert.equal((r.stderr.match(/^ {2}settled /gm) ?? []).length, settled);
  assert.equal((r.stderr.match(/^ {2}open \S+: .+/gm) ?? []).length, open);
  const doc = JSON.parse(r.stdout) as { verdicts: { verdict: string; notes: string[] }[]; runs: unknown[] };
  assert.equal(doc.verdicts.filter((v) => v.notes.some((n) => /settled by reproduce --settle at look \d/.test(n))).length, settled);
  assert.ok(doc.runs.length >= 1);
});
