// Verdicts on the machine's value (drift.pool, the default of reproduce and judge): each quantity of this run pooled
// with its estimates in the machine's earlier runs, those that started before it; what this run alone says is kept
// beside it (`alone`), and --no-pool, several runs judged together and runs made later are not pooled; a run judged
// long after it was made pools the runs before it from the history. No probe runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_HISTORY_RUNS } from '../src/claims/drift.js';
import { evaluateClaim } from '../src/claims/evaluate.js';
import { judgeDocuments } from '../src/claims/judge.js';
import { driftHistory, keepEstimates } from '../src/lab/drift-history.js';
import { renderSummary } from '../src/report/summary.js';
import { Store } from '../src/store/db.js';
import { claim } from './helpers/claims-data.js';
import { at, createRun, historyOf } from './helpers/drift-runs.js';
import { tempDir } from './helpers/tmp.js';

const CLAIM = '002.fork-1.8x-thread';
const PLAIN = { bold: (s: string) => s, dim: (s: string) => s, green: (s: string) => s, red: (s: string) => s, yellow: (s: string) => s };
const width = (iv: { low: number; high: number }) => Math.log(iv.high / iv.low);

test("a verdict on the machine's value pools this run with the runs before it: narrower than this run's, which it keeps as `alone`", () => {
  const now = createRun(2.2, 'now', at(9));
  const before = historyOf([2.2, 2.25, 2.15, 2.2, 2.22, 2.18, 2.2, 2.21].map((r, i) => createRun(r, `h${i}`, at(i))));
  const pooled = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: before }, pool: true } });
  const alone = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: before } } });
  assert.equal(pooled.drift?.pooled, 9, JSON.stringify(pooled.drift));
  assert.equal(pooled.drift?.runs, 8);
  assert.ok(width(pooled.interval!) < 0.8 * width(alone.interval!), `pooled ${JSON.stringify(pooled.interval)}, alone ${JSON.stringify(alone.interval)}`);
  assert.equal(pooled.alone?.verdict, alone.verdict);
  assert.deepEqual(pooled.alone?.interval, alone.interval);
  assert.equal(alone.alone, undefined, 'not pooled: nothing beside it');
  assert.equal(alone.drift?.pooled, undefined);
});

test("the measured value is the machine's: between this run's and the earlier runs', this run's own kept beside it", () => {
  const now = createRun(2.6, 'now', at(9));
  const before = historyOf([2.0, 2.02, 1.98, 2.0, 2.01, 1.99].map((r, i) => createRun(r, `h${i}`, at(i))));
  const v = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: before }, pool: true } });
  assert.ok(v.measured! > 2.0 && v.measured! < 2.6, `${v.measured}`);
  assert.ok(Math.abs(v.alone!.measured! - 2.6) < 0.05, `${v.alone!.measured}`);
  assert.ok(v.interval!.low <= v.measured! && v.measured! <= v.interval!.high, JSON.stringify(v.interval));
  // A run that disagrees this much teaches a drift the pooled interval carries: wider than with a run that agrees.
  const agreeing = evaluateClaim([createRun(2.0, 'same', at(9))], claim(CLAIM), { drift: { history: { create: before }, pool: true } });
  assert.ok(width(v.interval!) > 1.5 * width(agreeing.interval!), `${JSON.stringify(v.interval)} against ${JSON.stringify(agreeing.interval)}`);
});

test('runs made after the judged one teach the drift but are not pooled; --no-pool and several runs judged together are not pooled', () => {
  const history = historyOf([2.2, 2.25, 2.15, 2.2, 2.22, 2.18, 2.2, 2.21].map((r, i) => createRun(r, `h${i}`, at(i < 4 ? i : i + 2))));
  const now = createRun(2.2, 'now', at(5));
  const v = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: history }, pool: true } });
  assert.equal(v.drift?.runs, 8, 'all eight teach τ');
  assert.equal(v.drift?.pooled, 5, 'four before it, and it');
  const off = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: history }, pool: false } });
  assert.equal(off.drift?.pooled, undefined);
  assert.equal(off.alone, undefined);
  const together = [2.2, 2.21].map((r, i) => createRun(r, `n${i}`, at(20 + i)));
  const t = evaluateClaim(together, claim(CLAIM), { drift: { history: { create: history }, pool: true } });
  assert.equal(t.drift?.pooled, undefined, 'already a pool of separate runs');
  // A run is never its own history, pooled or not.
  const self = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: historyOf([now]) }, pool: true } });
  assert.equal(self.drift?.pooled, undefined);
});

test("the summary says the verdicts are on the machine's value, and each verdict's line names the runs it pools", () => {
  const now = createRun(2.2, 'now', at(9));
  const before = historyOf([2.2, 2.25, 2.15].map((r, i) => createRun(r, `h${i}`, at(i))));
  const judged = judgeDocuments([now], { seed: 1, articles: ['002'], drift: { history: { create: before }, pool: true } });
  const text = renderSummary(judged, [{ experiment: 'create', state: 'ran' }], PLAIN, 'footer');
  assert.match(text, /each verdict is on this machine's value, this run pooled with up to 3 earlier runs of the same settings \(--no-pool: this run alone\)/);
  assert.match(text, /the machine's value from 4 runs here \(this one and 3 before it\)/);
  const alone = judgeDocuments([now], { seed: 1, articles: ['002'], drift: { history: { create: before } } });
  assert.doesNotMatch(renderSummary(alone, [{ experiment: 'create', state: 'ran' }], PLAIN, 'footer'), /machine's value/);
});

test('a run judged long after it was made pools the runs before it, not only the most recent ones', () => {
  const dir = tempDir('forklab-drift-pool-');
  const store = Store.open(`${dir}/h.db`);
  try {
    const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    // three runs, then the one judged (hour 3), then 22 more: the 19 most recent are all later than it
    const runs = Array.from({ length: 26 }, (_, i) => createRun(2.2 + 0.01 * (i % 3), uuid(i), at(i)));
    for (const d of runs) {
      store.importDocument(d);
      keepEstimates(store, [d], judgeDocuments([d], { seed: 1, drift: { withinRun: true } }));
    }
    const old = runs[3]!;
    const drift = driftHistory(store, [old], { keep: false, seed: 1, pool: true });
    const v = evaluateClaim([old], claim(CLAIM), { drift });
    assert.equal(v.drift?.pooled, 4, 'the three before it, and it');
    assert.equal(v.drift?.runs, MAX_HISTORY_RUNS, 'τ from the most recent runs');
    const alone = evaluateClaim([old], claim(CLAIM), { drift: driftHistory(store, [old], { keep: false, seed: 1 }) });
    assert.equal(alone.drift?.pooled, undefined);
  } finally {
    store.close();
  }
});
