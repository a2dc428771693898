// Experiment "cgroup": what it costs to start a child in another cgroup v2 group. clone3(CLONE_INTO_CGROUP) creates
// it there; a write of its pid to cgroup.procs (by the parent, or by the child before its exec) moves it, and takes
// cgroup_threadgroup_rwsem for writing, which on kernels ≥ 6.0 waits for an RCU grace period when no write came
// shortly before (Bun PR #37466, 2026). Timed back to back and after a pause, with and without other threads in the
// parent. Needs a writable cgroup v2 hierarchy: where there is none, the run says so and what would give one; it
// removes every group it made, whatever happens.
import { existsSync } from 'node:fs';
import { experimentEntry } from '../command-lines.js';
import { isAbsolute, resolve } from 'node:path';
import { fixedPlan } from '../../runner/plans.js';
import { describeFailure, type ProbeResult } from '../../runner/probe.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { finishRun, measurementsFrom } from '../shared/measure.js';
import { parseChoiceList, parseIntegerList, str } from '../../text/parse.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import { checkSamplesFit } from '../shared/series.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import type { SelfcheckPair } from '../contract/selfcheck.js';
import { CGROUP_FIELDS, CGROUP_IDENTITY, CGROUP_METHODS, type CgroupFields, type CgroupMethod } from './configuration.js';
import { DELEGATION_REMEDY, isV2Group, makeRunGroup, parentGroup, removeRunGroup, sweepStale, type CgroupAccess } from './hierarchy.js';
import { cgroupView, summarizeCgroup, type CgroupParams, type CgroupSummary } from './summary.js';

