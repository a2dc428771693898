// The noise warning of a run that keeps more tasks runnable than CPUs (contend: N creators, or sibling threads beside
// the launching one): the spread its own concurrency explains is said to be the experiment's, the machine is judged on
// the figures that ran within the CPUs and on what the witness saw from outside the run. Synthetic samples only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeWitness, contentionSigns, emptyUsageTotals, type NoiseWitness } from '../src/env/witness.js';
import { judgeNoise, noiseFigures, noiseWarning, type NoiseContext } from '../src/lab/noise.js';
import { runNoiseWarnings } from '../src/lab/warnings.js';
import { contendExperiment } from '../src/experiments/contend/index.js';
import { contendTasks } from '../src/experiments/contend/configuration.js';
import type { ExperimentRun, Measurement } from '../src/experiments/contract/types.js';

const tight = (base: number) => Array.from({ length: 200 }, (_, i) => base + (i % 10));
const spread = (base: number) => Array.from({ length: 40 }, (_, i) => base * (0.3 + (i % 20) / 10));

/** A creators measurement of contend, `cpus` usable as its probe saw them. */
function creators(n: number, samplesNs: number[], cpus: number | null = 2, creator = 'thread'): Measurement {
  return {
    series: 'latency',
    identity: { method: 'fork-exec', creator, creators: n, rssMb: 64 },
    observed: { cpusUsable: cpus },
    repeat: 1,
    state: 'ok',
    failure: null,
    info: {},
    samplesNs,
    columns: {},
    stats: null,
  };
}

function siblings(k: number, samplesNs: number[], cpus = 2): Measurement {
  return { ...creators(1, samplesNs, cpus), series: 'stall', identity: { method: 'fork-exec', siblings: k, rssMb: 256 } };
}

/** A witness over 10 s: CPU pressure (% of the time), steal (% of CPU time), the probes' preemptions a second. */
function witness(o: { pressure?: number; steal?: number; preemptedPerS?: number } = {}): NoiseWitness {
  const probes = { ...emptyUsageTotals(), probes: 4, probeMs: 10_000, involuntarySwitches: (o.preemptedPerS ?? 1) * 10 };
  return computeWitness({
    wallMs: 10_000,
    pressureBeforeUs: 0,
    pressureAfterUs: (o.pressure ?? 0) * 100_000,
    ticksBefore: { total: 0, iowait: 0, steal: 0 },
    ticksAfter: { total: 1000, iowait: 0, steal: (o.steal ?? 0) * 10 },
    probes,
    pinnedCpu: null,
  });
}

const ALONE = 'forklab contend --creators 1 --siblings 0';
function context(ms: Measurement[], w: NoiseWitness | null, cpusFallback: number | null = 2): NoiseContext {
  return {
    figures: noiseFigures(ms, contendExperiment.identity, contendTasks, cpusFallback),
    witness: w,
    pinnedCpu: null,
    cpusAllowed: [0, 1],
    flags: ['--repeats', '--iterations'],
    aloneCommand: ALONE,
  };
}

test('contend says what it runs at once: creators, or siblings and the launching thread', () => {
  assert.deepEqual(contendTasks(creators(4, [1], 2, 'process')), { tasks: 4, cpus: 2, what: '4 creator processes' });
  assert.deepEqual(contendTasks(creators(1, [1], null)), { tasks: 1, cpus: null, what: '1 creator thread' });
  assert.deepEqual(contendTasks(siblings(2, [1])), { tasks: 3, cpus: 2, what: '2 sibling threads and the launching one' });
  assert.equal(contendExperiment.concurrency?.of, contendTasks);
  assert.match(`forklab contend ${contendExperiment.concurrency!.alone}`, /^forklab contend --creators 1 --siblings 0$/);
});

test('a figure is crowded when its tasks outnumber the CPUs its probe saw, or the lab’s where the probe did not say', () => {
  const figs = noiseFigures(
    [creators(1, tight(1000)), creators(2, tight(1000)), creators(4, tight(1000)), siblings(2, tight(500)), creators(3, tight(1000), null)],
    contendExperiment.identity,
    contendTasks,
    4,
  );
  const crowded = Object.fromEntries(figs.map((f) => [f.label, f.crowded]));
  assert.deepEqual(Object.values(crowded), [null, null, '4 creator threads on 2 CPUs', '2 sibling threads and the launching one on 2 CPUs', null]);
  // Without the experiment's concurrency nothing is crowded (every other experiment runs one task at a time).
  assert.ok(noiseFigures([creators(4, tight(1000))], contendExperiment.identity).every((f) => f.crowded === null));
});

test('spread beyond the CPUs with only the run’s own CPU waits: the experiment’s, not the machine’s', () => {
  const c = context([creators(1, tight(1000)), creators(2, tight(1100)), creators(4, spread(3000))], witness({ pressure: 100, preemptedPerS: 80 }));
  const j = judgeNoise(c);
  assert.equal(j.crowded, true);
  assert.deepEqual(
    j.own.map((f) => f.crowded),
    ['4 creator threads on 2 CPUs'],
  );
  assert.deepEqual(j.alone, []);
  assert.equal(j.aloneCount, 2);
  assert.deepEqual(j.machine, { state: 'quiet' });
  assert.equal(j.ownSigns.length, 2, 'CPU pressure and the preemptions count the run’s own tasks');
  const w = noiseWarning(c);
  assert.ok(w);
  assert.match(w.message, /^1 of 3 figures, of configurations that run more tasks at once than CPUs \(4 creator threads on 2 CPUs\), have a 95 % interval wider than ±10 %/);
  assert.match(w.message, /creators 4/);
  assert.match(w.message, /That spread is the experiment’s own/);
  assert.match(
    w.message,
    /The 2 figures that ran within the CPUs are within ±10 % \(the witness saw tasks waited for a CPU 100 % of the time; the probe was preempted 80 times a second, but the run’s own tasks count in that\): no sign of machine noise in them\./,
  );
  assert.doesNotMatch(w.message, /machine was busy|forklab doctor|quieter/);
  assert.match(w.message, /raise --repeats or --iterations/);
});

