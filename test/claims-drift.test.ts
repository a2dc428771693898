// The drift between runs inside a verdict's intervals (src/claims/drift.ts): quantities keyed so that the same one
// is found in earlier runs; a history that swings widens the interval and says so ("near the band's edge on this
// machine"), one that agrees does not; a run is never its own history; --within-run gives today's intervals; the
// estimates go into the history database and come back out per machine. No probe runs here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantityKey } from '../src/claims/drift.js';
import { evaluateClaim } from '../src/claims/evaluate.js';
import { judgeDocuments } from '../src/claims/judge.js';
import { dataFor } from '../src/claims/select.js';
import { driftHistory, keepEstimates } from '../src/lab/drift-history.js';
import { settle } from '../src/lab/settle.js';
import { Store } from '../src/store/db.js';
import { loadPublished } from '../src/reference/published.js';
import { claim, p } from './helpers/claims-data.js';
import { tempDir } from './helpers/tmp.js';
import { at, createRun, historyOf } from './helpers/drift-runs.js';

const CLAIM = '002.fork-1.8x-thread';

test('a quantity has the same key in every run of the same configurations measured the same way, another when they differ', () => {
  const a = dataFor([createRun(2.5, 'a', at(0))], 'create');
  const b = dataFor([createRun(2.2, 'b', at(1))], 'create');
  const c = dataFor([createRun(2.5, 'c', at(2), { iterations: 2000 })], 'create');
  const keys = (d: typeof a) => [quantityKey(CLAIM, 'ratio', d, ['0,2,4']), quantityKey(CLAIM, 'ratio', d, ['1,3,5'])];
  assert.deepEqual(keys(a), keys(b));
  assert.notEqual(keys(a)[0], keys(a)[1], 'other configurations, another quantity');
  assert.notEqual(keys(a)[0], keys(c)[0], 'other iterations, another quantity');
  const est = judgeDocuments([createRun(2.5, 'a', at(0))], { seed: 1, drift: { withinRun: true } }).estimates!['create']!;
  assert.ok(
    Object.keys(est).some((k) => k.startsWith(`${CLAIM}|`)),
    Object.keys(est).join(', '),
  );
});

test('a machine that swings between runs widens the interval: near the band, the verdict says so and what would settle it', () => {
  const now = createRun(2.45, 'now', at(9));
  const within = evaluateClaim([now], claim(CLAIM));
  assert.equal(within.verdict, 'holds', within.detail);
  const swinging = historyOf([2.1, 2.9, 2.3, 3.0, 2.05, 2.8, 2.4, 2.95].map((r, i) => createRun(r, `h${i}`, at(i))));
  const v = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: swinging } } });
  assert.equal(v.verdict, 'inconclusive', v.detail);
  assert.equal(v.withinRun?.verdict, 'holds');
  assert.ok(v.drift && v.drift.runs === 8 && v.drift.percent > 5, JSON.stringify(v.drift));
  assert.match(v.plain!, /near the band's edge on this machine: runs here vary by ±[\d.]+ % \(learnt from 8 earlier runs on this machine\)/);
  assert.match(v.settle!, /drift between runs keeps it open.*forklab judge/);
  assert.ok(v.interval!.low < within.interval!.low && v.interval!.high > within.interval!.high);
  // The same run judged with today's intervals: no drift on it.
  const today = evaluateClaim([now], claim(CLAIM), { drift: { withinRun: true, history: { create: swinging } } });
  assert.equal(today.verdict, 'holds');
  assert.equal(today.drift, undefined);
});

test('a machine whose runs agree keeps its verdicts, with a drift below the prior; a run is never its own history', () => {
  const now = createRun(2.2, 'now', at(9));
  const steady = historyOf([2.2, 2.21, 2.19, 2.2, 2.2, 2.21, 2.2, 2.19].map((r, i) => createRun(r, `h${i}`, at(i))));
  const learnt = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: steady } } });
  const prior = evaluateClaim([now], claim(CLAIM), { drift: {} });
  assert.equal(learnt.verdict, 'holds', learnt.detail);
  assert.equal(prior.drift!.runs, 0);
  assert.ok(learnt.drift!.percent < prior.drift!.percent, `${learnt.drift!.percent} vs ${prior.drift!.percent}`);
  // which prior weighed in is the verdict's data; the outputs say it once for all verdicts, not as a note on each
  assert.ok(
    prior.drift!.priors.some((p) => /the prior for timings/.test(p)),
    prior.drift!.priors.join(' | '),
  );
  assert.ok(!prior.notes.some((n) => /drift between runs|prior/.test(n)), prior.notes.join(' | '));
  const own = historyOf([now]);
  const self = evaluateClaim([now], claim(CLAIM), { drift: { history: { create: own } } });
  assert.equal(self.drift!.runs, 0, 'its own estimates are not history');
});

