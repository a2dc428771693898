// Experiment "runtimes": what starting a process costs from Node, Python, Java and Perl — each runtime's
// own ways of starting a child, timed inside the runtime by a small driver (drivers/) that speaks the
// probe protocol — against the parent's heap, with the system call each one was seen to make.
import { availableParallelism } from 'node:os';
import { experimentEntry } from '../command-lines.js';
import { adaptivePlan } from '../../runner/plans.js';
import { readMemoryBudget } from '../../env/memory.js';
import { sweep } from '../shared/sweep.js';
import { finishRun, measurementsFrom } from '../shared/measure.js';
import { MICROSECONDS_PER_CALL, type Experiment, type ExperimentRun, type RunContext, type Warning } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import { discoverRuntimes, which, type FoundRuntime, type RuntimeEntry } from './discover.js';
import { fetchRuntime, parseFetchSpecs } from './fetch.js';
import { forklabCacheDir, runtimeCacheDir } from './locations.js';
import { buildDriver } from './build.js';
import { ALL_VARIANTS, DRIVER_FILES, FAMILIES, familyOfName, familySpec, type Family, type Variant } from './registry.js';
import { traceMechanism } from './mechanism.js';
import { node } from './families/node.js';
import { mechanismFields, mechanismsFromMeasurements } from './stored.js';
import { mechanismEntry, summarizeCells, summarizeLines, type AbsentVariant, type RuntimesSummary, type VariantMechanism } from './summary.js';
import { parseRuntimes, RUNTIMES_OPTIONS, RUNTIMES_PRESETS, type RuntimesParams } from './params.js';
import { viewRuntimes } from './render.js';
import { RUNTIMES_FIELDS, RUNTIMES_IDENTITY, type RuntimesFields } from './configuration.js';

export type { RuntimesParams } from './params.js';
export type { RuntimesSummary } from './summary.js';

const MIB = 1024 * 1024;

export interface PlannedRun {
  runtime: FoundRuntime;
  variants: Variant[];
  heapKinds: string[];
  /** The variant × heap kind pairs to measure (at every heap size). */
  pairs: { variant: Variant; heapKind: string }[];
}

interface Config {
  runtime: FoundRuntime;
  variant: Variant;
  heapKind: string;
  heapMb: number;
}

/** What to run: the selected runtimes (or those named), their variants (or those named) and heap kinds. */
export function plan(entries: readonly RuntimeEntry[], p: RuntimesParams): { runs: PlannedRun[]; absent: AbsentVariant[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const found = entries.filter((e): e is FoundRuntime => e.state === 'found');
  let chosen = p.only ? found.filter((r) => p.only!.includes(r.name) || p.only!.includes(r.family) || r.origin === 'flag') : found.filter((r) => r.selected);
  if (p.nodeLines) {
    // --node 20,24: one Node per line asked for (the one selected by discovery, else the newest), the rest of Node left out.
    const major = (r: FoundRuntime) => Number(r.version.split('.')[0]);
    const nodes = p.nodeLines.flatMap((line) => {
      const mine = found.filter((r) => r.family === node.family && major(r) === line);
      const pick = mine.find((r) => r.origin === 'flag') ?? mine.find((r) => r.selected) ?? mine[mine.length - 1];
      if (!pick)
        warnings.push({
          code: 'runtime-not-found',
          message: `--node ${line}: no Node ${line} was found here (PATH, nvm, fnm, volta, asdf, n, forklab's cache); forklab runtimes --fetch node@${line} installs it from the npm registry`,
        });
      return pick ? [pick] : [];
    });
    chosen = [...chosen.filter((r) => r.family !== node.family), ...nodes];
  }
  for (const name of p.only ?? [])
    if (!found.some((r) => r.name === name || r.family === name))
      warnings.push({ code: 'runtime-not-found', message: `--runtimes ${name}: no runtime of that name or family was found here; add it with --runtime ${name}=PATH` });
  const absent: AbsentVariant[] = [];
  const runs = chosen.map((runtime) => {
    const spec = familySpec(runtime.family);
    const variants = spec.variants.filter((v) => !p.variants || p.variants.includes(v.id) || p.variants.includes(v.caseName));
    const available = variants.filter((v) => {
      const why = runtime.unavailable[v.caseName];
      if (why) absent.push({ runtime: runtime.name, variant: v.id, why });
      return !why;
    });
    // --heap-kinds that name none of this runtime's kinds leave it out.
    const heapKinds = spec.heapKinds.filter((k) => !p.heapKinds || p.heapKinds.includes(k));
    // Named kinds run for every variant. Otherwise the first kind does; the others only for the variants
    // the family names (Node's spawn on V8's heap), and not at all with --quick: that keeps the default run short.
    const kindsOf = (v: Variant) => (p.heapKinds ? heapKinds : heapKinds.filter((_k, i) => i === 0 || (!p.quick && (spec.otherKindsFor ?? []).includes(v.caseName))));
    return { runtime, variants: available, heapKinds, pairs: available.flatMap((variant) => kindsOf(variant).map((heapKind) => ({ variant, heapKind }))) };
  });
  return { runs: runs.filter((r) => r.pairs.length > 0), absent, warnings };
}

function driverArgs(c: Config, target: string): Record<string, string | number> {
  return { target, 'heap-mb': c.heapMb, 'heap-kind': c.heapKind };
}

/** Traced starts run this many at a time: nothing is timed there, so they may share the CPUs. */
const TRACE_CONCURRENCY = Math.max(1, Math.min(2, availableParallelism()));

async function observeMechanisms(runs: readonly PlannedRun[], ctx: RunContext, strace: string): Promise<VariantMechanism[]> {
  const all = runs.flatMap((r) => r.variants.map((variant) => ({ runtime: r.runtime, variant, heapKind: r.heapKinds[0]! })));
  const out: (VariantMechanism | undefined)[] = new Array(all.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < all.length && !ctx.signal.aborted) {
      const i = next++;
      const c = all[i]!;
      const config: Config = { ...c, heapMb: 0 };
      const result = await traceMechanism({
        strace,
        command: familySpec(c.runtime.family).driver!(c.runtime, c.variant, 0, true),
        caseName: c.variant.caseName,
        args: driverArgs(config, ctx.native.targetStatic),
        target: ctx.native.targetStatic,
        timeoutMs: familySpec(c.runtime.family).traceTimeoutMs ?? 60_000,
        signal: ctx.signal,
      });
      out[i] = mechanismEntry(c.runtime.name, c.variant.id, result);
      ctx.progress.step(`strace ${c.runtime.name} ${c.variant.id}`, done++, all.length);
    }
  };
  await Promise.all(Array.from({ length: TRACE_CONCURRENCY }, worker));
  return out.filter((x): x is VariantMechanism => x !== undefined);
}

