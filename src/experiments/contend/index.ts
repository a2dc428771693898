// Experiment "contend" (no article): N creators starting children at the same time, as processes forked
// from one parent or as threads of it, by fork+exec, vfork+exec or posix_spawn from a parent of a chosen RSS: the
// throughput of all creators together and each call's latency, against N. One probe per configuration.
import { availableParallelism } from 'node:os';
import { experimentEntry } from '../command-lines.js';
import { sweep, type ProbeJob } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { finishRun, infoNumber, measurementsFrom } from '../shared/measure.js';
import { parseChoiceList, parseInteger, parseIntegerList, str } from '../../text/parse.js';
import { countOptions, parseCount, type CountSpecs } from '../shared/counts.js';
import { checkSamplesFit } from '../shared/series.js';
import { budgetSources, HEADROOM_BYTES, requireMemory } from '../shared/preflight.js';
import { readMemoryBudget } from '../../env/memory.js';
import type { SamplingPlan } from '../../runner/probe.js';
import { fixedPlan } from '../../runner/plans.js';
import { MICROSECONDS_PER_CALL, type CommandOptions, type Experiment } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import type { SelfcheckPair } from '../contract/selfcheck.js';
import {
  CONTEND_FIELDS,
  CONTEND_IDENTITY,
  CONTEND_METHODS,
  CONTEND_MODES,
  CONTEND_SERIES,
  STALL_SERIES,
  contendTasks,
  type ContendFields,
  type ContendMethod,
  type ContendMode,
} from './configuration.js';
import { contendView, summarizeContend, type ContendParams, type ContendSummary } from './summary.js';

const MIB = 1024 * 1024;
/** The most creators one configuration may start (the probe's own bound). */
const MOST_CREATORS = 512;

const DEFAULTS = {
  methods: 'fork-exec,vfork-exec,posix-spawn',
  creatorKinds: 'process,thread',
  creators: 'auto',
  rss: '64',
  iterations: '100',
  warmup: '5',
  repeats: '2',
  siblings: '2',
  stallRss: '64,512',
  stallIterations: '30',
};

