// The one bootstrap (src/stats/resample.ts) and the pooling of repeats (src/stats/pool.ts) on data small
// enough to work out by hand: repeats are resampled before samples, paired series share their draws, the
// seed is honoured, and the budget of resamples is what the docs say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapMedianCi } from '../src/stats/bootstrap.js';
import { compareSeries } from '../src/stats/compare.js';
import { poolRepeats, ratioOfMedians } from '../src/stats/pool.js';
import { bootstrapQuantity, MAX_DRAWS, MIN_RESAMPLES, RESAMPLES, resamplesFor, single, type Quantity } from '../src/stats/resample.js';

const median1 = (blocks: Quantity['blocks']): Quantity => ({ blocks, statistic: 'median', combine: (s) => s[0]! });

test('hierarchical: three repeats [1,1] [1,1] [4,4] — the interval is the repeats’ spread', () => {
  // A resample draws 3 repeats; k of them are [4,4], k ~ Bin(3, 1/3). k ≤ 1: six values with at most two 4s,
  // median 1 (probability 20/27 ≈ 0.74); k ≥ 2: median 4 (7/27 ≈ 0.26). 2.5th percentile 1, 97.5th 4;
  // the 30th–70th percentiles both fall in the mass at 1. Point: median of 1,1,1,1,4,4 = 1.
  const reps = [
    [1, 1],
    [1, 1],
    [4, 4],
  ];
  const ci = bootstrapQuantity(median1([single(reps)]), { seed: 3 })!;
  assert.deepEqual([ci.point, ci.low, ci.high, ci.minRepeats], [1, 1, 4, 3]);
  const narrow = bootstrapQuantity(median1([single(reps)]), { seed: 3, confidence: 0.4 })!;
  assert.deepEqual([narrow.low, narrow.high], [1, 1]);
});

test('hierarchical vs pooled-as-independent: run-to-run swings widen the interval', () => {
  // Five probe processes whose medians are 100, 110, 120, 130, 140, each 51 samples within ±0.5.
  const reps = [100, 110, 120, 130, 140].map((c) => Array.from({ length: 51 }, (_, i) => c - 0.5 + i / 50));
  const flat = bootstrapMedianCi(reps.flat(), { seed: 1 });
  // Treated as 255 independent samples the median cannot leave the middle process: about ±0.5.
  assert.ok(flat.lowNs >= 119 && flat.highNs <= 121, JSON.stringify(flat));
  const h = poolRepeats(reps, 1)!;
  assert.equal(h.repeats, 5);
  assert.equal(h.n, 255);
  assert.ok(Math.abs(h.medianNs - 120) < 0.5);
  // Resampling processes: a resample with more of the 100–110 processes moves the median by whole processes.
  assert.ok(h.ciLowNs <= 110.5 && h.ciHighNs >= 129.5, JSON.stringify(h));
});

test('one repeat is exactly the ordinary bootstrap (same draws, same interval)', () => {
  const xs = Array.from({ length: 61 }, (_, i) => ((i * 37) % 61) + 1000);
  const a = bootstrapMedianCi(xs, { seed: 9 });
  const b = poolRepeats([xs], 9)!;
  assert.deepEqual([b.ciLowNs, b.ciHighNs], [a.lowNs, a.highNs]);
});

test('paired: drift shared by two series cancels; unpaired it does not', () => {
  // b_i = a_i + 10 in every iteration, a drifting over 1..1000: in every paired resample the drawn
  // iterations are the same, so median(b) − median(a) = 10 exactly.
  const a = Array.from({ length: 200 }, (_, i) => 1 + i * 5);
  const b = a.map((x) => x + 10);
  const diff = (s: readonly number[]) => s[1]! - s[0]!;
  const paired = bootstrapQuantity(
    {
      blocks: [
        {
          series: [
            [a.slice(0, 100), a.slice(100)],
            [b.slice(0, 100), b.slice(100)],
          ],
        },
      ],
      statistic: 'median',
      combine: diff,
    },
    { seed: 5 },
  )!;
  assert.deepEqual([paired.point, paired.low, paired.high], [10, 10, 10]);
  const unpaired = bootstrapQuantity({ blocks: [single([a]), single([b])], statistic: 'median', combine: diff }, { seed: 5 })!;
  assert.ok(unpaired.low < 0 && unpaired.high > 20, JSON.stringify(unpaired));
  // The ratio helper knows pairing too: b = 2a in every iteration gives [2, 2].
  const r = ratioOfMedians([a], [a.map((x) => 2 * x)], 5, { paired: true })!;
  assert.deepEqual([r.ratio, r.low, r.high], [2, 2, 2]);
  assert.throws(() => bootstrapQuantity({ blocks: [{ series: [[[1, 2]], [[1]]] }], statistic: 'median', combine: diff }, { seed: 1 }), RangeError);
});

test('mean and min by hand', () => {
  // Two draws from [0, 2]: mean 0 (1/4), 1 (1/2), 2 (1/4): 95 % [0, 2], 40 % [1, 1].
  const mean = (confidence: number) => bootstrapQuantity({ blocks: [single([[0, 2]])], statistic: 'mean', combine: (s) => s[0]! }, { seed: 2, confidence })!;
  assert.deepEqual([mean(0.95).point, mean(0.95).low, mean(0.95).high], [1, 0, 2]);
  assert.deepEqual([mean(0.4).low, mean(0.4).high], [1, 1]);
  // The minimum of two draws from [5, 7] is 5 unless both are 7 (1/4): 95 % [5, 7], 40 % [5, 5].
  const min = (confidence: number) => bootstrapQuantity({ blocks: [single([[7, 5]])], statistic: 'min', combine: (s) => s[0]! }, { seed: 2, confidence })!;
  assert.deepEqual([min(0.95).point, min(0.95).low, min(0.95).high], [5, 5, 7]);
  assert.deepEqual([min(0.4).low, min(0.4).high], [5, 5]);
});