test('the same samples from a run of one task at a time still blame the busy machine', () => {
  const c = {
    ...context([creators(1, tight(1000)), creators(4, spread(3000))], witness({ pressure: 100 })),
    figures: noiseFigures([creators(1, tight(1000)), creators(4, spread(3000))], contendExperiment.identity),
  };
  const j = judgeNoise(c);
  assert.equal(j.crowded, false);
  assert.equal(j.machine.state, 'busy');
  assert.match(noiseWarning(c)!.message, /the machine was busy during the run \(tasks waited for a CPU 100 % of the time\)/);
});

test('steal comes from outside the run: the machine is busy whatever the run runs', () => {
  const c = context([creators(1, tight(1000)), creators(4, spread(3000))], witness({ pressure: 100, steal: 8 }));
  const j = judgeNoise(c);
  assert.deepEqual(j.machine, { state: 'busy', signs: ['the hypervisor took 8 % of CPU time (steal)'] });
  const w = noiseWarning(c)!;
  assert.match(w.message, /That spread is the experiment’s own/);
  assert.match(w.message, /The machine was busy during the run \(the hypervisor took 8 % of CPU time \(steal\)\)\./);
  assert.doesNotMatch(w.message, /busy during the run \([^)]*tasks waited/, 'its own CPU waits are not given as the machine’s');
  assert.match(w.message, /forklab doctor/);
});

test('a wide figure within the CPUs is not put down to the run; with only CPU waits seen, the machine is not known, and the command that tells is named', () => {
  const c = context([creators(1, spread(1000)), creators(2, tight(1100)), creators(4, spread(3000))], witness({ pressure: 60 }));
  const j = judgeNoise(c);
  assert.deepEqual(j.machine, { state: 'spread' });
  assert.deepEqual(
    j.alone.map((f) => f.label),
    ['latency (method fork-exec, creator thread, creators 1, rss 64 MB)'],
  );
  const w = noiseWarning(c)!;
  assert.match(
    w.message,
    /1 of the 2 figures that ran within the CPUs is wide as well: latency \(method fork-exec, creator thread, creators 1, rss 64 MB\) ±\d+ %; the run’s concurrency does not explain it\./,
  );
  assert.match(w.message, /Whether the machine was busy this run cannot tell/);
  assert.match(w.message, /To see the machine.s noise alone: `forklab contend --creators 1 --siblings 0` \(no more tasks than CPUs/);

  // With no CPU wait seen at all, the spread within the CPUs is the operation's own, as for any run.
  const quiet = noiseWarning(context([creators(1, spread(1000)), creators(4, spread(3000))], witness()))!;
  assert.match(quiet.message, /The figure that ran within the CPUs is wide as well: latency \(method fork-exec, creator thread, creators 1, rss 64 MB\)/);
  assert.match(quiet.message, /No contention seen: that spread is the measured operation's own\./);
  assert.doesNotMatch(quiet.message, /--creators 1/);
});

test('every figure crowded: this run cannot tell the machine’s noise, and says how to measure it', () => {
  const c = context([creators(4, spread(3000)), siblings(2, spread(800))], witness({ pressure: 100 }));
  const j = judgeNoise(c);
  assert.equal(j.aloneCount, 0);
  assert.deepEqual(j.machine, { state: 'unmeasured' });
  const w = noiseWarning(c)!;
  assert.match(w.message, /^2 of 2 figures/);
  assert.match(w.message, /Every figure ran more tasks at once than CPUs, so this run cannot tell the machine’s noise from its own/);
  assert.match(w.message, /`forklab contend --creators 1 --siblings 0`/);
});

test('a crowded run with tight figures and only its own CPU waits warns of nothing; with steal it warns as any run', () => {
  const tightRun = [creators(1, tight(1000)), creators(4, tight(3000))];
  assert.equal(noiseWarning(context(tightRun, witness({ pressure: 100, preemptedPerS: 200 }))), null);
  const stolen = noiseWarning(context(tightRun, witness({ pressure: 100, steal: 6 })))!;
  assert.match(stolen.message, /^Every interval is within ±10 %, but the machine was busy during the run \(the hypervisor took 6 % of CPU time \(steal\)\)/);
  assert.doesNotMatch(stolen.message, /raise --repeats/, 'more samples do not help an interval already tight');
});

test('contention signs: CPU waits apart from what comes from outside the run, in the witness’s words', () => {
  const w = witness({ pressure: 50, steal: 6, preemptedPerS: 60 });
  assert.deepEqual(
    contentionSigns(w).map((s) => s.kind),
    ['cpu-wait', 'steal', 'cpu-wait'],
  );
  assert.deepEqual(
    contentionSigns(w).map((s) => s.text),
    w.contention,
  );
  assert.deepEqual(contentionSigns(witness()), []);
});

test('runNoiseWarnings hands contend’s concurrency and its command to the warning', () => {
  const run = { experiment: 'contend', measurements: [creators(1, tight(1000)), creators(4, spread(3000))], warnings: [] } as unknown as ExperimentRun;
  const [w] = runNoiseWarnings(contendExperiment, run, witness({ pressure: 100 }), null);
  assert.ok(w);
  assert.match(w.message, /That spread is the experiment’s own/);
  assert.match(w.message, /no sign of machine noise/);
});