test('several separate runs judged together pool their drift (τ ÷ √runs); a settle look belongs to the run it settles', () => {
  const swinging = historyOf([2.1, 2.9, 2.3, 3.0, 2.05, 2.8].map((r, i) => createRun(r, `h${i}`, at(i))));
  const one = evaluateClaim([createRun(2.45, 'n1', at(7))], claim(CLAIM), { drift: { history: { create: swinging } } });
  const runs = [2.45, 2.5, 2.4, 2.47].map((r, i) => createRun(r, `n${i}`, at(7 + i)));
  const pooled = evaluateClaim(runs, claim(CLAIM), { drift: { history: { create: swinging } } });
  const w = (v: typeof one) => Math.log(v.interval!.high / v.interval!.low);
  assert.ok(w(pooled) < w(one), `${w(pooled)} vs ${w(one)}`);
  assert.equal(dataFor(runs, 'create').sessions, 4);
  const look = { ...createRun(2.45, 'look', at(8)), params: { iterations: 300, settleOf: 'n1' } };
  assert.equal(dataFor([runs[0]!, look], 'create').sessions, 1);
});

test('judge and reproduce: the estimates are kept per machine and run set, read back most recent first, never across machines', () => {
  const dir = tempDir('forklab-drift-');
  const store = Store.open(`${dir}/h.db`);
  try {
    const runs = [2.1, 2.9, 2.3].map((r, i) => createRun(r, `00000000-0000-4000-8000-00000000000${i}`, at(i)));
    for (const d of runs) store.importDocument(d);
    for (const d of runs) assert.equal(keepEstimates(store, [d], judgeDocuments([d], { seed: 1, drift: { withinRun: true } })), 1);
    const now = createRun(2.45, '00000000-0000-4000-8000-000000000009', at(9));
    const h = driftHistory(store, [now], { keep: false, seed: 1 });
    assert.equal(h.pool, undefined);
    assert.equal(driftHistory(store, [now], { keep: false, seed: 1, pool: true }).pool, true, "reproduce's and judge's default: the machine's value");
    assert.deepEqual(
      h.history!['create']!.map((x) => x.runIds[0]),
      [runs[2]!.runId, runs[1]!.runId, runs[0]!.runId],
    );
    const other = { ...now, machine: { ...now.machine, hostname: 'elsewhere' } };
    assert.deepEqual(driftHistory(store, [other], { keep: false, seed: 1 }).history!['create'], []);
    // Runs stored without estimates are judged for them once (and kept when the history may be written).
    const later = createRun(2.6, '00000000-0000-4000-8000-000000000005', at(5));
    store.importDocument(later);
    const notes: string[] = [];
    const again = driftHistory(store, [now], { keep: true, seed: 1, note: (s) => notes.push(s) });
    assert.equal(again.history!['create']!.length, 4);
    assert.match(notes.join(''), /learning this machine's drift between runs of create from 1 stored run/);
    // Removing a run forgets what was learnt from it.
    store.removeRuns([store.resolveRun(runs[0]!.runId!)]);
    assert.equal(driftHistory(store, [now], { keep: false, seed: 1 }).history!['create']!.length, 3);
  } finally {
    store.close();
  }
});

test('reproduce --settle does not spend looks on verdicts only the drift keeps open', async () => {
  const now = createRun(2.45, 'now', at(9));
  const swinging = historyOf([2.1, 2.9, 2.3, 3.0, 2.05, 2.8, 2.4, 2.95].map((r, i) => createRun(r, `h${i}`, at(i))));
  const drift = { history: { create: swinging } };
  const judged = judgeDocuments([now], { seed: 1, articles: ['002'], drift });
  const held = judged.verdicts.filter((v) => v.verdict === 'inconclusive' && v.withinRun?.verdict !== 'inconclusive');
  assert.ok(held.length > 0);
  const s = await settle({
    steps: [{ name: 'create', exp: null, params: {} }],
    docs: [now],
    judged,
    budgetS: 10,
    seed: 1,
    pinCpu: null,
    articles: ['002'],
    absent: {},
    published: p,
    signal: new AbortController().signal,
    store: null,
    warn: () => {},
    note: () => {},
    drift,
  });
  assert.equal(s.looks, 0);
  for (const v of held) assert.match(s.open.find((o) => o.claimId === v.claimId)!.why, /only the drift between runs here keeps it open/);
});

test('the reports and the summary show the drift each verdict used, or that the intervals are one run’s own', async () => {
  const now = createRun(2.45, 'now', at(9));
  const swinging = historyOf([2.1, 2.9, 2.3, 3.0, 2.05, 2.8, 2.4, 2.95].map((r, i) => createRun(r, `h${i}`, at(i))));
  const judged = judgeDocuments([now], { seed: 1, articles: ['002'], drift: { history: { create: swinging } } });
  const doc = {
    schema: 'forklab.reproduce' as const,
    schemaVersion: 2 as const,
    forklabVersion: 'test',
    preset: 'quick' as const,
    startedAt: at(9),
    finishedAt: at(9),
    articles: judged.articles,
    experiments: [{ experiment: 'create', state: 'ran in 1 s' }],
    runs: [now],
    seed: 1,
    verdicts: judged.verdicts,
    figures: judged.figures,
  };
  const { reproductionMarkdown, reproductionHtml } = await import('../src/report/reproduction.js');
  const md = reproductionMarkdown(doc, [now], loadPublished());
  assert.match(md, /Between runs here: ±[\d.]+ %/);
  // Where the drift was learnt from: said once, in the intervals line below, not with every verdict.
  assert.doesNotMatch(md, /Between runs here: ±[\d.]+ % \(from 8 earlier runs\)/);
  assert.match(md, /Intervals include the drift between runs on this machine \(learnt from up to 8 earlier runs here/);
  assert.match(md, /near the band's edge on this machine: runs here vary by ±/);
  const html = await reproductionHtml(doc, [now], loadPublished());
  assert.match(html, /Between runs here: ±/);
  const { renderSummary } = await import('../src/report/summary.js');
  const { PLAIN } = await import('../src/report/verdicts.js');
  // In the terminal where the drift was learnt from is said once, in the intervals line, not under each verdict.
  const summary = renderSummary(judged, doc.experiments, PLAIN, 'footer');
  assert.match(summary, /between runs here: ±[\d.]+ %; this run alone: holds/);
  assert.match(summary.replace(/\n +/g, ' '), /Intervals include the drift between runs on this machine \(learnt from up to 8 earlier runs here/);
  const today = judgeDocuments([now], { seed: 1, articles: ['002'], drift: { withinRun: true } });
  assert.match(renderSummary(today, doc.experiments, PLAIN, 'footer'), /Intervals: this run's own \(--within-run\)/);
  assert.doesNotMatch(reproductionMarkdown({ ...doc, verdicts: today.verdicts, withinRun: true }, [now], loadPublished()), /Between runs here/);
});

test('a reproduction stored as version 1 (verdicts without drift) still loads and reports', async () => {
  const { asReproduceDocument } = await import('../src/claims/reproduction.js');
  const { reproductionMarkdown } = await import('../src/report/reproduction.js');
  const now = createRun(2.2, 'old', at(1));
  const judged = judgeDocuments([now], { seed: 1, articles: ['002'], drift: { withinRun: true } });
  const v1 = {
    schema: 'forklab.reproduce',
    schemaVersion: 1,
    forklabVersion: '0.1.0',
    preset: 'quick',
    startedAt: at(1),
    finishedAt: at(1),
    articles: ['002'],
    experiments: [],
    runs: [now],
    seed: 1,
    verdicts: judged.verdicts,
    figures: judged.figures,
  };
  const doc = asReproduceDocument(JSON.parse(JSON.stringify(v1)), 'R1');
  const md = reproductionMarkdown(doc, [now], loadPublished());
  assert.match(md, /Article 002/);
  assert.doesNotMatch(md, /Between runs here/);
  assert.throws(() => asReproduceDocument({ ...v1, schemaVersion: 3 }, 'R9'), /schemaVersion 3; this forklab reads versions 1 and 2/);
});
