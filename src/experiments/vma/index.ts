// Experiment "vma" (article 003): fork copies every vm_area_struct of the parent, so its time and the
// kernel memory (Slab) it takes grow with the number of mappings; clone(CLONE_VM|CLONE_VFORK)+exec and
// posix_spawn borrow the parent's address space and do not.
import { publishedValue } from '../../reference/published.js';
import { experimentEntry } from '../command-lines.js';
import { fixedPlan } from '../../runner/plans.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { linearFit } from '../../stats/regression.js';
import { median } from '../../stats/descriptive.js';
import { OWN_MAPPINGS, readMaxMapCount } from '../../env/memory.js';
import { cellFigure, finishRun, fitOverRepeats, infoNumber, measurementsFrom, type CellFigure } from '../shared/measure.js';
import { parseIntegerList, str } from '../../text/parse.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import { fmtRatio, fmtUsCi } from '../../text/format.js';
import { heading, text, note, blank, table, conclusion, type Block } from '../contract/view.js';
import { cellRatio, poolOfCells, ratioSays, fmtRatioCi, fmtTime, fmtTimes, runCells } from '../shared/conclude.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import { HEADROOM_BYTES, requireMemory } from '../shared/preflight.js';
import { measurementsOf } from '../contract/fields.js';
import { VMA_FIELDS, VMA_METHODS, type VmaMethod, VMA_IDENTITY, type VmaFields, type VmaMeasurement } from './configuration.js';

export interface VmaParams {
  /** Mapping counts to measure, ascending, capped to what vm.max_map_count allows by preflight(). */
  vmas: number[];
  /** What the user asked for, before any cap. */
  requestedVmas: number[];
  iterations: number;
  warmup: number;
  repeats: number;
  /** Calls of each method per round: one probe per VMA count builds its mappings once and times every method round by round (absent in runs stored before: one probe per method). */
  block: number;
}

export interface VmaCell extends CellFigure {
  vmas: number;
  method: VmaMethod;
  failedRepeats: number;
}

export interface VmaSlope {
  method: VmaMethod;
  /** Least-squares slope of per-repeat medians against the number of VMAs. */
  nsPerVma: number;
  interceptNs: number;
  r2: number;
  points: number;
  /** Median at the most VMAs ÷ median at the fewest. */
  growth: number | null;
}

export interface SlabRow {
  vmas: number;
  /** Medians over the probes of this VMA count: growth of /proc/meminfo Slab and SUnreclaim with a forked child alive. */
  slabGrowthKb: number;
  sUnreclaimGrowthKb: number;
  /** Median of what building the mappings itself added to Slab (the parent's own VMAs). */
  slabBuildKb: number;
  /** VMAs counted in /proc/self/maps inside the region (smallest over the probes). */
  vmasInRegion: number;
  probes: number;
}

export interface VmaSummary {
  cells: VmaCell[];
  slopes: VmaSlope[];
  slab: SlabRow[];
  /** Slab bytes per VMA a forked child costs (least squares over every probe), and the same for SUnreclaim. */
  slabBytesPerVma: { slab: number; sUnreclaim: number; r2: number; points: number } | null;
  /** True when every probe found exactly `vmas` mappings in its region. */
  mapsVerified: boolean;
}

