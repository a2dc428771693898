// How verdicts are judged, case by case: the named cases of a claim that must not hold by default (opposite
// direction, identical THP series, an exploding ratio interval, two x values, one-sided data, a killed deadlock
// child) and what reaches a verdict's notes. No probe runs here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evaluateClaims } from '../src/claims/evaluate.js';
import { FIXTURES, claim, docs, edit, inOneRepeat, p, rss, scale, set, setUs, vmas, verdictOf } from './helpers/claims-data.js';

describe('how verdicts are judged', () => {
  test('opposite direction: dynamic exec faster than static (0.93×) never holds "about 1.61×"', () => {
    // execve alone: static 45.6 µs, dynamic 0.93 × 45.6 = 42.4 µs (fork-exit 75.5 µs).
    const v = verdictOf('004.dynamic-static-exec-1.61x', docs(edit('exec', { series: 'exec-dynamic' }, setUs(75.5 + 0.93 * 45.6))));
    assert.equal(v.verdict, 'differs', v.detail);
    assert.ok(v.interval!.high < 1.31, 'the band starts at 1 + 0.61 ÷ 2');
    assert.equal(verdictOf('004.static-exec-faster', docs(edit('exec', { series: 'exec-dynamic' }, setUs(75.5 + 0.93 * 45.6)))).verdict, 'differs');
  });

  test('opposite direction: fork+waitpid cheaper than a thread never holds "about 1.8×"', () => {
    const v = verdictOf('002.fork-1.8x-thread', docs(edit('create', { series: 'fork' }, setUs(40))));
    assert.equal(v.verdict, 'differs', v.detail);
    assert.match(v.detail, /band 1 \+ \(1\.80× − 1\) ×\/÷ 2 = 1\.40×–2\.60×/);
  });

  test('identical THP series: MADV_HUGEPAGE gave no huge pages, so no THP claim is judged', () => {
    const none = edit('spawn', { thp: 'on' }, set('hugePagesKb', 0));
    for (const id of ['000.thp-off-slope-16x', '000.thp-never-more-expensive', '000.pmd-cost-442ns', '000.thp-off-vs-on-1g-9.3x', '000.vfork-unaffected-by-thp']) {
      const v = verdictOf(id, docs(none));
      assert.equal(v.verdict, 'not-measurable', id);
      assert.match(v.detail, /^THP was not applied \(0 of \d+ MB in huge pages/, id);
    }
    // THP off that was not honoured, and a coverage just under 90 %.
    assert.match(
      verdictOf('000.thp-off-1g-20x', docs(edit('spawn', { thp: 'off', rssMb: 1024 }, set('hugePagesKb', 1048576)))).detail,
      /^THP off was not honoured \(1024 of 1024 MB/,
    );
    assert.equal(verdictOf('000.thp-off-vs-on-1g-9.3x', docs(edit('spawn', { thp: 'on', rssMb: 1024 }, set('hugePagesKb', 0.89 * 1048576)))).verdict, 'not-measurable');
    // Claims that do not use THP-labelled data are not affected; a claim on THP off alone still is judged.
    assert.equal(verdictOf('000.thp-off-1g-20x', docs(none)).verdict, 'holds');
  });

  test('THP on and off measured alike (with huge pages recorded): the 16× slope ratio differs', () => {
    const same = edit(
      'spawn',
      { method: 'fork-exec', thp: 'on' },
      setUs((c) => 175 + 3.6 * rss(c)),
    );
    assert.equal(verdictOf('000.thp-off-slope-16x', docs(same)).verdict, 'differs');
  });

  test('exploding ratio interval: a THP-on slope that swings sign between repeats is inconclusive, not holds', () => {
    // Repeat 2 grows steeply with RSS, repeat 3 falls: the denominator's slope crosses 0 in the resamples.
    const a = inOneRepeat(
      () =>
        edit(
          'spawn',
          { method: 'fork-exec', thp: 'on' },
          setUs((c) => 186 + 2 * rss(c)),
        ),
      2,
    );
    const d = structuredClone(a.spawn!);
    for (const c of d.configurations) if (c['method'] === 'fork-exec' && c['thp'] === 'on' && c['repeat'] === 3) setUs((x) => 2500 - 2 * rss(x))(c);
    const v = verdictOf('000.thp-off-slope-16x', docs({ spawn: d }));
    assert.equal(v.verdict, 'inconclusive', v.detail);
    assert.ok(v.settle);
  });

  test('linear growth needs three distinct x values, and a growth factor a positive start', () => {
    const two = edit('spawn', {}, () => undefined).spawn!;
    two.configurations = two.configurations.filter((c) => c['rssMb'] === 0 || c['rssMb'] === 1024);
    const v = verdictOf('000.fork-exec-grows-linearly', docs({ spawn: two }));
    assert.equal(v.verdict, 'not-measurable');
    assert.match(v.detail, /2 values of rssMb \(0, 1024\); a linear trend needs at least 3/);
    // A timing of 0 or below is not a measurement: refused, not fitted.
    const negative = edit(
      'vma',
      { method: 'fork-exit' },
      setUs((c) => -50 + 0.45 * vmas(c)),
    );
    const g = verdictOf('003.fork-grows-with-vmas', docs(negative));
    assert.equal(g.verdict, 'not-measurable');
    assert.match(g.detail, /a sample of -\d+ ns is not a measured call/);
    // A line from (almost) 0: the growth factor is measured from the start, which is above 0.
    const late = edit(
      'vma',
      { method: 'fork-exit' },
      setUs((c) => (vmas(c) === 0 ? 0.001 : 0.45 * vmas(c))),
    );
    assert.equal(verdictOf('003.fork-grows-with-vmas', docs(late)).verdict, 'holds');
  });

  test('one-sided data: a pair measured on one side only makes the claim not measurable, never holds on the rest', () => {
    const d = structuredClone(FIXTURES.spawn!);
    d.configurations = d.configurations.filter((c) => !(c['method'] === 'posix-spawn' && c['rssMb'] === 1024));
    const v = verdictOf('000.vfork-fastest', docs({ spawn: d }));
    assert.equal(v.verdict, 'not-measurable', v.detail);
    assert.match(v.detail, /method=posix-spawn has no successful configuration at rssMb 1024, which the run measured for other series/);
    // The lesser side missing a pair: said as such.
    const l = structuredClone(FIXTURES.spawn!);
    l.configurations = l.configurations.filter((c) => !(c['method'] === 'vfork-exec' && c['rssMb'] === 1024 && c['thp'] === 'on'));
    const w = verdictOf('000.vfork-fastest', docs({ spawn: l }));
    assert.equal(w.verdict, 'not-measurable', w.detail);
    assert.match(w.detail, /rss 1024 MB, thp on was measured on one side only/);
  });

  test('a killed deadlock child, or one that never reported ETIMEDOUT, does not count as deadlocked', () => {
    const killed = edit('deadlock', { variant: 'without-atfork' }, (c) => void Object.assign(c, { childKilled: true, childReported: false, childResult: null }));
    const v = verdictOf('003.deadlock-without-atfork', docs(killed));
    assert.equal(v.verdict, 'not-measurable');
    assert.match(v.detail, /no repeat can count \(3 repeats: its child was killed\)/);
    const one = edit('deadlock', { variant: 'without-atfork', repeat: 2 }, (c) => void Object.assign(c, { childReported: false, childResult: null }));
    const w = verdictOf('003.deadlock-without-atfork', docs(one));
    assert.equal(w.verdict, 'holds');
    assert.ok(
      w.notes.some((n) => /1 repeat: its child never reported/.test(n)),
      w.notes.join(' | '),
    );
    const eintr = edit('deadlock', { variant: 'without-atfork' }, set('childResult', 'EINTR'));
    assert.match(verdictOf('003.deadlock-without-atfork', docs(eintr)).detail, /reported EINTR, not ETIMEDOUT/);
  });

  test("an incomplete run, failed configurations and the experiment's warnings reach every verdict", () => {
    const d = structuredClone(FIXTURES.create!);
    d.complete = false;
    d.warnings = [{ code: 'repeats-disagree', message: 'fork: the medians of the probe processes differ by 30 %' }];
    d.configurations.push({ ...structuredClone(d.configurations[0]!), repeat: 4, state: 'failed', samplesNs: [] });
    const v = verdictOf('002.fork-1.8x-thread', docs({ create: d }));
    assert.ok(v.notes.some((n) => /run is incomplete/.test(n)));
    assert.ok(v.notes.some((n) => /1 of 7 create configurations failed/.test(n)));
    assert.ok(v.notes.some((n) => /warning repeats-disagree: fork: the medians/.test(n)));
  });

  test('a single repeat: the verdict says its interval shows iteration noise only; a spread needs two', () => {
    const d = structuredClone(FIXTURES.create!);
    d.configurations = d.configurations.filter((c) => c['repeat'] === 1);
    const v = verdictOf('002.fork-1.8x-thread', docs({ create: d }));
    assert.ok(v.notes.some((n) => /one repeat only/.test(n)));
    const s = structuredClone(FIXTURES.spawn!);
    s.configurations = s.configurations.filter((c) => c['repeat'] === 1);
    assert.match(verdictOf('000.runs-stable', docs({ spawn: s })).detail, /a single repeat, and the claim is about how repeats agree/);
  });

  test("the 15 % of posix_spawn over vfork is judged at the article's 1.15, not a widened limit", () => {
    const v = verdictOf('000.posix-spawn-near-vfork', docs(edit('spawn', { method: 'posix-spawn' }, scale(1.04))));
    assert.equal(v.verdict, 'differs', v.detail);
    assert.match(claim('000.posix-spawn-near-vfork').check.basis!, /1\.18/);
  });

  test('differs gives the measured ÷ published factor; the statistic is honoured', () => {
    const v = verdictOf('002.fork-1.8x-thread', docs(edit('create', { series: 'fork' }, setUs(470))));
    assert.ok(Math.abs(v.factor! - 470 / 47 / 1.8) < 0.05, String(v.factor));
    assert.equal(v.published, 1.8);
    // One huge outlier per repeat moves the mean (the article's statistic for 000), not the median.
    const outlier = edit('spawn', { method: 'posix-spawn' }, (c) => void (c['samplesNs'] as number[]).push(50e6));
    const mean = verdictOf('000.posix-spawn-near-vfork', docs(outlier));
    assert.equal(mean.verdict, 'differs');
    assert.match(mean.detail, /^mean\(method=posix-spawn\)/);
  });

  test('verdicts are deterministic for a seed', () => {
    const a = evaluateClaims(docs(), p.claims, { seed: 7 });
    const b = evaluateClaims(docs(), p.claims, { seed: 7 });
    assert.deepEqual(a, b);
  });
});
