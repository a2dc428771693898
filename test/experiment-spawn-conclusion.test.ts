// spawn's conclusion (src/experiments/spawn/conclusion.ts) on synthetic runs: first in the view, in words and
// numbers with units, the article beside them; "not established" where the intervals do not establish growth or a
// difference; and the THP off ÷ on line and the per-entry cost said in words when a slope falls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnExperiment } from '../src/experiments/spawn/index.js';
import { summarizeSpawn, type SpawnParams, type SpawnSummary } from '../src/experiments/spawn/summary.js';
import type { ExperimentRun, Measurement } from '../src/experiments/contract/types.js';
import { mulberry32 } from '../src/stats/random.js';
import { seriesStats } from '../src/experiments/shared/measure.js';

const RSS = [0, 128, 512, 1024];
const METHODS = ['fork-exec', 'vfork-exec', 'posix-spawn'] as const;

/** A run whose cell medians are level(method, thp, rss) µs, repeat effects of sd `between` and samples of sd 5 % (log scale). */
function syntheticRun(level: (method: string, thp: string, rssMb: number) => number, between: number, seed = 1): ExperimentRun<SpawnSummary, SpawnParams> {
  const rng = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rng() || 1e-12)) * Math.cos(2 * Math.PI * rng());
  const ms: Measurement[] = [];
  for (const thp of ['on', 'off'])
    for (const rssMb of RSS)
      for (const repeat of [1, 2]) {
        const shared = between * gauss(); // vfork+exec and posix_spawn share a probe
        for (const method of METHODS) {
          const b = method === 'fork-exec' ? between * gauss() : shared;
          const samplesNs = Array.from({ length: 60 }, () => level(method, thp, rssMb) * 1000 * Math.exp(b + 0.05 * gauss()));
          ms.push({
            series: method,
            identity: { method, rssMb, thp },
            observed: { hugePagesKb: thp === 'on' ? rssMb * 1024 : 0 },
            repeat,
            state: 'ok',
            failure: null,
            info: { hugePagesKb: thp === 'on' ? rssMb * 1024 : 0 },
            samplesNs,
            columns: {},
            stats: seriesStats(samplesNs, 1),
          });
        }
      }
  const params = { ...spawnExperiment.parse({}), repeats: 2 };
  return { experiment: 'spawn', params, measurements: ms, summary: summarizeSpawn(ms, 1), warnings: [], complete: true };
}

const article000 = (method: string, thp: string, rssMb: number) =>
  method === 'fork-exec' ? (thp === 'off' ? 3000 + 26 * rssMb : 3000 + 1.5 * rssMb) : method === 'vfork-exec' ? 2000 : 2100;

test('the conclusion comes first: what grows and how fast, what stays flat, the ratio at 1 GiB, with units and the article beside them', () => {
  const blocks = spawnExperiment.view(syntheticRun(article000, 0.03));
  assert.equal(blocks[0]!.kind, 'conclusion');
  const lines = (blocks[0] as { lines: string[] }).lines;
  assert.ok(lines.length >= 1 && lines.length <= 3, JSON.stringify(lines));
  const text = lines.join('\n');
  assert.match(text, /fork\+exec grows \d[\d.]* µs per MB with THP off \(3\.\d ms → 3\d ms over 0–1024 MB/);
  assert.match(text, /article 000: 3\.6 µs\/MB/);
  assert.match(text, /vfork\+exec and posix_spawn stay flat at ~2\.\d ms/);
  assert.match(text, /At 1024 MB with THP off vfork\+exec is 1\d× cheaper than fork\+exec \[95 % CI \d+×–\d+×\] \(article 000: 28×\)/);
  assert.doesNotMatch(text, /not established/);
  // no other block comes before it
  assert.equal(blocks.filter((b) => b.kind === 'conclusion').length, 1);
});

test('flat and noisy: the conclusion says "not established", never growth or a difference the intervals do not show', () => {
  const run = syntheticRun(() => 2000, 0.35, 4);
  const lines = (spawnExperiment.view(run)[0] as { kind: string; lines: string[] }).lines;
  const text = lines.join('\n');
  assert.match(text, /not established/);
  // why, in numbers: the line whose interval reaches farthest from flat
  assert.match(text, /flat within 25 % is not established \((vfork\+exec|posix_spawn) with THP (on|off): the line over RSS ends [\d.]+× \[95 % CI [\d.]+×–[\d.]+×\] its start\)\./);
  assert.doesNotMatch(text, /grows \d/);
  assert.doesNotMatch(text, /cheaper than/);
});

test('a THP-on slope at or below 0: the off ÷ on line is still there, in words, and no cost per PMD is printed', () => {
  const falling = (method: string, thp: string, rssMb: number) => (method === 'fork-exec' && thp === 'on' ? 5000 - 0.5 * rssMb : article000(method, thp, rssMb));
  const run = syntheticRun(falling, 0.01, 2);
  const on = run.summary.slopes.find((s) => s.method === 'fork-exec' && s.thp === 'on')!;
  assert.ok(on.slopeUsPerMb < 0 && on.entry === null, JSON.stringify(on));
  const blocks = spawnExperiment.view(run);
  const notes = blocks.filter((b) => b.kind === 'note').map((b) => (b as { text: string }).text);
  assert.ok(
    notes.some((n) => /THP off ÷ THP on: not measurable: the THP-on fit falls \(article 000: ≈16×\)/.test(n)),
    notes.join('\n'),
  );
  const growth = blocks.find((b) => b.kind === 'table' && b.header.includes('per entry')) as { rows: string[][] };
  const row = growth.rows.find((r) => r[0] === 'fork-exec' && r[1] === 'on')!;
  assert.equal(row[4], 'not measurable: the fit falls');
  const conclusion = (blocks[0] as { lines: string[] }).lines.join('\n');
  assert.match(conclusion, /with THP on its growth is not established/);
});

test('one slope per quantity: the growth table, the summary and the conclusion give the slope through each RSS’s median', () => {
  const run = syntheticRun(article000, 0.03, 3);
  const off = run.summary.slopes.find((s) => s.method === 'fork-exec' && s.thp === 'off')!;
  const medians = RSS.map((r) => run.summary.cells.find((c) => c.method === 'fork-exec' && c.thp === 'off' && c.rssMb === r)!.medianNs / 1000);
  const mx = RSS.reduce((a, b) => a + b, 0) / RSS.length;
  const my = medians.reduce((a, b) => a + b, 0) / medians.length;
  const slope = RSS.reduce((a, x, i) => a + (x - mx) * (medians[i]! - my), 0) / RSS.reduce((a, x) => a + (x - mx) ** 2, 0);
  assert.ok(Math.abs(off.slopeUsPerMb - slope) < 1e-9, `${off.slopeUsPerMb} vs ${slope}`);
  const text = (spawnExperiment.view(run)[0] as { lines: string[] }).lines[0]!;
  assert.ok(text.includes(`grows ${slope.toPrecision(3)} µs per MB with THP off`), text);
});
