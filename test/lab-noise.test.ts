// The noise witness (counters before/after a run, the probe's own usage) and the one noise warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addProbeUsage, computeWitness, emptyUsageTotals, formatWitness, parseProcStatCpu, witnessOfLoad, type CpuTicks, type WitnessInput } from '../src/env/witness.js';
import { noiseFigures, noiseWarning } from '../src/lab/noise.js';
import { parseLine } from '../src/runner/protocol.js';
import { runProbe } from '../src/runner/probe.js';
import { fixedPlan } from '../src/runner/plans.js';
import { nativePaths, requireNative } from '../src/runner/paths.js';
import type { Measurement } from '../src/experiments/contract/types.js';

/** computeWitness over wallMs: the "some" CPU stall counter (µs) and the /proc/stat ticks read before and after; no probes and no pin unless given. */
function witnessOver(wallMs: number, stallUs: [number, number], ticks: [CpuTicks, CpuTicks] | null, o: Partial<Pick<WitnessInput, 'probes' | 'pinnedCpu'>> = {}) {
  const [ticksBefore, ticksAfter] = ticks ?? [null, null];
  return computeWitness({ wallMs, pressureBeforeUs: stallUs[0], pressureAfterUs: stallUs[1], ticksBefore, ticksAfter, probes: o.probes ?? null, pinnedCpu: o.pinnedCpu ?? null });
}

const STAT = `cpu  14526 0 1479 34951 129 0 49 12 0 0
cpu0 7000 0 700 17000 60 0 20 6 0 0
intr 1 2 3
`;

test('parseProcStatCpu reads the aggregate cpu line', () => {
  assert.deepEqual(parseProcStatCpu(STAT), { total: 14526 + 1479 + 34951 + 129 + 49 + 12, iowait: 129, steal: 12 });
  assert.equal(parseProcStatCpu('intr 1 2\n'), null);
  assert.equal(parseProcStatCpu('cpu  a b c d\n'), null);
});

test('the usage line parses, and a bad one is a protocol error', () => {
  const ok = parseLine('{"type":"usage","nivcsw":3,"nvcsw":50,"childNivcsw":1,"migrations":null}');
  assert.ok(ok.ok && ok.message.type === 'usage');
  assert.deepEqual(ok.ok && ok.message.type === 'usage' ? ok.message.usage : null, { nivcsw: 3, nvcsw: 50, childNivcsw: 1, migrations: null });
  assert.equal(parseLine('{"type":"usage","nivcsw":-1,"nvcsw":0,"childNivcsw":0,"migrations":0}').ok, false);
});

