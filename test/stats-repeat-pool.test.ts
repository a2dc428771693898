// Few repeats with strength borrowed from the other cells (src/stats/repeat-pool.ts), on simulated runs where the
// truth is known: 24 cells of two or three repeats each, a repeat effect exp(N(0, σb)) per cell and repeat, samples
// exp(N(0, σw)) within it. The interval of a ratio of two cells covers the true ratio at about its 95 %, spans far
// less than Student's t on the cell's own repeats, and "largest ÷ smallest" of flat cells is rarely called above 1.25×.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../src/stats/random.js';
import { influenceWeight, poolInflation, pooledRepeatInterval, repeatPool, type CellRepeats, type RepeatPool } from '../src/stats/repeat-pool.js';
import { pooledSpreadInterval } from '../src/stats/repeat-spread.js';

const median = (a: readonly number[]) => {
  const s = [...a].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

/**
 * A run: cells × repeats × samples. `spread` > 1: each cell's σb drawn log-uniformly within ÷spread … ×spread.
 * `sr`: a round effect exp(N(0, sr)) shared by every cell of a repeat (a load that lifts a whole round).
 */
function simulateRun(rng: () => number, o: { repeats: number; sb: number; sw: number; n: number; spread?: number; cells?: number; sr?: number }): number[][][] {
  const gauss = () => {
    let u = 0;
    while (u === 0) u = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
  };
  const round = Array.from({ length: o.repeats }, () => (o.sr ?? 0) * gauss());
  return Array.from({ length: o.cells ?? 24 }, () => {
    const sb = o.sb * (o.spread ? Math.exp(Math.log(o.spread) * (2 * rng() - 1)) : 1);
    return Array.from({ length: o.repeats }, (_, r) => {
      const b = round[r]! + sb * gauss();
      return Array.from({ length: o.n }, () => Math.exp(b + o.sw * gauss()));
    });
  });
}

const poolOf = (cells: number[][][], rounds = false): RepeatPool =>
  repeatPool(
    cells.map((c): CellRepeats => ({ byRepeat: new Map(c.map((r, i) => [i, median(r)])), probe: null })),
    { rounds },
  )!;
const group = (cells: number[][][], i: number) => ({ stat: median(cells[i]!.flat()), weight: influenceWeight(cells[i]!, 'median'), key: String(i), probe: String(i) });

/** Over seeded runs: coverage of the true ratio 1 of cells 0 and 1, mean span high ÷ low, and how often flat cells 2–5 are called above 1.25×. */
export function repeatPoolCoverage(seed: number, o: Parameters<typeof simulateRun>[1], runs: number, rounds = false) {
  const rng = mulberry32(seed);
  let hit = 0;
  let span = 0;
  let notFlat = 0;
  for (let k = 0; k < runs; k++) {
    const cells = simulateRun(rng, o);
    const pool = poolOf(cells, rounds);
    const iv = pooledRepeatInterval([group(cells, 0), group(cells, 1)], (s) => s[0]! / s[1]!, pool, { seed: k + 1, draws: 1000 })!;
    if (iv.low <= 1 && iv.high >= 1) hit++;
    span += iv.high / iv.low;
    const flat = pooledRepeatInterval(
      [2, 3, 4, 5].map((i) => group(cells, i)),
      (s) => Math.max(...s) / Math.min(...s),
      pool,
      { seed: k + 1, draws: 1000 },
    )!;
    if (flat.low > 1.25) notFlat++;
  }
  return { cover: hit / runs, span: span / runs, notFlat: notFlat / runs };
}

test('two repeats: the ratio of two cells is covered about 95 % of the time, within a few-fold span, whether repeats or samples dominate', (t) => {
  for (const o of [
    { repeats: 2, sb: 0.3, sw: 0.3, n: 80 },
    { repeats: 2, sb: 0.05, sw: 0.1, n: 100 },
    { repeats: 2, sb: 0, sw: 0.3, n: 60 },
    { repeats: 3, sb: 0.3, sw: 0.3, n: 80 },
  ]) {
    const r = repeatPoolCoverage(3, o, 400);
    t.diagnostic(`${JSON.stringify(o)}: coverage ${(r.cover * 100).toFixed(1)} %, span ${r.span.toFixed(2)}×, flat called above 1.25× ${(r.notFlat * 100).toFixed(1)} %`);
    assert.ok(r.cover >= 0.91 && r.cover <= 0.985, `${JSON.stringify(o)}: coverage ${(r.cover * 100).toFixed(1)} %`);
    assert.ok(r.span < 5, `${JSON.stringify(o)}: mean span ${r.span.toFixed(2)}×`);
    assert.ok(r.notFlat <= 0.06, `${JSON.stringify(o)}: flat cells called above 1.25× in ${(r.notFlat * 100).toFixed(1)} %`);
  }
});

test('cells whose scatter differs threefold either way still keep coverage near 95 % on average (the pool assumes one scatter)', (t) => {
  const r = repeatPoolCoverage(5, { repeats: 2, sb: 0.3, sw: 0.3, n: 80, spread: 3 }, 400);
  t.diagnostic(`spread 3: coverage ${(r.cover * 100).toFixed(1)} %, span ${r.span.toFixed(2)}×, flat called above 1.25× ${(r.notFlat * 100).toFixed(1)} %`);
  assert.ok(r.cover >= 0.88, `coverage ${(r.cover * 100).toFixed(1)} %`);
});

test('rounds as blocks: a load that lifts a whole round is taken out, so ratios of cells stay covered and get narrower', (t) => {
  const rows: string[] = [];
  for (const o of [
    { repeats: 2, sb: 0.15, sw: 0.3, n: 60, sr: 0.3 },
    { repeats: 3, sb: 0.15, sw: 0.3, n: 40, sr: 0.3 },
    { repeats: 4, sb: 0.15, sw: 0.3, n: 30, sr: 0.3 },
    { repeats: 2, sb: 0.3, sw: 0.3, n: 80 },
    { repeats: 4, sb: 0.3, sw: 0.3, n: 40 },
    { repeats: 3, sb: 0.15, sw: 0.3, n: 40, sr: 0.3, spread: 3 },
  ]) {
    const oneWay = repeatPoolCoverage(11, o, 300);
    const blocks = repeatPoolCoverage(11, o, 300, true);
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    rows.push(
      `| ${o.repeats} | ${o.sr ?? 0} | ${o.sb} | ${o.sw}, ${o.n} | ${o.spread ? `÷${o.spread} … ×${o.spread}` : 'equal'} | ${pct(oneWay.cover)}, ${oneWay.span.toFixed(2)}× | ${pct(blocks.cover)}, ${blocks.span.toFixed(2)}× | ${pct(blocks.notFlat)} |`,
    );
    if (o.spread) {
      assert.ok(blocks.cover >= 0.85, `${JSON.stringify(o)}: coverage ${pct(blocks.cover)}`);
      continue;
    }
    assert.ok(blocks.cover >= 0.92 && blocks.cover <= 0.985, `${JSON.stringify(o)}: coverage ${pct(blocks.cover)}`);
    assert.ok(blocks.notFlat <= 0.06, `${JSON.stringify(o)}: flat cells called above 1.25× in ${pct(blocks.notFlat)}`);
    // with a round effect the blocks' interval is narrower than the one-way pool's; without one it is hardly wider
    if (o.sr) assert.ok(blocks.span < oneWay.span * 0.9, `${JSON.stringify(o)}: span ${blocks.span} against ${oneWay.span}`);
    else assert.ok(blocks.span < oneWay.span * 1.1, `${JSON.stringify(o)}: span ${blocks.span} against ${oneWay.span}`);
  }
  t.diagnostic(`repeats | σr | σb | σw, samples | cells' σb | one-way: covered, span | rounds as blocks: covered, span | flat called above 1.25×\n${rows.join('\n')}`);
});

test('each round’s shift is found and taken out: a cell whose repeats move with their round is not inflated', () => {
  // 10 cells, 3 rounds; round 2 lifts every cell by e^0.4, round 3 lowers it by e^-0.2; a little noise
  const rng = mulberry32(4);
  const cells: CellRepeats[] = Array.from({ length: 10 }, (_, c) => ({
    byRepeat: new Map([1, 2, 3].map((r) => [r, Math.exp(c * 0.1 + (r === 2 ? 0.4 : r === 3 ? -0.2 : 0) + 0.02 * (rng() - 0.5))])),
    probe: null,
  }));
  const oneWay = repeatPool(cells)!;
  const blocks = repeatPool(cells, { rounds: true })!;
  assert.equal(blocks.df, oneWay.df - 2);
  assert.ok(blocks.variance < oneWay.variance / 100, `${blocks.variance} against ${oneWay.variance}`);
  const shifts = blocks.roundShifts!;
  assert.ok(Math.abs(shifts[1]! - shifts[0]! - 0.4) < 0.02 && Math.abs(shifts[2]! - shifts[0]! + 0.2) < 0.02, JSON.stringify(shifts));
  const own = [...cells[0]!.byRepeat.values()];
  assert.equal(poolInflation(own, blocks), 1);
  assert.ok(poolInflation([own[0]!, own[1]! * 2, own[2]!], blocks) > 10);
});

test('cells timed in the same probes share their draws by the pooled correlation: their ratio is tighter than of cells apart', () => {
  const rng = mulberry32(9);
  const gauss = () => Math.sqrt(-2 * Math.log(rng() || 1e-12)) * Math.cos(2 * Math.PI * rng());
  // 12 probes, two cells each, repeat effects shared within a probe
  const cells: CellRepeats[] = [];
  const stats: number[][] = [];
  for (let p = 0; p < 12; p++) {
    const shared = [gauss(), gauss()].map((z) => 0.4 * z);
    for (let c = 0; c < 2; c++) {
      const byRepeat = new Map(shared.map((b, r) => [r, Math.exp(b + 0.05 * gauss())]));
      cells.push({ byRepeat, probe: `p${p}` });
      stats.push([...byRepeat.values()]);
    }
  }
  const pool = repeatPool(cells)!;
  assert.ok(pool.rho > 0.8, `rho ${pool.rho}`);
  const g = (i: number, probe: string) => ({ stat: Math.exp(stats[i]!.map(Math.log).reduce((a, b) => a + b, 0) / 2), weight: 0.5, key: String(i), probe });
  const together = pooledRepeatInterval([g(0, 'p0'), g(1, 'p0')], (s) => s[0]! / s[1]!, pool, { seed: 1 })!;
  const apart = pooledRepeatInterval([g(0, 'p0'), g(2, 'p1')], (s) => s[0]! / s[1]!, pool, { seed: 1 })!;
  assert.ok(together.high / together.low < (apart.high / apart.low) ** 0.5, `together ${together.low}–${together.high}, apart ${apart.low}–${apart.high}`);
});

test('too few degrees of freedom, or a statistic at or below 0: no pooled interval (the caller falls back)', () => {
  assert.equal(
    repeatPool([
      {
        byRepeat: new Map([
          [1, 1],
          [2, 2],
        ]),
        probe: null,
      },
    ]),
    null,
  );
  const pool: RepeatPool = { variance: 0.01, df: 20, rho: 0, cells: 20 };
  assert.equal(
    pooledRepeatInterval([{ stat: 0, weight: 0.5, key: 'a', probe: 'a' }], (s) => s[0]!, pool, { seed: 1 }),
    null,
  );
});

test('a cell whose repeats disagree far beyond the pool is drawn with its own scatter; one within it is not', () => {
  const pool: RepeatPool = { variance: 0.04, df: 24, rho: 0, cells: 24 };
  assert.equal(poolInflation([100, 110], pool), 1);
  // 427 against 171: (ln 2.5)² ÷ 2 = 0.42 against 0.04, ten times the pool
  const k = poolInflation([427, 171], pool);
  assert.ok(k > 9 && k < 11, String(k));
  const tight = pooledRepeatInterval(
    [
      { stat: 270, weight: 0.5, key: 'a', probe: 'a' },
      { stat: 20, weight: 0.5, key: 'b', probe: 'b' },
    ],
    (s) => s[0]! / s[1]!,
    pool,
    { seed: 1 },
  )!;
  const wide = pooledRepeatInterval(
    [
      { stat: 270, weight: 0.5 * k, key: 'a', probe: 'a' },
      { stat: 20, weight: 0.5, key: 'b', probe: 'b' },
    ],
    (s) => s[0]! / s[1]!,
    pool,
    { seed: 1 },
  )!;
  assert.ok(wide.high / wide.low > 2 * (tight.high / tight.low), `${tight.low}–${tight.high} vs ${wide.low}–${wide.high}`);
  assert.ok(wide.high / wide.low < 50, `${wide.low}–${wide.high}`);
});

/**
 * A flat line of four points (cells 0–3, true medians `truth`) among 24 cells of a run, rounds as blocks: how often the
 * largest ÷ smallest is called flat (whole interval ≤ 1.25×), above it (whole interval above) or neither, by the interval
 * built from the pairs (pooledSpreadInterval) and by the draws' percentile ∪ reflection (pooledRepeatInterval), and how
 * often each interval holds the true largest ÷ smallest.
 */
export function flatVerdicts(seed: number, o: Parameters<typeof simulateRun>[1], truth: readonly number[], runs: number) {
  const rng = mulberry32(seed);
  const trueSpread = Math.max(...truth) / Math.min(...truth);
  const tally = () => ({ flat: 0, above: 0, open: 0, covered: 0 });
  const pairs = tally();
  const draws = tally();
  const count = (t: ReturnType<typeof tally>, iv: { low: number; high: number }) => {
    if (iv.high <= 1.25) t.flat++;
    else if (iv.low > 1.25) t.above++;
    else t.open++;
    if (iv.low <= trueSpread && trueSpread <= iv.high) t.covered++;
  };
  for (let k = 0; k < runs; k++) {
    const cells = simulateRun(rng, o).map((c, i) => (i < truth.length ? c.map((r) => r.map((x) => x * truth[i]!)) : c));
    const pool = poolOf(cells, true);
    const line = [0, 1, 2, 3].map((i) => group(cells, i));
    count(pairs, pooledSpreadInterval(line, pool, { seed: k + 1, draws: 1000 })!);
    const iv = pooledRepeatInterval(line, (s) => Math.max(...s) / Math.min(...s), pool, { seed: k + 1, draws: 1000 })!;
    count(draws, { low: Math.max(1, iv.low), high: iv.high });
  }
  const share = (t: ReturnType<typeof tally>) => ({ flat: t.flat / runs, above: t.above / runs, open: t.open / runs, covered: t.covered / runs });
  return { pairs: share(pairs), draws: share(draws) };
}

test('largest ÷ smallest of a flat line: the interval from the pairs holds the truth at least 95 % of the time, calls a flat line flat more often, and a 1.3× rise flat never', (t) => {
  const rows: string[] = [];
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  for (const o of [
    { repeats: 3, sb: 0.06, sw: 0.25, n: 200, sr: 0.03 },
    { repeats: 3, sb: 0.1, sw: 0.25, n: 200, sr: 0.03 },
  ])
    for (const [name, truth] of [
      ['flat', [1, 1, 1, 1]],
      ['1.3× rise', [0, 128, 512, 1024].map((x) => 1 + (0.3 * x) / 1024)],
      ['1.25× rise', [0, 128, 512, 1024].map((x) => 1 + (0.25 * x) / 1024)],
    ] as const) {
      const r = flatVerdicts(21, o, truth, 150);
      const row = (v: typeof r.pairs) => `${pct(v.flat)} / ${pct(v.above)} / ${pct(v.open)}, covered ${pct(v.covered)}`;
      rows.push(`| ${o.sb} | ${name} | ${row(r.draws)} | ${row(r.pairs)} |`);
      // honest: a line that rises 1.25× or more is never called flat more than the interval's one tail allows
      if (name !== 'flat') assert.ok(r.pairs.flat <= 0.03, `${name} ${JSON.stringify(o)}: called flat in ${pct(r.pairs.flat)}`);
      else assert.ok(r.pairs.above <= 0.03, `flat ${JSON.stringify(o)}: called above 1.25× in ${pct(r.pairs.above)}`);
      assert.ok(r.pairs.covered >= 0.94, `${name} ${JSON.stringify(o)}: covered ${pct(r.pairs.covered)}`);
      if (name === 'flat') assert.ok(r.pairs.flat >= r.draws.flat, `${JSON.stringify(o)}: flat ${pct(r.pairs.flat)} against ${pct(r.draws.flat)}`);
    }
  t.diagnostic(`σb | truth | draws: flat / above / open, covered | pairs: flat / above / open, covered\n${rows.join('\n')}`);
});

test('a cell whose repeats disagree far beyond the others is left out of the pool (drawn with its own scatter), and the pool speaks for the rest', () => {
  const rng = mulberry32(8);
  const gauss = () => Math.sqrt(-2 * Math.log(rng() || 1e-12)) * Math.cos(2 * Math.PI * rng());
  const cells: CellRepeats[] = Array.from({ length: 24 }, (_, c) => ({
    byRepeat: new Map([1, 2, 3].map((r) => [r, Math.exp(c * 0.1 + 0.05 * gauss())])),
    probe: null,
  }));
  const calm = repeatPool(cells, { rounds: true })!;
  // one cell's repeats 8.8, 6.7 and 4.0 (the quiet run's fork+exec at 128 MB with THP off)
  const wild = [
    ...cells.slice(0, 23),
    {
      byRepeat: new Map([
        [1, 8.8],
        [2, 6.7],
        [3, 4.0],
      ]),
      probe: null,
    },
  ];
  const pool = repeatPool(wild, { rounds: true })!;
  assert.equal(pool.leftOut, 1);
  assert.equal(pool.cells, 23);
  assert.ok(Math.abs(Math.sqrt(pool.variance) / Math.sqrt(calm.variance) - 1) < 0.25, `${Math.sqrt(pool.variance)} against ${Math.sqrt(calm.variance)}`);
  assert.ok(poolInflation([8.8, 6.7, 4.0], pool) > 10, 'the cell left out keeps its own scatter');
  assert.equal(calm.leftOut, undefined);
});