const DEFAULTS = { vmas: '0,1000,10000,60000', iterations: '30', warmup: '3', repeats: '2' };
const COUNTS: CountSpecs = {
  iterations: {
    description: 'timed rounds per probe process (a round launches each method once, in a shuffled order)',
    defaultValue: DEFAULTS.iterations,
    unit: 'launches',
    max: 100_000,
  },
  warmup: { description: 'warm-up rounds per probe process (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'launches', max: 10_000 },
  repeats: {
    description: 'fresh probe processes per VMA count (each builds its mappings once and times every method), interleaved',
    defaultValue: DEFAULTS.repeats,
    unit: 'processes',
    max: 1000,
  },
};
const MIB = 1024 * 1024;
/** Generous kernel memory per VMA (parent's and child's vm_area_struct, maple tree, anon_vma): for the memory check. */
const BYTES_PER_VMA_BOUND = 1024;

/** Caps the VMA counts to what max_map_count leaves after the probe's own mappings; says so in a warning. */
export function capVmas(requested: readonly number[], maxMapCount: number | null): { vmas: number[]; warning: Warning | null } {
  if (maxMapCount === null) return { vmas: [...requested], warning: null };
  const cap = Math.max(0, maxMapCount - OWN_MAPPINGS);
  const over = requested.filter((v) => v > cap);
  if (over.length === 0) return { vmas: [...requested], warning: null };
  const vmas = [...new Set(requested.map((v) => Math.min(v, cap)))].sort((a, b) => a - b);
  const biggest = Math.max(...over);
  return {
    vmas,
    warning: {
      code: 'vmas-capped',
      message:
        `--vmas ${over.join(',')} ${over.length > 1 ? 'exceed' : 'exceeds'} what vm.max_map_count (${maxMapCount}) allows with about ${OWN_MAPPINGS} mappings left for the probe itself: measuring ${cap} instead. ` +
        `To measure ${biggest}, raise the limit as root: sysctl -w vm.max_map_count=${biggest + OWN_MAPPINGS}`,
    },
  };
}

export function summarizeVma(measurements: readonly Measurement[], seed: number): VmaSummary {
  const ms = measurementsOf(VMA_FIELDS, measurements);
  const cells: VmaCell[] = [];
  const vmasList = [...new Set(ms.map((m) => m.identity.vmas))].sort((a, b) => a - b);
  for (const method of VMA_METHODS)
    for (const vmas of vmasList) {
      const mine = ms.filter((m) => m.identity.method === method && m.identity.vmas === vmas);
      const ok = mine.filter((m) => m.state === 'ok' && m.stats);
      const fig = cellFigure(ok, seed);
      if (!fig) continue;
      cells.push({
        vmas,
        method,
        ...fig,
        failedRepeats: mine.length - ok.length,
      });
    }
  const slopes: VmaSlope[] = [];
  for (const method of VMA_METHODS) {
    const g = cells.filter((c) => c.method === method);
    if (new Set(g.map((c) => c.vmas)).size < 2) continue;
    const fit = fitOverRepeats(g, (c) => c.vmas);
    const lo = g[0]!;
    const hi = g[g.length - 1]!;
    slopes.push({ method, nsPerVma: fit.slope, interceptNs: fit.intercept, r2: fit.r2, points: fit.n, growth: lo.medianNs > 0 ? hi.medianNs / lo.medianNs : null });
  }
  // Slab: every probe forked one paused child after building its mappings; a probe that timed several methods
  // counts once (its measurements share its info, probePid among it).
  const seenProbe = new Set<string>();
  const probes = ms.filter((m) => {
    if (m.state !== 'ok' || infoNumber(m.info, 'slabChildKb') === null || infoNumber(m.info, 'slabBuiltKb') === null) return false;
    const id = `${String(m.info.probePid ?? m.series)}|${m.repeat}|${String(m.identity.vmas)}`;
    if (seenProbe.has(id)) return false;
    seenProbe.add(id);
    return true;
  });
  const slab: SlabRow[] = [];
  for (const vmas of vmasList) {
    const mine = probes.filter((m) => m.identity.vmas === vmas);
    if (!mine.length) continue;
    const of = (k: (m: VmaMeasurement) => number) => median(mine.map(k));
    slab.push({
      vmas,
      slabGrowthKb: of((m) => m.observed.slabGrowthKb as number),
      sUnreclaimGrowthKb: of((m) => m.observed.sUnreclaimGrowthKb as number),
      slabBuildKb: of((m) => m.observed.slabBuildKb as number),
      vmasInRegion: Math.min(...mine.map((m) => m.observed.vmasInRegion as number)),
      probes: mine.length,
    });
  }
  let slabBytesPerVma: VmaSummary['slabBytesPerVma'] = null;
  if (new Set(probes.map((m) => m.identity.vmas)).size >= 2) {
    const xs = probes.map((m) => m.identity.vmas);
    const s = linearFit(
      xs,
      probes.map((m) => (m.observed.slabGrowthKb as number) * 1024),
    );
    const u = linearFit(
      xs,
      probes.map((m) => (m.observed.sUnreclaimGrowthKb as number) * 1024),
    );
    slabBytesPerVma = { slab: s.slope, sUnreclaim: u.slope, r2: s.r2, points: s.n };
  }
  const mapsVerified = ms.filter((m) => m.state === 'ok').every((m) => m.observed.vmasInRegion === m.identity.vmas);
  return { cells, slopes, slab, slabBytesPerVma, mapsVerified };
}

function warningsFor(run: { measurements: Measurement[]; summary: VmaSummary }): Warning[] {
  const w: Warning[] = [];
  if (!run.summary.mapsVerified) {
    const bad = run.measurements.find((m) => m.state === 'ok' && m.observed.vmasInRegion !== m.identity.vmas)!;
    w.push({
      code: 'vmas-merged',
      message: `asked for ${bad.identity.vmas} VMAs but /proc/self/maps shows ${bad.observed.vmasInRegion} in the region: the kernel merged mappings, so the VMA axis is off. Report this with uname -r.`,
    });
  }
  const sb = run.summary.slabBytesPerVma;
  if (sb && sb.r2 < 0.8)
    w.push({
      code: 'slab-noisy',
      message: `the Slab growth fits the VMA count poorly (R² ${sb.r2.toFixed(2)}): other processes allocated or freed kernel memory meanwhile. Include larger --vmas values or rerun on a quiet machine.`,
    });
  w.push(...probeFailedWarnings(run.measurements, (m) => `${m.series} at ${m.identity.vmas} VMAs, repeat ${m.repeat}`));
  return w;
}

const signed = (v: number) => `${v >= 0 ? '+' : ''}${v}`;

export const vmaExperiment: Experiment<VmaParams, VmaSummary, VmaFields> = {
  ...experimentEntry('vma'),
  figureKeys: ['vmas'],
  cases: ['vma'],
  identity: VMA_IDENTITY,
  series: VMA_METHODS,
  valueOrder: { method: VMA_METHODS },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  chart: {
    kind: 'points',
    id: 'vma-fork',
    title: 'Fork time against VMA count',
    caption: 'Median µs per spawn (log scale) with its 95 % interval, against the number of mappings in the parent (log scale).',
    x: { field: 'vmas', title: 'VMAs in the parent (log scale)', scale: 'log' },
    y: { title: 'median µs', scale: 'log' },
    colour: { field: 'method', title: 'method', ordered: true },
    line: true,
    positiveX: true,
    width: 360,
    height: 240,
  },
  fieldLabels: { vmas: { suffix: 'VMAs', unit: 'VMA' } },
  // A probe fixes the VMA count and times every method in the same rounds; runs stored before had one probe per method.
  probeKeys: (params) => (typeof params['block'] === 'number' ? ['vmas'] : null),
  seriesField: 'method',
  presets: {
    // 003 mapped 1,000,000 VMAs; vm.max_map_count (65530 by default) caps what a probe may map.
    full: { vmas: '0,1000,10000,30000,60000', iterations: '30', warmup: '3', repeats: '2' },
    quick: { vmas: '0,20000,60000', iterations: '20', warmup: '2', repeats: '3' },
    note: 'article 003: up to 60000 one-page mappings (the article: 1,000,000; vm.max_map_count allows 65530)',
  },
  options: [
    {
      flags: '--vmas <list>',
      description: 'numbers of one-page mappings in the parent, comma-separated (capped by vm.max_map_count)',
      defaultValue: DEFAULTS.vmas,
      unit: 'mappings',
    },
    ...countOptions(COUNTS),
  ],

  parse(raw) {
    const vmas = parseIntegerList('--vmas', str(raw, 'vmas', DEFAULTS.vmas), 0, 1 << 26).sort((a, b) => a - b);
    return {
      vmas,
      requestedVmas: [...vmas],
      ...parseCounts(raw, COUNTS),
      block: 1,
    };
  },

  preflight(p) {
    const warnings: Warning[] = [];
    const capped = capVmas(p.requestedVmas, readMaxMapCount());
    p.vmas = capped.vmas;
    if (capped.warning) warnings.push(capped.warning);
    const biggest = Math.max(...p.vmas);
    const needBytes = biggest * BYTES_PER_VMA_BOUND * 2 + HEADROOM_BYTES;
    requireMemory(
      '--vmas',
      needBytes,
      (mb) =>
        `${biggest} VMAs may need about ${Math.ceil(needBytes / MIB)} MB of kernel memory (parent and child copies, 64 MB headroom); this machine can give about ${mb} MB. Use smaller --vmas.`,
    );
    return warnings;
  },

  summarize: (ms, _p, seed) => summarizeVma(ms, seed),

  async run(p, ctx) {
    // One probe per VMA count (and repeat): the mappings built and the Slab read once, every method timed round by round.
    const configs = p.vmas.map((vmas) => ({ vmas }));
    const { measurements, complete } = await sweep({
      configs,
      repeats: p.repeats,
      ctx,
      label: (c) => `vmas=${c.vmas} (${VMA_METHODS.join(', ')})`,
      job: (c, repeat) => ({
        caseName: 'vma',
        args: { vmas: c.vmas, methods: VMA_METHODS.join(','), block: p.block, 'order-seed': ctx.seed * 1000 + repeat, target: ctx.native.targetStatic },
        plan: fixedPlan(p.warmup, p.iterations),
        timeoutMs: 30_000 + (p.iterations + p.warmup + 2) * p.block * VMA_METHODS.length * (20 + c.vmas * 0.005),
      }),
      measure: (c, result, repeat) => {
        const i0 = result.info;
        const d = (a: string, b: string) => {
          const x = infoNumber(i0, a);
          const y = infoNumber(i0, b);
          return x !== null && y !== null ? x - y : null;
        };
        const observed = {
          vmasInRegion: infoNumber(i0, 'vmasInRegion'),
          slabGrowthKb: d('slabChildKb', 'slabBuiltKb'),
          sUnreclaimGrowthKb: d('sUnreclaimChildKb', 'sUnreclaimBuiltKb'),
          slabBuildKb: d('slabBuiltKb', 'slabBeforeKb'),
          // The raw /proc/meminfo Slab readings: before building, before the fork, with the child alive, after its reap.
          slabBeforeKb: infoNumber(i0, 'slabBeforeKb'),
          slabBeforeForkKb: infoNumber(i0, 'slabBuiltKb'),
          slabAfterForkKb: infoNumber(i0, 'slabChildKb'),
          slabAfterReapKb: infoNumber(i0, 'slabAfterKb'),
        };
        return VMA_METHODS.flatMap((method) =>
          measurementsFrom(VMA_FIELDS, { ...result, series: result.series.filter((x) => x.series === method) }, { vmas: c.vmas, method }, observed, repeat, [method], ctx.seed),
        );
      },
    });
    const summary = summarizeVma(measurements, ctx.seed);
    return finishRun<VmaSummary, VmaParams>({ experiment: 'vma', params: { ...p }, measurements, summary, complete }, warningsFor);
  },

  view(run) {
    const out: Block[] = [];
    const s = run.summary;
    const vmasList = [...new Set(s.cells.map((x) => x.vmas))].sort((a, b) => a - b);
    const methods = VMA_METHODS.filter((m) => s.cells.some((x) => x.method === m));
    {
      // the conclusion: per method, its median at the fewest and the most VMAs, and whether growth is established
      const cells = runCells(run.measurements, (m) => `${m.series}|${String(m.identity.vmas)}`);
      const pool = poolOfCells(cells.values());
      const lo = vmasList[0];
      const hi = vmasList.at(-1);
      const parts = methods.flatMap((m) => {
        const a = cells.get(`${m}|${lo}`);
        const b = cells.get(`${m}|${hi}`);
        if (!a || !b || lo === hi) return [];
        const r = cellRatio(b, a, pool, 1);
        const span = `${fmtTime(s.cells.find((x) => x.method === m && x.vmas === lo)!.medianNs)} → ${fmtTime(s.cells.find((x) => x.method === m && x.vmas === hi)!.medianNs)}`;
        return [`${m} ${ratioSays(r) === 'above' ? 'grows' : 'shows no established growth:'} ${span} from ${lo} to ${hi} VMAs (${fmtTimes(r.ratio)}${fmtRatioCi(r)})`];
      });
      out.push(conclusion(parts.length ? [`${parts.join('; ')}.`] : ['Fewer than two VMA counts measured: nothing to conclude about growth.']), blank);
    }
    const rows = vmasList.map((v) => {
      const sl = s.slab.find((x) => x.vmas === v);
      return [
        String(v),
        sl ? String(sl.vmasInRegion) : '—',
        ...methods.map((m) => {
          const x = s.cells.find((y) => y.method === m && y.vmas === v);
          return x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—';
        }),
        sl ? `${signed(sl.slabGrowthKb)} kB (${signed(sl.sUnreclaimGrowthKb)})` : '—',
      ];
    });
    out.push(heading('Median µs per launch+wait [95 % CI], by one-page mappings (VMAs) in the parent'));
    out.push(table(['VMAs', 'in maps', ...methods, 'Slab with child (SUnreclaim)'], rows));
    out.push(note('“in maps”: VMAs counted in /proc/self/maps; Slab: /proc/meminfo growth while a forked child waits (whole system).'));
    out.push(blank);
    if (s.slopes.length) {
      const r = s.slopes.map((x) => [x.method, x.nsPerVma.toFixed(1), x.r2.toFixed(3), x.growth === null ? '—' : fmtRatio(x.growth)]);
      out.push(heading('Growth per VMA (least squares over per-repeat medians)'));
      out.push(table(['method', 'ns per VMA', 'R²', 'most ÷ fewest VMAs'], r));
      out.push(blank);
    }
    if (s.slabBytesPerVma)
      out.push(
        text(
          `Kernel memory a forked child takes per VMA: ${s.slabBytesPerVma.slab.toFixed(0)} bytes of Slab (SUnreclaim ${s.slabBytesPerVma.sUnreclaim.toFixed(0)}), R² ${s.slabBytesPerVma.r2.toFixed(2)} over ${s.slabBytesPerVma.points} probes`,
        ),
      );
    const a = (id: string) => publishedValue(`003.slab.${id}`);
    const mappings = a('mappings');
    const perVma = ((a('after-fork') - a('after-exec')) * 1024) / mappings; // what the child's copy held, per VMA
    out.push(
      note(
        `article 003: fork time grows with the VMAs while clone(CLONE_VM) does not; Slab ${a('before')} kB before, ${a('after-fork')} kB with the forked child of a parent ` +
          `holding ${mappings.toLocaleString('en-US')} mappings, ${a('after-exec')} kB after the child’s exec (≈${perVma.toFixed(0)} bytes per copied VMA).`,
      ),
    );
    return out;
  },
};