function warningsFor(run: ExperimentRun<RuntimesSummary>): Warning[] {
  const w: Warning[] = [];
  for (const m of run.measurements.filter((x) => x.state === 'failed'))
    w.push({ code: 'driver-failed', message: `${m.identity.runtime} ${m.identity.variant} (${m.identity.heapKind}) at ${m.identity.heapMb} MB, repeat ${m.repeat}: ${m.failure}` });
  for (const l of run.summary.lines.filter((x) => x.claimHolds === false))
    w.push({
      code: 'mechanism-mismatch',
      message: `${l.runtime} ${l.variant} (${l.heapKind}): its observed mechanism predicts ${l.expected}, the measurement says ${l.verdict}. Rerun with more --repeats on a quieter machine before drawing a conclusion.`,
    });
  return w;
}

export const runtimesExperiment: Experiment<RuntimesParams, RuntimesSummary, RuntimesFields> = {
  ...experimentEntry('runtimes'),
  cases: [],
  drivers: DRIVER_FILES,
  identity: RUNTIMES_IDENTITY,
  series: [...new Set(ALL_VARIANTS.map((v) => v.caseName))],
  valueOrder: { variant: ALL_VARIANTS.map((v) => v.id), heapKind: [...new Set(FAMILIES.flatMap((f) => f.heapKinds))] },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  presets: RUNTIMES_PRESETS,
  options: RUNTIMES_OPTIONS,
  figureKeys: ['runtime', 'variant', 'heapKind', 'heapMb'],
  parse: parseRuntimes,

  preflight(p) {
    // The largest heap, what the runtime itself holds (a JVM's -Xmx margin, V8's object headers) and headroom.
    const biggest = Math.max(...p.heapMb);
    const needBytes = Math.ceil(biggest * 1.5) * MIB + 512 * MIB;
    const budget = readMemoryBudget();
    if (budget.fitBytes !== null && needBytes > budget.fitBytes)
      throw new UsageError(
        '--heap-mb',
        `${biggest} MB does not fit: a runtime holding it needs about ${Math.ceil(needBytes / MIB)} MB and this machine can give about ${Math.floor(budget.fitBytes / MIB)} MB more. Use a smaller --heap-mb.`,
      );
    return [];
  },

  summarize: (ms, _p, seed) => {
    // A stored document keeps the timings and, in each measurement, the mechanism strace saw; what discovery
    // found lives only in the run's own summary.
    const mechanisms = mechanismsFromMeasurements(ms);
    return {
      runtimes: [],
      absentVariants: [],
      mechanisms,
      mechanismsSkipped: mechanisms.length ? null : 'not in this document',
      cells: summarizeCells(ms, seed),
      lines: summarizeLines(ms, mechanisms, seed),
    };
  },

  async run(p, ctx) {
    const cacheDir = runtimeCacheDir(process.env);
    const fetchWarnings: Warning[] = [];
    for (const spec of parseFetchSpecs(p.fetch.join(','))) {
      if (ctx.signal.aborted) break;
      const r = cacheDir
        ? await fetchRuntime(spec, cacheDir, { note: (m) => ctx.progress.note(m), signal: ctx.signal })
        : ({ state: 'failed', spec, why: 'no cache folder: neither XDG_CACHE_HOME nor HOME is set' } as const);
      if (r.state === 'failed') fetchWarnings.push({ code: 'fetch-failed', message: `--fetch ${spec.label}: ${r.why}` });
    }
    ctx.progress.note('looking for runtimes');
    // --runtimes that names families or runtimes of some families only: the others are not looked for.
    const named = p.only?.map((x) => familyOfName(x));
    const families = named && !named.includes(null) ? (named as Family[]) : undefined;
    const entries = await discoverRuntimes({ extra: p.extra, signal: ctx.signal, cacheDir, ...(families ? { families } : {}) });
    const planned = plan(entries, p);
    const { absent } = planned;
    const warnings = [...fetchWarnings, ...planned.warnings];
    // A compiled driver (Go, Rust) is built once into the cache with the compiler found (printed when it is built).
    const cacheRoot = forklabCacheDir(process.env);
    for (const r of planned.runs) {
      const family = r.runtime.family;
      if (!familySpec(family).build || ctx.signal.aborted) continue;
      const b = cacheRoot
        ? await buildDriver(family, r.runtime.path, r.runtime.version, cacheRoot, { note: (m) => ctx.progress.note(m), signal: ctx.signal })
        : ({ state: 'failed', why: 'no cache folder: neither XDG_CACHE_HOME nor HOME is set' } as const);
      if (b.state === 'failed') {
        for (const v of r.variants) absent.push({ runtime: r.runtime.name, variant: v.id, why: `its driver could not be built (${b.why})` });
        r.variants = [];
        r.pairs = [];
      } else r.runtime.built = b.path;
    }
    const runs = planned.runs.filter((r) => r.variants.length > 0);
    const strace = p.strace ? which('strace', process.env) : null;
    const mechanisms = strace ? await observeMechanisms(runs, ctx, strace) : [];
    const mechanismsSkipped = !p.strace ? 'not traced (--no-strace)' : strace ? null : 'unknown (install strace)';
    const configs: Config[] = runs.flatMap((r) => r.pairs.flatMap(({ variant, heapKind }) => p.heapMb.map((heapMb) => ({ runtime: r.runtime, variant, heapKind, heapMb }))));
    const { measurements, complete } = await sweep({
      configs,
      repeats: p.repeats,
      ctx,
      label: (c) => `${c.runtime.name} ${c.variant.id} ${c.heapKind} heap=${c.heapMb} MB`,
      job: (c) => ({
        command: familySpec(c.runtime.family).driver!(c.runtime, c.variant, c.heapMb),
        caseName: c.variant.caseName,
        args: driverArgs(c, ctx.native.targetStatic),
        plan: adaptivePlan({
          warmupIterations: p.warmup,
          batchIterations: 5,
          minIterations: Math.min(15, p.iterations),
          maxIterations: p.iterations,
          targetCiFraction: p.ciTarget,
          budgetMs: p.budgetMs === 0 ? Infinity : p.budgetMs,
        }),
        // Start-up (a JVM compiling the driver), building the heap, then the spawns themselves.
        timeoutMs: 120_000 + c.heapMb * 60 + (p.budgetMs === 0 ? p.iterations * 500 : p.budgetMs * 10),
      }),
      measure: (c, result, repeat) => {
        const rssKb = result.info.rssKb;
        const identity = { runtime: c.runtime.name, variant: c.variant.id, heapKind: c.heapKind, heapMb: c.heapMb };
        const observed = {
          family: c.runtime.family,
          runtimeVersion: typeof result.info.runtimeVersion === 'string' ? result.info.runtimeVersion : c.runtime.version,
          rssMb: typeof rssKb === 'number' && rssKb >= 0 ? Math.round(rssKb / 1024) : null,
          // What strace saw for this variant, kept with its measurements so that a stored run shows it too.
          ...mechanismFields(mechanisms.find((m) => m.runtime === c.runtime.name && m.variant === c.variant.id)),
        };
        return measurementsFrom(RUNTIMES_FIELDS, result, identity, observed, repeat, [c.variant.caseName], ctx.seed);
      },
    });
    const summary: RuntimesSummary = {
      runtimes: entries,
      absentVariants: absent,
      mechanisms,
      mechanismsSkipped,
      cells: summarizeCells(measurements, ctx.seed),
      lines: summarizeLines(measurements, mechanisms, ctx.seed),
    };
    return finishRun<RuntimesSummary, RuntimesParams>({ experiment: 'runtimes', params: { ...p }, measurements, summary, complete: complete && !ctx.signal.aborted }, (run) => [
      ...warnings,
      ...warningsFor(run),
    ]);
  },

  view: (run) => viewRuntimes(run),
};