const COUNTS: CountSpecs = {
  iterations: { description: 'timed launches each creator makes per probe process', defaultValue: DEFAULTS.iterations, unit: 'launches', max: 100_000 },
  warmup: { description: 'launches each creator makes first, in a batch of their own (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'launches', max: 10_000 },
  repeats: { description: 'fresh probe processes per configuration, interleaved', defaultValue: DEFAULTS.repeats, unit: 'processes', max: 1000 },
};

/** 'auto': 1, 2, … up to twice the CPUs this process may use, every count up to 8, then powers of two. */
export function autoCreators(cpus: number = availableParallelism()): number[] {
  const most = Math.min(MOST_CREATORS, 2 * Math.max(1, cpus));
  const out: number[] = [];
  for (let n = 1; n <= most; n = n < 8 ? n + 1 : n * 2) out.push(n);
  if (out.at(-1) !== most) out.push(most);
  return out;
}

/** --creators: numbers, or auto (autoCreators), or max (twice the CPUs) among the numbers ("1,max"). */
function parseCreators(raw: CommandOptions): number[] {
  const v = str(raw, 'creators', DEFAULTS.creators).trim();
  if (v === 'auto') return autoCreators();
  const most = String(autoCreators().at(-1));
  const list = parseIntegerList(
    '--creators',
    v
      .split(',')
      .map((x) => (x.trim() === 'max' ? most : x))
      .join(','),
    1,
    MOST_CREATORS,
  );
  return [...list].sort((a, b) => a - b);
}

/** --siblings: counts from 1 to 64, or 0 alone (no stall measured): an empty list. */
function parseSiblings(raw: CommandOptions): number[] {
  const list = parseIntegerList('--siblings', str(raw, 'siblings', DEFAULTS.siblings), 0, 64);
  if (list.includes(0) && list.length > 1) throw new UsageError('--siblings', '0 (no stall measured) cannot be given with other counts');
  return list.filter((n) => n > 0).sort((a, b) => a - b);
}

type Config =
  | { kind: 'creators'; method: ContendMethod; creator: ContendMode; rssMb: number; creators: number }
  | { kind: 'stall'; method: ContendMethod; siblings: number; rssMb: number };

/** `iterations` launches per creator after `warmup`, in one batch each: the creators run free for the whole batch. */
function contendPlan(warmup: number, iterations: number): SamplingPlan {
  return { warmupIterations: warmup, next: (m) => ((m.get('aggregate')?.samplesNs.length ?? 0) >= iterations ? 0 : iterations - (m.get('aggregate')?.samplesNs.length ?? 0)) };
}

export const contendExperiment: Experiment<ContendParams, ContendSummary, ContendFields> = {
  ...experimentEntry('contend'),
  cases: ['contend', 'contend-stall'],
  identity: CONTEND_IDENTITY,
  series: [...CONTEND_SERIES, ...STALL_SERIES],
  // Its creators, or its siblings beside the launching thread, run at once: beyond the CPUs they take turns and the
  // samples spread with it, which the noise warning then puts down to the run, not to the machine.
  concurrency: { of: contendTasks, alone: '--creators 1 --siblings 0' },
  valueOrder: { method: CONTEND_METHODS, creator: CONTEND_MODES },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  // Each call's latency, not creations per second: the chart draws medians of timed series with their 95 % intervals,
  // and the latency is one (the throughput is a ratio of sums, in the table). One chart per experiment: the stall is
  // in the view's table only.
  chart: {
    kind: 'points',
    id: 'contend-latency',
    title: 'Each call’s latency against the creators at once',
    caption:
      'Median µs per launch+wait (log scales) with its 95 % interval against the number of creators running at once, one colour per method, one panel per kind of creator (processes forked from the parent, or threads of it); a line per parent RSS, dashed apart where the run has several.',
    x: { field: 'creators', title: 'creators at once (log scale)', scale: 'log' },
    y: { title: 'median µs per launch+wait', scale: 'log' },
    colour: { field: 'method', title: 'method', ordered: true },
    facet: { field: 'creator', title: 'creators are' },
    series: ['latency'],
    line: true,
    dash: { field: 'rssMb', title: 'parent RSS (MB)' },
    width: 280,
    height: 220,
  },
  fieldLabels: { rssMb: { suffix: 'MB', unit: 'MB' }, creators: { suffix: 'creators', unit: 'creator' } },
  presets: {
    full: {
      methods: DEFAULTS.methods,
      creatorKinds: DEFAULTS.creatorKinds,
      creators: 'auto',
      rss: '0,256',
      iterations: '200',
      warmup: '5',
      repeats: '3',
      siblings: '1,2,4',
      stallRss: '64,512,1024',
      stallIterations: '50',
    },
    // Quick: fork+exec and posix_spawn, one creator and the most, at 64 MB: eight short probes; then one sibling's
    // stall beside each method at 256 MB (the per-VMA lock commit's claim: one sibling, a CPU of its own on two): two
    // more. Fewer launches than before the claim (30 and 20): with fds and cgroup it must stay within 15 s, and a stall
    // of milliseconds against a baseline of microseconds is decided by a dozen.
    quick: {
      methods: 'fork-exec,posix-spawn',
      creatorKinds: 'process,thread',
      creators: '1,max',
      rss: '64',
      iterations: '20',
      warmup: '2',
      repeats: '1',
      siblings: '1',
      stallRss: '256',
      stallIterations: '12',
    },
    note: 'no article: N creators at once, as lmbench lat_proc -P, will-it-scale and stress-ng run them, 1 to 2 × CPUs; the siblings’ stall for the per-VMA lock commit fb49c455323f (2023), one sibling at the largest RSS',
    // In a full reproduction, fewer probes than the command's own full sweep (225 probes, 379 s of a 12-minute
    // reproduction here): fork+exec (the claim's) and posix_spawn (its contrast, as in the quick preset), one
    // creator and the most at one RSS, and one sibling's stall at the smallest and the largest RSS, each twice (24
    // probes): what the claim and the headline figures read.
    reproduce: {
      full: {
        methods: 'fork-exec,posix-spawn',
        creatorKinds: DEFAULTS.creatorKinds,
        creators: '1,max',
        rss: '256',
        // no claim reads the creators: half the launches of the command's own full (a reproduction took 5 min 4 s
        // with 100, the creators 23 s of contend's 40)
        iterations: '50',
        warmup: '5',
        repeats: '2',
        siblings: '1',
        stallRss: '64,1024',
        stallIterations: '50',
      },
    },
  },
  // The fidelity pair: the aggregate wall time per creation of two free-running creator processes, against
  // native/loop.c's own two forked loops of the same method (no start pipe, no per-call clock, no protocol).
  selfcheck: (c) =>
    c.methods
      .filter((m): m is (typeof CONTEND_METHODS)[number] => (CONTEND_METHODS as readonly string[]).includes(m))
      .flatMap((method) =>
        c.rssMb.map(
          (rssMb): SelfcheckPair => ({
            label: `contend ${method} ×2 ${rssMb} MB`,
            regionMb: rssMb,
            memoryMb: rssMb,
            probe: (n) => ({ caseName: 'contend', args: { method, mode: 'process', creators: 2, 'rss-mb': rssMb, target: n.targetStatic }, series: 'aggregate' }),
            loop: (n, it) => [`contend2-${method}`, String(rssMb), 'default', String(it), n.targetStatic],
          }),
        ),
      ),
  options: [
    { flags: '--methods <list>', description: `methods, comma-separated: ${CONTEND_METHODS.join(', ')}`, defaultValue: DEFAULTS.methods },
    {
      flags: '--creator-kinds <list>',
      description: 'what the creators are: process (forked from the parent) or thread (of the parent), comma-separated',
      defaultValue: DEFAULTS.creatorKinds,
    },
    {
      flags: '--creators <list>',
      description: `creators at once, comma-separated (1-${MOST_CREATORS}; max: twice the CPUs this process may use), or auto: 1, 2, … up to max`,
      defaultValue: DEFAULTS.creators,
    },
    { flags: '--rss <list>', description: 'parent RSS sizes in MB (MiB), comma-separated', defaultValue: DEFAULTS.rss, unit: 'MB' },
    ...countOptions(COUNTS),
    {
      flags: '--siblings <list>',
      description: 'sibling threads touching memory while the main thread launches, comma-separated (1-64); 0: do not measure their stall',
      defaultValue: DEFAULTS.siblings,
    },
    { flags: '--stall-rss <list>', description: 'parent RSS sizes in MB for the siblings’ stall, comma-separated (at least 1)', defaultValue: DEFAULTS.stallRss, unit: 'MB' },
    { flags: '--stall-iterations <n>', description: 'launches per probe process for the siblings’ stall', defaultValue: DEFAULTS.stallIterations, unit: 'launches' },
  ],

  parse(raw) {
    return {
      methods: parseChoiceList('--methods', str(raw, 'methods', DEFAULTS.methods), CONTEND_METHODS),
      creatorKinds: parseChoiceList('--creator-kinds', str(raw, 'creatorKinds', DEFAULTS.creatorKinds), CONTEND_MODES),
      creators: parseCreators(raw),
      rssMb: parseIntegerList('--rss', str(raw, 'rss', DEFAULTS.rss), 0, 1 << 22).sort((a, b) => a - b),
      siblings: parseSiblings(raw),
      stallRssMb: parseIntegerList('--stall-rss', str(raw, 'stallRss', DEFAULTS.stallRss), 1, 1 << 22).sort((a, b) => a - b),
      stallIterations: parseInteger('--stall-iterations', str(raw, 'stallIterations', DEFAULTS.stallIterations), 1, 10_000),
      iterations: parseCount('iterations', raw, COUNTS),
      warmup: parseCount('warmup', raw, COUNTS),
      repeats: parseCount('repeats', raw, COUNTS),
    };
  },

  preflight(p) {
    const biggest = Math.max(...p.rssMb, ...(p.siblings.length ? p.stallRssMb : []));
    const most = Math.max(...p.creators);
    // The region once (creator processes share it copy-on-write), THP alignment, and a page table per creator process.
    const needBytes = biggest * MIB + 2 * MIB + (p.creatorKinds.includes('process') ? most * Math.ceil(biggest / 512 + 1) * MIB : 0) + HEADROOM_BYTES;
    const budget = readMemoryBudget();
    requireMemory(
      '--rss',
      needBytes,
      (mb) => `${biggest} MB with ${most} creators does not fit: this machine can give about ${mb} MB more (${budgetSources(budget)}). Use a smaller --rss or fewer --creators.`,
      budget.fitBytes,
    );
    const configs = p.methods.length * p.creatorKinds.length * p.rssMb.length;
    checkSamplesFit(p.creators.reduce((a, n) => a + (n + 1) * p.iterations, 0) * configs * p.repeats, '--iterations');
    if (p.iterations * most > 1_000_000) throw new UsageError('--iterations', `${p.iterations} launches × ${most} creators is more than one probe records (1,000,000); use fewer`);
    return [];
  },

  summarize: (ms, _p, seed) => summarizeContend(ms, seed),

  async run(p, ctx) {
    const configs: Config[] = [
      ...p.creatorKinds.flatMap((creator) =>
        p.rssMb.flatMap((rssMb) => p.methods.flatMap((method) => p.creators.map((creators): Config => ({ kind: 'creators', method, creator, rssMb, creators })))),
      ),
      ...p.stallRssMb.flatMap((rssMb) => p.siblings.flatMap((siblings) => p.methods.map((method): Config => ({ kind: 'stall', method, siblings, rssMb })))),
    ];
    const { measurements, complete, repeatsStop } = await sweep({
      configs,
      repeats: p.repeats,
      ctx,
      label: (c) =>
        c.kind === 'creators'
          ? `${c.method} ${c.creators} ${c.creator === 'process' ? 'processes' : 'threads'} rss=${c.rssMb} MB`
          : `${c.method} beside ${c.siblings} sibling threads rss=${c.rssMb} MB`,
      job: (c): ProbeJob =>
        c.kind === 'creators'
          ? {
              caseName: 'contend',
              args: { method: c.method, mode: c.creator, creators: c.creators, 'rss-mb': c.rssMb, target: ctx.native.targetStatic },
              plan: contendPlan(p.warmup, p.iterations),
              // A launch takes well under 50 ms even on a loaded 2-CPU VM at 1 GB; every creator's are counted.
              timeoutMs: 30_000 + c.rssMb * 40 + (p.iterations + p.warmup) * c.creators * 50,
            }
          : {
              caseName: 'contend-stall',
              args: { method: c.method, siblings: c.siblings, 'rss-mb': c.rssMb, target: ctx.native.targetStatic },
              plan: fixedPlan(Math.min(p.warmup, 3), p.stallIterations),
              // Each iteration: a 2 ms pause, the launch, a spin as long, and the siblings' catching up.
              timeoutMs: 30_000 + c.rssMb * 40 + (p.stallIterations + 3) * (100 + c.rssMb),
            },
      measure: (c, result, repeat) => {
        const cpusUsable = infoNumber(result.info, 'cpusAllowed');
        return c.kind === 'creators'
          ? measurementsFrom(
              CONTEND_FIELDS,
              result,
              { method: c.method, creator: c.creator, creators: c.creators, rssMb: c.rssMb },
              { cpusUsable },
              repeat,
              CONTEND_SERIES,
              ctx.seed,
            )
          : measurementsFrom(CONTEND_FIELDS, result, { method: c.method, siblings: c.siblings, rssMb: c.rssMb }, { cpusUsable }, repeat, STALL_SERIES, ctx.seed);
      },
    });
    const summary = summarizeContend(measurements, ctx.seed);
    return finishRun<ContendSummary, ContendParams>({ experiment: 'contend', params: { ...p, repeatsStop }, measurements, summary, complete }, (run) =>
      probeFailedWarnings(run.measurements, (m) =>
        typeof m.identity.siblings === 'number'
          ? `${m.identity.method} beside ${m.identity.siblings} sibling threads at ${m.identity.rssMb} MB, repeat ${m.repeat}`
          : `${m.identity.method} with ${m.identity.creators} ${m.identity.creator} creators at ${m.identity.rssMb} MB, repeat ${m.repeat}`,
      ),
    );
  },

  view: (run) => contendView(run),
};