const DEFAULTS = { methods: CGROUP_METHODS.join(','), threads: '0,8', gapMs: '0,50', iterations: '15', warmup: '2', repeats: '2' };
const COUNTS: CountSpecs = {
  iterations: {
    description: 'timed rounds per probe process (a round launches each method once, in a shuffled order, each after the pause)',
    defaultValue: DEFAULTS.iterations,
    unit: 'rounds',
    max: 100_000,
  },
  warmup: { description: 'warm-up rounds per probe process (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'rounds', max: 10_000 },
  repeats: {
    description: 'fresh probe processes per threads × pause (each makes its group and times every method), interleaved',
    defaultValue: DEFAULTS.repeats,
    unit: 'processes',
    max: 1000,
  },
};

/** The probe calls whose failure is the kernel refusing the group, the write or clone3 (not a fault of the probe). */
const CGROUP_CALLS = new Set(['mkdir(group)', 'cgroup.type', 'open(group)', 'open(cgroup.procs)', 'clone3(CLONE_INTO_CGROUP)', 'write(cgroup.procs)']);
const ENOSYS = 38;
const EINVAL = 22;

/** Where a probe failed because the kernel refused a cgroup operation: what it said and what would allow it. */
export function refusalOf(result: ProbeResult): { refusal: string; remedy: string } | null {
  if (result.state !== 'failed') return null;
  const r = result.reason;
  const childWrite = r.kind === 'probe-error' && r.call === 'waitpid' && r.message.includes('cgroup.procs');
  if (r.kind !== 'probe-error' || !(CGROUP_CALLS.has(r.call) || childWrite)) return null;
  const refusal = describeFailure(r);
  if (r.call === 'clone3(CLONE_INTO_CGROUP)' && (r.errno === ENOSYS || r.errno === EINVAL))
    return { refusal, remedy: 'a kernel with clone3 and CLONE_INTO_CGROUP (Linux 5.7 or later), or --methods without clone3-into' };
  if (r.call === 'cgroup.type') return { refusal, remedy: 'a --cgroup-parent of type domain (not threaded, not domain invalid)' };
  return { refusal, remedy: DELEGATION_REMEDY };
}

function warningsFor(run: { measurements: Measurement[]; summary: CgroupSummary }): Warning[] {
  const o = run.summary.outcome;
  if (o.state !== 'measured') return [{ code: 'cgroup-unavailable', message: `not measured: ${o.reason}. What would allow it: ${o.remedy}` }];
  return probeFailedWarnings(run.measurements, (m) => `${m.series} with ${m.identity.threads} threads, ${m.identity.gapMs} ms pause, repeat ${m.repeat}`, { distinct: true });
}

/** The directory --cgroup-parent names, made absolute (null: not given). */
const parentOf = (raw: string | undefined): string | null => (raw === undefined || raw === '' ? null : isAbsolute(raw) ? raw : resolve(raw));

export const cgroupExperiment: Experiment<CgroupParams, CgroupSummary, CgroupFields> = {
  ...experimentEntry('cgroup'),
  cases: ['cgroup'],
  identity: CGROUP_IDENTITY,
  series: CGROUP_METHODS,
  valueOrder: { method: CGROUP_METHODS },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  paired: true,
  seriesField: 'method',
  figureKeys: ['threads', 'gapMs'],
  // A probe fixes the threads and the pause and times every method in the same rounds.
  probeKeys: () => ['threads', 'gapMs'],
  chart: {
    kind: 'points',
    id: 'cgroup-placement',
    title: 'Starting a child into another cgroup',
    caption: 'Median µs per launch+wait (log scale) with its 95 % interval, by method; one colour per pause before each launch, one panel per number of threads in the parent.',
    x: { field: 'series', title: null, scale: 'categories', labelAngle: -20 },
    y: { title: 'median µs per launch+wait', scale: 'log' },
    colour: { field: 'gapMs', title: 'pause (ms)', ordered: true },
    offset: true,
    facet: { field: 'threads', title: 'threads in the parent' },
    width: 260,
    height: 220,
  },
  fieldLabels: { threads: { suffix: 'threads', unit: 'thread' }, gapMs: { suffix: 'ms pause', unit: 'ms' } },
  presets: {
    // Every sporadic launch waits its pause: iterations × methods × pause per probe, so quick keeps few rounds.
    full: { methods: DEFAULTS.methods, threads: '0,8', gapMs: '0,50', iterations: '15', warmup: '2', repeats: '3' },
    quick: { methods: DEFAULTS.methods, threads: '0,8', gapMs: '0,50', iterations: '4', warmup: '1', repeats: '2' },
    note: 'no article: Bun PR #37466 (2026), a write to cgroup.procs against clone3(CLONE_INTO_CGROUP) per sporadic spawn; a 50 ms pause outlasts the RCU grace period a write after a pause waits for',
    // A reproduction runs what the claim and the conclusion read: the write by the parent against clone3, with no
    // other thread, after the pause and back to back (the claim: after the pause). Its own full preset sleeps 20 s
    // of its 23 (every method and both thread counts wait the pause); this one about 5. Quick likewise: 4.8 s of a
    // quick reproduction's 76 with every method and thread count, when the three sources' steps may add 15 s.
    reproduce: {
      full: { methods: 'parent-write,clone3-into', threads: '0', gapMs: '0,50', iterations: '15', warmup: '2', repeats: '3' },
      quick: { methods: 'parent-write,clone3-into', threads: '0', gapMs: '0,50', iterations: '4', warmup: '1', repeats: '2' },
    },
  },
  selfcheck: () => {
    const parent = parentGroup(null);
    if ('reason' in parent) return [];
    sweepStale(parent.dir);
    return (['clone3-into', 'parent-write'] as const).map(
      (method): SelfcheckPair => ({
        label: `cgroup ${method}`,
        regionMb: 0,
        memoryMb: 0,
        // Back to back, no other threads: what a bare loop of the same launches measures.
        probe: (n) => ({ caseName: 'cgroup', args: { methods: method, threads: 0, 'gap-us': 0, parent: parent.dir, target: n.targetStatic }, series: method }),
        loop: (n, it) => [`${method}:${parent.dir}`, '0', 'default', String(it), n.targetStatic],
      }),
    );
  },
  options: [
    { flags: '--methods <list>', description: `how the child reaches the group, comma-separated: ${CGROUP_METHODS.join(', ')}`, defaultValue: DEFAULTS.methods },
    {
      flags: '--threads <list>',
      description: 'threads the parent starts and keeps blocked before it times anything, comma-separated',
      defaultValue: DEFAULTS.threads,
      unit: 'threads',
    },
    { flags: '--gap-ms <list>', description: 'untimed pause before every launch, comma-separated (0: back to back)', defaultValue: DEFAULTS.gapMs, unit: 'ms' },
    {
      flags: '--cgroup-parent <dir>',
      description: 'a writable cgroup v2 group to make the run’s groups in (default: this process’s own group, from /proc/self/cgroup and /proc/self/mountinfo)',
    },
    ...countOptions(COUNTS),
  ],

  parse(raw) {
    return {
      methods: parseChoiceList('--methods', str(raw, 'methods', DEFAULTS.methods), CGROUP_METHODS),
      threads: parseIntegerList('--threads', str(raw, 'threads', DEFAULTS.threads), 0, 1024).sort((a, b) => a - b),
      gapMs: parseIntegerList('--gap-ms', str(raw, 'gapMs', DEFAULTS.gapMs), 0, 10_000).sort((a, b) => a - b),
      ...parseCounts(raw, COUNTS),
      cgroupParent: parentOf(typeof raw['cgroupParent'] === 'string' ? raw['cgroupParent'] : undefined),
    };
  },

  preflight(p) {
    const dir = p.cgroupParent;
    if (dir !== null && !existsSync(dir)) throw new UsageError('--cgroup-parent', `${dir} does not exist`);
    if (dir !== null && !isV2Group(dir)) throw new UsageError('--cgroup-parent', `${dir} is not a cgroup v2 group (it has no cgroup.procs and cgroup.type)`);
    checkSamplesFit(p.iterations * p.repeats * p.methods.length * p.threads.length * p.gapMs.length * 2, '--iterations');
    return [];
  },

  summarize: (ms, p, seed) => summarizeCgroup(ms, p, seed),

  async run(p, ctx) {
    const access: CgroupAccess = makeRunGroup(p.cgroupParent);
    const params: CgroupParams = { ...p, access };
    if (access.state !== 'ready') {
      const summary = summarizeCgroup([], params, ctx.seed);
      return finishRun<CgroupSummary, CgroupParams>({ experiment: 'cgroup', params, measurements: [], summary, complete: true }, warningsFor);
    }
    const configs = p.threads.flatMap((threads) => p.gapMs.map((gapMs) => ({ threads, gapMs })));
    let result: Awaited<ReturnType<typeof sweep>>;
    try {
      result = await sweep({
        configs,
        repeats: p.repeats,
        ctx,
        // every probe times every method: their number, not their list, on each step's line (as fds says its ways)
        label: (c) => `threads=${c.threads} pause=${c.gapMs} ms (${p.methods.length === 1 ? p.methods[0] : `${p.methods.length} methods`})`,
        job: (c, repeat) => ({
          caseName: 'cgroup',
          args: {
            methods: p.methods.join(','),
            threads: c.threads,
            'gap-us': c.gapMs * 1000,
            parent: access.runGroup,
            target: ctx.native.targetStatic,
            'order-seed': ctx.seed * 1000 + repeat,
          },
          plan: fixedPlan(p.warmup, p.iterations),
          // Every launch waits its pause; a write after a pause may wait a grace period, seconds on a loaded machine.
          timeoutMs: 30_000 + c.threads * 20 + (p.iterations + p.warmup + 1) * p.methods.length * (c.gapMs + 500),
        }),
        measure: (c, r, repeat) => {
          const refused = refusalOf(r);
          const observed = {
            groupType: typeof r.info.groupType === 'string' ? r.info.groupType : null,
            favordynmods: access.favordynmods,
            refusal: refused?.refusal ?? null,
            remedy: refused?.remedy ?? null,
          };
          return p.methods.flatMap((method: CgroupMethod) =>
            measurementsFrom(
              CGROUP_FIELDS,
              { ...r, series: r.series.filter((x) => x.series === method) },
              { method, threads: c.threads, gapMs: c.gapMs },
              observed,
              repeat,
              [method],
              ctx.seed,
            ),
          );
        },
      });
    } finally {
      removeRunGroup(access);
    }
    const warnings: Warning[] = [];
    if (!removeRunGroup(access)) warnings.push({ code: 'cgroup-left', message: `could not remove ${access.runGroup}: remove it by hand (rmdir, deepest first)` });
    const summary = summarizeCgroup(result.measurements, params, ctx.seed);
    const run = finishRun<CgroupSummary, CgroupParams>(
      { experiment: 'cgroup', params: { ...params, repeatsStop: result.repeatsStop }, measurements: result.measurements, summary, complete: result.complete },
      warningsFor,
    );
    run.warnings.push(...warnings);
    return run;
  },

  view: (run) => cgroupView(run),
};