test('seeded: same seed same interval, another seed another; single values give no interval', () => {
  const reps = [
    [3, 9, 4, 7],
    [8, 2, 6],
    [5, 1, 9, 9, 2],
  ];
  const q = median1([single(reps)]);
  assert.deepEqual(bootstrapQuantity(q, { seed: 11 }), bootstrapQuantity(q, { seed: 11 }));
  assert.notDeepEqual(bootstrapQuantity(q, { seed: 11 }), bootstrapQuantity(q, { seed: 12 }));
  assert.equal(bootstrapQuantity(median1([single([[4]])]), { seed: 1 }), null);
  // Readings, one per repeat, are resampled across repeats: [10], [20], [30].
  const readings = bootstrapQuantity(median1([single([[10], [20], [30]])]), { seed: 1 })!;
  assert.deepEqual([readings.point, readings.low, readings.high], [20, 10, 30]);
  assert.throws(() => bootstrapQuantity(q, { seed: 1.5 }), RangeError);
});

test('a ratio that cannot be resampled (zero denominators) gives no interval', () => {
  const q: Quantity = { blocks: [single([[1, 2, 3]]), single([[0, 0, 0, 1]])], statistic: 'median', combine: (s) => s[0]! / s[1]! };
  assert.equal(bootstrapQuantity(q, { seed: 1 }), null);
});

test('the resample budget', () => {
  assert.equal(resamplesFor(100), RESAMPLES);
  assert.equal(resamplesFor(MAX_DRAWS / 1000), 1000);
  assert.equal(resamplesFor(MAX_DRAWS * 10), MIN_RESAMPLES);
  assert.equal(resamplesFor(100, 300), 300, 'an explicit smaller request is kept');
});

test('comparison of two runs: statistics in src/stats, repeats resampled', () => {
  const a = [
    [100, 101, 99, 100],
    [100, 102, 98, 100],
  ];
  const same = compareSeries(a, a, 1);
  assert.deepEqual([same.ratio, same.verdict], [1, 'same']);
  const slower = compareSeries(
    a,
    a.map((r) => r.map((x) => 2 * x)),
    1,
  );
  assert.equal(slower.ratio, 2);
  assert.ok(slower.ratioLow! > 1.9 && slower.ratioHigh! < 2.1);
});

test('series in rounds share their repeat draws: what a round shares cancels in a ratio; independent ones are unchanged', () => {
  // Five rounds whose machine state moves everything by ×0.8…×1.2; B costs twice A in every round.
  const level = [0.8, 0.9, 1, 1.1, 1.2];
  const series = (base: number, wobble: number) => level.map((l, r) => Array.from({ length: 41 }, (_, i) => base * l * (1 + ((i * 7 + r * 3 + wobble) % 11) / 1000)));
  const a = series(100, 0);
  const b = series(200, 5);
  const ratio: Quantity['combine'] = (s) => s[1]! / s[0]!;
  const apart = bootstrapQuantity({ blocks: [single(a), single(b)], statistic: 'median', combine: ratio }, { seed: 2 })!;
  const together = bootstrapQuantity({ blocks: [{ series: [a, b], rounds: true }], statistic: 'median', combine: ratio }, { seed: 2 })!;
  assert.ok(together.low > 1.98 && together.high < 2.02, `in rounds: ${JSON.stringify(together)}`);
  assert.ok(apart.high - apart.low > 10 * (together.high - together.low), `apart: ${JSON.stringify(apart)}`);
  // Series whose rounds share nothing: about the same interval either way.
  const c = level.map((_, r) => Array.from({ length: 41 }, (_, i) => 100 * level[(r * 2) % 5]! + i / 10));
  const d = level.map((_, r) => Array.from({ length: 41 }, (_, i) => 200 * level[(r * 3 + 1) % 5]! + i / 10));
  const w = (q: { low: number; high: number }) => q.high - q.low;
  const cApart = bootstrapQuantity({ blocks: [single(c), single(d)], statistic: 'median', combine: ratio }, { seed: 2 })!;
  const cTogether = bootstrapQuantity({ blocks: [{ series: [c, d], rounds: true }], statistic: 'median', combine: ratio }, { seed: 2 })!;
  assert.ok(w(cTogether) > 0.5 * w(cApart) && w(cTogether) < 2 * w(cApart), JSON.stringify([cApart, cTogether]));
  // Unequal numbers of repeats cannot be drawn in rounds.
  assert.throws(() => bootstrapQuantity({ blocks: [{ series: [a, b.slice(1)], rounds: true }], statistic: 'median', combine: ratio }, { seed: 2 }), /same number of repeats/);
});

test('withinRepeats keeps every repeat and draws only the iterations within each: repeats far apart no longer swing the median', () => {
  // one series, two repeats at 100 and 200 with a little noise each: drawing the repeats moves the median by half
  const rep = (level: number) => Array.from({ length: 50 }, (_, i) => level * (1 + ((i % 10) - 4.5) / 500));
  const q: Quantity = { blocks: [single([rep(100), rep(200)])], statistic: 'median', combine: (s) => s[0]! };
  const both = bootstrapQuantity(q, { seed: 1 })!;
  const within = bootstrapQuantity(q, { seed: 1, withinRepeats: true })!;
  assert.ok(both.high - both.low > 50, `${both.low}–${both.high}`);
  assert.ok(within.high - within.low < 10, `${within.low}–${within.high}`);
  assert.ok(within.low <= within.point && within.point <= within.high);
});