test('witness: quiet run, then a contended one with the reasons named', () => {
  // 100 ms stalled of 10 s: 1 %
  const quiet = witnessOver(
    10_000,
    [1_000_000, 1_100_000],
    [
      { total: 1000, iowait: 10, steal: 0 },
      { total: 3000, iowait: 12, steal: 2 },
    ],
    { probes: { ...emptyUsageTotals(), probes: 4, probeMs: 8000, involuntarySwitches: 40 } },
  );
  assert.equal(quiet.cpuPressurePercent, 1);
  assert.equal(quiet.stealPercent, 0.1);
  assert.equal(quiet.probeInvoluntaryPerS, 5);
  assert.deepEqual(quiet.contention, []);

  const totals = emptyUsageTotals();
  addProbeUsage(totals, { nivcsw: 900, nvcsw: 10, childNivcsw: 5, migrations: 3 }, 5000);
  addProbeUsage(totals, undefined, 100);
  assert.equal(totals.probes, 1);
  assert.equal(totals.probesWithoutUsage, 1);
  const busy = witnessOver(
    5000,
    [0, 2_000_000],
    [
      { total: 0, iowait: 0, steal: 0 },
      { total: 1000, iowait: 0, steal: 80 },
    ],
    { probes: totals, pinnedCpu: 1 },
  );
  assert.equal(busy.cpuPressurePercent, 40);
  assert.equal(busy.contention.length, 4, busy.contention.join('; '));
  assert.match(formatWitness(busy), /CPU pressure 40 % of 5\.0 s, steal 8 %.*preempted 900 times \(180\/s.*3 migrations off CPU 1/);
});

test('witnessOfLoad: null for a run stored before the witness existed', () => {
  const old = { at: 'x', loadAverage: [0, 0, 0] as [number, number, number], cpuPressure: null };
  assert.equal(witnessOfLoad({ before: old, after: old }, 1000, null), null);
  assert.equal(witnessOfLoad({ before: old, after: null }, 1000, null), null);
});

function m(series: string, fields: Record<string, string | number>, samplesNs: number[]): Measurement {
  return { series, identity: fields, observed: {}, repeat: 1, state: 'ok', failure: null, info: {}, samplesNs, columns: {}, stats: null };
}
const tight = (base: number) => Array.from({ length: 200 }, (_, i) => base + (i % 10));
const spread = (base: number) => Array.from({ length: 40 }, (_, i) => base * (0.3 + (i % 20) / 10));

test('noiseFigures pools repeats by series and keys; fields outside the keys do not split a figure', () => {
  const figs = noiseFigures(
    [
      m('fork-exec', { method: 'fork-exec', rssMb: 0, hugePagesKb: 0 }, tight(1000)),
      m('fork-exec', { method: 'fork-exec', rssMb: 0, hugePagesKb: 4 }, tight(1000)),
      m('fork-exec', { method: 'fork-exec', rssMb: 512 }, spread(5000)),
    ],
    ['rssMb'],
  );
  assert.deepEqual(
    figs.map((f) => [f.label, f.n]),
    [
      ['fork-exec (rss 0 MB)', 400],
      ['fork-exec (rss 512 MB)', 40],
    ],
  );
  assert.ok(figs[0]!.halfWidthFraction < 0.1);
  assert.ok(figs[1]!.halfWidthFraction > 0.1);
});

test('noiseWarning: none when tight and quiet; one naming the wide figures; no --pin advice to a pinned run', () => {
  const tightFigs = noiseFigures([m('thread', {}, tight(1000))], []);
  assert.equal(noiseWarning({ figures: tightFigs, witness: null, pinnedCpu: null, cpusAllowed: [0, 1], flags: ['--repeats'] }), null);

  const wideFigs = noiseFigures([m('thread', {}, tight(1000)), m('fork', {}, spread(5000)), m('exec', {}, spread(9000))], []);
  const unpinned = noiseWarning({ figures: wideFigs, witness: null, pinnedCpu: null, cpusAllowed: [0, 1, 2, 3], flags: ['--repeats', '--iterations'] });
  assert.ok(unpinned);
  assert.equal(unpinned.code, 'noise');
  assert.match(unpinned.message, /^2 of 3 figures/);
  assert.match(unpinned.message, /fork ±\d+ %/);
  assert.match(unpinned.message, /exec ±\d+ %/);
  assert.doesNotMatch(unpinned.message, /thread/);
  assert.match(unpinned.message, /--repeats or --iterations/);
  assert.match(unpinned.message, /--pin 3/);

  const pinned = noiseWarning({ figures: wideFigs, witness: null, pinnedCpu: 0, cpusAllowed: [0, 1, 2, 3], flags: ['--repeats'] });
  assert.ok(pinned);
  assert.doesNotMatch(pinned.message, /--pin/);
  const twoCpus = noiseWarning({ figures: wideFigs, witness: null, pinnedCpu: null, cpusAllowed: [0, 1], flags: [] });
  assert.doesNotMatch(twoCpus!.message, /--pin|--repeats/, 'advice only names what the command and the machine offer');
});

test('noiseWarning: contention alone warns, with the witness figures', () => {
  const witness = witnessOver(1000, [0, 500_000], null);
  const w = noiseWarning({ figures: noiseFigures([m('thread', {}, tight(1000))], []), witness, pinnedCpu: null, cpusAllowed: [0, 1], flags: ['--repeats'] });
  assert.ok(w);
  assert.match(w.message, /Every interval is within ±10 %, but the machine was busy during the run \(tasks waited for a CPU 50 % of the time\)/);
  assert.match(w.message, /Witness: CPU pressure 50 %/);
  assert.match(w.message, /forklab doctor/);
});

test('the real probe reports its usage counters before done', async () => {
  const native = requireNative(nativePaths());
  const r = await runProbe({
    probePath: native.probe,
    caseName: 'spawn',
    args: { method: 'fork-exit', 'rss-mb': 0, thp: 'default', target: native.targetStatic },
    plan: fixedPlan(1, 20),
    timeoutMs: 30_000,
  });
  assert.equal(r.state, 'ok');
  assert.ok(r.usage, 'usage line seen');
  assert.ok(r.usage.nvcsw + r.usage.nivcsw > 0, `20 forks and waits switch at least once: ${JSON.stringify(r.usage)}`);
  assert.ok(r.usage.migrations === null || r.usage.migrations >= 0);
});

test('witness percentages stay within 0–100 % when the counters and the clock are read a moment apart', () => {
  // 1,001 ms of "some" stall over a 1,000 ms wall clock: read at slightly different moments, not more than all the time.
  const w = witnessOver(
    1000,
    [0, 1_001_000],
    [
      { total: 100, steal: 0, iowait: 0 },
      { total: 200, steal: 101, iowait: 0 },
    ],
  );
  assert.equal(w.cpuPressurePercent, 100);
  assert.equal(w.stealPercent, 100);
  assert.doesNotMatch(formatWitness(w), /100\.\d %/);
});
