// The rules of evidence (src/claims/evidence.ts) on the article-shaped fixtures: ties, zeros, single readings,
// constant samples, signs, missing cells and curvature, each with the verdict it must get and a reason that
// matches it. No probe runs here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gistOf } from '../src/report/verdict-lines.js';
import { clusterWidening, widen } from '../src/stats/clusters.js';
import { bowShare, parabolaFit } from '../src/stats/curvature.js';
import { FIXTURES, docs, edit, rss, set, setUs, vmas, verdictOf, type Cfg } from './helpers/claims-data.js';

/** Replace one series' samples by another's, configuration for configuration (same repeat). */
function copySamples(name: string, from: Cfg, to: Cfg) {
  const d = structuredClone(FIXTURES[name]!);
  const match = (c: Cfg, sel: Cfg) => Object.entries(sel).every(([k, v]) => c[k] === v);
  for (const c of d.configurations.filter((x) => match(x, to))) {
    const src = d.configurations.find((x) => match(x, from) && x['repeat'] === c['repeat'])!;
    c['samplesNs'] = [...(src['samplesNs'] as number[])];
  }
  return { [name]: d };
}

describe('rules of evidence', () => {
  test('ties never pass a "greater than": identical fork and thread, dynamic = static', () => {
    const tie = verdictOf('002.fork-dearer-than-thread', docs(copySamples('create', { method: 'pthread-create-join' }, { method: 'fork-waitpid' })));
    assert.equal(tie.verdict, 'differs', tie.detail);
    assert.match(tie.detail, /strictly/);
    const same = verdictOf('004.static-exec-faster', docs(copySamples('exec', { series: 'exec-static' }, { series: 'exec-dynamic' })));
    assert.equal(same.verdict, 'differs', same.detail);
  });

  test('a timing of 0 or below is not measurable, never a pass for an at-most claim', () => {
    const v = verdictOf('000.posix-spawn-near-vfork', docs(edit('spawn', { method: 'posix-spawn' }, (c) => void (c['samplesNs'] = (c['samplesNs'] as number[]).map(() => 0)))));
    assert.equal(v.verdict, 'not-measurable');
    assert.match(v.detail, /0 ns is not a measured call/);
  });

  test('one sample is "one reading"; constant samples are "no spread: identical samples"', () => {
    const one = verdictOf('002.fork-1.8x-thread', docs(edit('create', { method: 'fork-waitpid' }, set('samplesNs', [82000]))));
    assert.equal(one.verdict, 'not-measurable');
    assert.match(one.detail, /fork-waitpid: (3 readings, fewer than the 6|one reading)/);
    const d = structuredClone(FIXTURES.create!);
    d.configurations = d.configurations.filter((c) => c['repeat'] === 1);
    d.configurations.find((c) => c['method'] === 'fork-waitpid')!['samplesNs'] = [82000];
    const single = verdictOf('002.fork-1.8x-thread', docs({ create: d }));
    assert.equal(single.verdict, 'not-measurable');
    assert.match(single.detail, /one reading/);
    assert.doesNotMatch(single.detail, /interval lies/);
    const flat = verdictOf('000.runs-stable', docs(edit('spawn', {}, (c) => void (c['samplesNs'] = (c['samplesNs'] as number[]).map(() => 150e3)))));
    assert.equal(flat.verdict, 'not-measurable');
    assert.match(flat.detail, /no spread: identical samples/);
  });

  test('signs: two falling slopes, two negative exec costs, page tables that shrink', () => {
    const falling = edit(
      'spawn',
      { method: 'fork-exec' },
      setUs((c) => 5000 - (c['thp'] === 'off' ? 3.6 : 0.22) * rss(c)),
    );
    const s = verdictOf('000.thp-off-slope-16x', docs(falling));
    assert.equal(s.verdict, 'not-measurable');
    assert.match(s.detail, /not measurable: the fit falls \(the fit through method=fork-exec,thp=off: -3\.60 µs per MB .*\), so there is no ratio of the slopes/);
    // fork+exec cheaper than fork+_exit for both targets: execve "costs" a negative time.
    const negative = edit(
      'exec',
      { method: 'fork-exec' },
      setUs((c) => (c['target'] === 'dynamic' ? 50 : 40)),
    );
    const e = verdictOf('004.dynamic-static-exec-1.61x', docs(negative));
    assert.equal(e.verdict, 'not-measurable');
    assert.match(e.detail, /is negative/);
    // Dense page tables that fall by 8 MB after the fork have not "barely changed".
    const shrink = edit('pagetables', { layout: 'dense', phase: 'after-fork-parent-write' }, (c) => void (c['pageTablesKb'] = (c['pageTablesKb'] as number) - 8192));
    const p = verdictOf('003.dense-pagetables-barely-change', docs(shrink));
    assert.equal(p.verdict, 'differs', p.detail);
    assert.match(p.detail, /^\|/);
  });

  test('a slope whose point falls but whose interval reaches above 0 (noise, a busy machine) leaves the claim open, with the slope in its unit', () => {
    // THP on: fork+exec 5 ms whatever the RSS, give or take 0.4 ms from repeat to repeat, and a point slope a little below 0.
    const noisy = edit(
      'spawn',
      { method: 'fork-exec', thp: 'on' },
      setUs((c) => 5000 + 400 * ([1, -1, 0][((c['repeat'] as number) - 1) % 3] ?? 0) * (rss(c) === 0 ? 1 : -1) - 0.05 * rss(c)),
    );
    for (const id of ['000.thp-off-slope-16x', '000.pmd-cost-442ns']) {
      const v = verdictOf(id, docs(noisy));
      assert.equal(v.verdict, 'inconclusive', `${id}: ${v.detail}`);
      assert.match(
        v.detail,
        /the fit through method=fork-exec,thp=on falls at its point \(-[\d.]+ µs per MB \[95 % CI -[\d.]+ µs per MB to [\d.]+ µs per MB, this run\]\) but its interval reaches above 0/,
      );
      assert.ok(v.settle, `${id}: an open verdict says what would settle it`);
    }
    // Falling clearly, every repeat alike: not measurable, the slope in its unit and its interval below 0.
    const falling = edit(
      'spawn',
      { method: 'fork-exec', thp: 'on' },
      setUs((c) => 5000 - 2 * rss(c)),
    );
    const f = verdictOf('000.pmd-cost-442ns', docs(falling));
    assert.equal(f.verdict, 'not-measurable', f.detail);
    assert.match(f.detail, /not measurable: the fit falls \(the fit through method=fork-exec,thp=on: -2\.00 µs per MB \[95 % CI .*\]\), so there is no cost per entry/);
    assert.doesNotMatch(f.detail, /ns\/entry|per rssMb/);
  });

  test("a ratio whose denominator rises at its point but whose interval reaches 0 has no upper end: said so, never a resample's largest value", () => {
    // THP on: fork+exec rises 0.3 µs per MB at its point, with ±0.4 ms from repeat to repeat that flips sign across
    // the RSS range, so the slope's own interval reaches below 0.
    const noisy = edit(
      'spawn',
      { method: 'fork-exec', thp: 'on' },
      setUs((c) => 5000 + 400 * ([1, -1, 0][((c['repeat'] as number) - 1) % 3] ?? 0) * (rss(c) === 0 ? 1 : -1) + 0.3 * rss(c)),
    );
    const v = verdictOf('000.thp-off-slope-16x', docs(noisy));
    assert.equal(v.verdict, 'inconclusive', v.detail);
    assert.match(
      v.detail,
      /\[95 % CI [\d.]+×–unbounded: the fit through fork-exec, thp on rises [\d.]+ µs per MB but its interval reaches -[\d.]+ µs per MB within this run, so the ratio has no upper end\]/,
    );
    assert.equal(v.interval, undefined, 'no finite interval is stored for a ratio with no upper end');
    // One line of a report: the lower end and "unbounded", not a bare "[unbounded]" that drops what the run showed.
    const figure = {
      figureId: 'x',
      article: '000',
      experiment: 'spawn',
      headline: false,
      statistic: 'median',
      unit: '×',
      published: 16,
      measured: v.measured,
      ratio: null,
      detail: '',
    };
    assert.match(gistOf(v, figure), /^[\d.]+× \[[\d.]+×?–unbounded\] · article 16×$/);
    // The same denominator, every repeat alike: its interval stays above 0, and the ratio keeps both ends.
    const steady = edit(
      'spawn',
      { method: 'fork-exec', thp: 'on' },
      setUs((c) => 5000 + 0.3 * rss(c) + ((c['repeat'] as number) % 2) * 5),
    );
    const s = verdictOf('000.thp-off-slope-16x', docs(steady));
    assert.doesNotMatch(s.detail, /unbounded/);
    assert.ok(s.interval && Number.isFinite(s.interval.high), s.detail);
  });

  test("a value the run's parameters name but whose configurations are missing makes the claim not measurable", () => {
    const d = structuredClone(FIXTURES.spawn!);
    d.params = { methods: ['fork-exec', 'vfork-exec', 'posix-spawn'], rssMb: [0, 128, 512, 1024], thp: ['on', 'off'] };
    d.configurations = d.configurations.filter((c) => !(c['method'] === 'posix-spawn' && c['rssMb'] === 512 && c['thp'] === 'on'));
    const v = verdictOf('000.posix-spawn-flat', docs({ spawn: d }));
    assert.equal(v.verdict, 'not-measurable');
    assert.match(v.detail, /set out to measure posix-spawn at rss 512 MB, thp on \(its parameters name it\) but has no successful configuration there/);
    // The run's parameters name more than it measured (a value it never ran): the same.
    const e = structuredClone(FIXTURES.spawn!);
    e.params = { rssMb: [0, 128, 256, 512, 1024] };
    assert.match(verdictOf('000.fork-exec-grows-linearly', docs({ spawn: e })).detail, /set out to measure fork-exec at rss 256 MB \(its parameters name it\)/);
  });

  test('curvature: a quadratic is not linear growth; a bump in the middle is not flat', () => {
    const quad = edit(
      'spawn',
      { method: 'fork-exec', thp: 'off' },
      setUs((c) => 175 + 3675 * (rss(c) / 1024) ** 2),
    );
    const q = verdictOf('000.fork-exec-grows-linearly', docs(quad));
    assert.equal(q.verdict, 'differs', q.detail);
    assert.match(q.detail, /bow 25\.0 %/);
    const vq = verdictOf(
      '003.fork-grows-with-vmas',
      docs(
        edit(
          'vma',
          { method: 'fork-exit' },
          setUs((c) => 80 + 27000 * (vmas(c) / 60000) ** 2),
        ),
      ),
    );
    assert.equal(vq.verdict, 'differs', vq.detail);
    const bump = edit(
      'spawn',
      { method: 'posix-spawn' },
      setUs((c) => (rss(c) === 128 || rss(c) === 512 ? 480 : 160)),
    );
    const b = verdictOf('000.posix-spawn-flat', docs(bump));
    assert.equal(b.verdict, 'differs', b.detail);
    assert.match(b.detail, /largest ÷ smallest 3\.00× .*: a bump above the band/);
    // One dear point in the middle: the fitted line barely moves, the bump alone makes it differ.
    const middle = verdictOf(
      '000.vfork-flat',
      docs(
        edit(
          'spawn',
          { method: 'vfork-exec' },
          setUs((c) => (rss(c) === 512 ? 400 : 150)),
        ),
      ),
    );
    assert.equal(middle.verdict, 'differs', middle.detail);
    assert.match(middle.detail, /a bump above the band/);
  });

  test('flat is the fitted line within the band; the slope share is judged only where the reference itself leaves the band', () => {
    const base = verdictOf('000.posix-spawn-flat', docs());
    assert.equal(base.verdict, 'holds', base.detail);
    assert.match(
      base.detail,
      /thp=off: the fitted line of the medians over rssMb 0–1024 \(\d values\) ends [\d.]+× \[95 % CI [\d.]+×–[\d.]+×\] its start: the whole interval lies inside the band, slope [\d.]+ %/,
    );
    // fork+exec as flat as posix_spawn with THP on: a share of its slope cannot tell them apart, and is not judged.
    const both = docs(
      edit(
        'spawn',
        { method: 'fork-exec', thp: 'on' },
        setUs((c) => 2000 + ((c['repeat'] as number) % 2) * 10),
      ),
    );
    const v = verdictOf('000.posix-spawn-flat', both);
    assert.equal(v.verdict, 'holds', v.detail);
    assert.match(v.detail, /thp=on: .*method=fork-exec itself grows 1\.00× .* over the span, not shown above 1\.25×: no slope share, the band decides/);
    // A real trend of 40 % differs, whatever the reference does.
    const rising = verdictOf(
      '000.posix-spawn-flat',
      docs(
        edit(
          'spawn',
          { method: 'posix-spawn' },
          setUs((c) => 500 * (1 + 0.4 * (rss(c) / 1024))),
        ),
      ),
    );
    assert.equal(rising.verdict, 'differs', rising.detail);
    assert.match(rising.detail, /ends 1\.40× .*lies above the band/);
  });

  test('the bow is 0 for a line and 0.25 for x² whatever its offset; few repeats widen an interval', () => {
    const xs = [0, 256, 1024];
    assert.ok(
      Math.abs(
        bowShare(
          parabolaFit(
            xs,
            xs.map((x) => 7 + 3 * x),
          ),
        ),
      ) < 1e-12,
    );
    assert.ok(
      Math.abs(
        bowShare(
          parabolaFit(
            xs,
            xs.map((x) => 1e6 + x * x),
          ),
        ) - 0.25,
      ) < 1e-9,
    );
    assert.ok(
      Number.isNaN(
        bowShare(
          parabolaFit(
            xs,
            xs.map((x) => 100 - x),
          ),
        ),
      ),
      'a falling series has no bow',
    );
    assert.equal(clusterWidening(1), 1);
    assert.ok(Math.abs(clusterWidening(2) - 9.17) < 0.01 && Math.abs(clusterWidening(3) - 2.69) < 0.01);
    assert.ok(clusterWidening(10) < 1.3 && clusterWidening(10) > 1);
  });

  test('a ratio or a time is widened many-fold (log scale) and stays above 0; a difference linearly', () => {
    // a ratio of 8× with edges 5× and 9×, widened 2.7 times: linearly its lower edge would be −0.1×
    const r = widen(8, 5, 9, 2.7, true);
    assert.ok(r.low > 0 && Math.abs(r.low - 8 * (5 / 8) ** 2.7) < 1e-12, JSON.stringify(r));
    assert.ok(Math.abs(r.high - 8 * (9 / 8) ** 2.7) < 1e-12);
    assert.ok(r.low < 5 && r.high > 9, 'wider on both sides');
    // a difference, a slope or a share keeps the linear widening, as does an interval reaching 0
    assert.deepEqual(widen(8, 5, 9, 2), { low: 2, high: 10 });
    assert.deepEqual(widen(1, -1, 2, 2, true), { low: -3, high: 3 });
    assert.deepEqual(widen(8, 5, 9, 1, true), { low: 5, high: 9 });
  });
});
