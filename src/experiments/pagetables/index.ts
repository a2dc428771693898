// Experiment "pagetables" (article 003): a sparse address space costs megabytes of page tables, fork copies
// them whole into the child (twice the memory while the child lives), exec gives them back; and fork+_exit
// of a sparse parent is much slower than of a dense one with the same number of pages.
import { describeFailure } from '../../runner/probe.js';
import { experimentEntry } from '../command-lines.js';
import { sweep } from '../shared/sweep.js';
import { probeFailedWarnings } from '../shared/failures.js';
import { publishedValue } from '../../reference/published.js';
import { fixedPlan } from '../../runner/plans.js';
import { OWN_MAPPINGS, readMaxMapCount } from '../../env/memory.js';
import { finishRun, infoNumber, measurementsFrom } from '../shared/measure.js';
import { parseInteger, str } from '../../text/parse.js';
import { countOptions, parseCounts, type CountSpecs } from '../shared/counts.js';
import { fmtRatio, fmtUsCi } from '../../text/format.js';
import { heading, text, note, blank, table, conclusion, type Block } from '../contract/view.js';
import { fmtTime, fmtTimes } from '../shared/conclude.js';
import { MICROSECONDS_PER_CALL, type Experiment, type Measurement, type Warning } from '../contract/types.js';
import { UsageError } from '../../errors.js';
import { HEADROOM_BYTES, requireMemory } from '../shared/preflight.js';
import { FORK_FIELDS, LAYOUTS, PHASES, type Layout, type Phase, PAGETABLES_IDENTITY, type PagetablesFields, type PhaseFields } from './configuration.js';
import { diff, phaseRows, summarizePagetables, type PagetablesParams, type PagetablesSummary } from './summary.js';

export type { PagetablesParams, PagetablesSummary } from './summary.js';

const PHASE_LABELS: Record<Phase, string> = {
  before: 'before building',
  'after-build': 'after building',
  'after-fork': 'fork, child idle',
  'after-fork-parent-write': 'parent wrote its pages',
  'after-child-exec': 'child exec’d',
  'after-reap': 'child reaped',
};

const DEFAULTS = { pages: '8000', spacingKb: '2048', iterations: '10', warmup: '1', repeats: '1' };
const COUNTS: CountSpecs = {
  iterations: { description: 'timed fork+_exit+waitpid per layout', defaultValue: DEFAULTS.iterations, unit: 'forks', max: 100_000 },
  warmup: { description: 'warm-up fork+_exit per layout (not recorded)', defaultValue: DEFAULTS.warmup, unit: 'forks', max: 10_000 },
  repeats: { description: 'fresh probe processes per layout, one after another; each takes every reading again', defaultValue: DEFAULTS.repeats, unit: 'probes', max: 100 },
};
const MIB = 1024 * 1024;
const MAX_ADDRESS_SPACE = 2 ** 46;

/** Mappings the sparse layout needs: each page splits the PROT_NONE reservation, 2 per page. */
export function sparseMappings(pages: number): number {
  return 2 * pages + 1;
}

/** Bytes the run may hold at its peak: the pages and their copy-on-write copies, the page tables twice. */
export function peakBytes(p: PagetablesParams): number {
  const dataBytes = p.pages * 4096;
  const spacingBytes = p.spacingKb * 1024;
  const pteTables = Math.min(p.pages, Math.ceil((p.pages * spacingBytes) / (2 * MIB)) + 1);
  const pmdTables = Math.ceil((p.pages * spacingBytes) / 2 ** 30) + 1;
  return 2 * dataBytes + 2 * (pteTables + pmdTables) * 4096;
}

function warningsFor(run: { measurements: Measurement[]; summary: PagetablesSummary }): Warning[] {
  const w: Warning[] = [];
  const sparse = run.summary.layouts.find((l) => l.layout === 'sparse');
  if (sparse?.childToParentVmPte != null && Math.abs(sparse.childToParentVmPte - 1) > 0.3)
    w.push({
      code: 'pte-not-copied',
      message: `with the sparse layout the idle child's VmPTE is ${fmtRatio(sparse.childToParentVmPte)} the parent's, not ≈1×: this kernel did not copy the page tables at fork as article 003 describes. Record uname -r with the result.`,
    });
  const forked = run.summary.phases.find((r) => r.layout === 'sparse' && r.phase === 'after-fork');
  if (sparse?.forkPageTablesGrowthKb != null && forked?.childVmPteKb) {
    const off = Math.abs(sparse.forkPageTablesGrowthKb - forked.childVmPteKb) / forked.childVmPteKb;
    if (off > 0.25)
      w.push({
        code: 'pagetables-noisy',
        message: `the system's PageTables grew by ${sparse.forkPageTablesGrowthKb} kB at fork while the child holds ${forked.childVmPteKb} kB: other processes changed PageTables meanwhile. The VmPTE columns are per process and exact; for a clean PageTables column rerun on a quiet machine or with more --pages.`,
      });
  }
  const unsettled = run.summary.phases.filter((r) => r.settleMs !== null && r.settleMs >= 3000);
  if (unsettled.length)
    w.push({
      code: 'pagetables-unsettled',
      message: `PageTables kept moving for 3 s at ${unsettled.map((r) => `${r.layout}/${r.phase}`).join(', ')}: the machine is busy, so the system-wide column is approximate there. Rerun on a quiet machine.`,
    });
  w.push(...probeFailedWarnings(run.measurements, (m) => `${m.series}${m.identity.phase ? ` ${m.identity.phase}` : ''} (${m.identity.layout})`));
  return w;
}

const kb = (v: number | null | undefined) => (v == null ? '—' : `${v} kB`);
const signedKb = (v: number | null) => (v == null ? '—' : `${v >= 0 ? '+' : ''}${v} kB`);
const gib = (k: number) => `${(k / 1024 / 1024).toFixed(1)} GiB`;

export const pagetablesExperiment: Experiment<PagetablesParams, PagetablesSummary, PagetablesFields> = {
  ...experimentEntry('pagetables'),
  cases: ['pagetables'],
  identity: PAGETABLES_IDENTITY,
  series: ['phase', 'fork-exit-sparse', 'fork-exit-dense'],
  valueOrder: { layout: LAYOUTS, phase: PHASES },
  unit: MICROSECONDS_PER_CALL,
  figures: 'timings',
  chart: {
    kind: 'readings',
    id: 'pagetables-phases',
    title: 'Page-table memory by phase',
    caption: 'Page-table memory in kB by phase: VmPTE of parent and child, and PageTables of /proc/meminfo, one panel per layout.',
    series: 'phase',
    facet: 'layout',
    x: 'phase',
    readings: ['parentVmPteKb', 'childVmPteKb', 'pageTablesKb'],
    summaryKey: 'phases',
    y: { title: 'kB' },
    legendTitle: 'reading',
    width: 260,
    height: 220,
  },
  presets: {
    // 003: 8238 one-page mappings 1 MiB apart (two per page-table page, ≈16.5 MB of page tables). Three probes
    // per layout: system-wide PageTables moves with other processes, and one reading cannot show by how much.
    full: { pages: '8238', spacingKb: '1024', iterations: '10', warmup: '1', repeats: '3' },
    quick: { pages: '8238', spacingKb: '1024', iterations: '3', warmup: '1', repeats: '3' },
    note: 'article 003: 8238 one-page mappings 1 MiB apart',
  },
  options: [
    { flags: '--pages <n>', description: 'pages mapped and written by the parent (both layouts)', defaultValue: DEFAULTS.pages, unit: 'pages' },
    { flags: '--spacing-kb <KiB>', description: 'sparse layout: one page every this many KiB, inside a PROT_NONE reservation', defaultValue: DEFAULTS.spacingKb, unit: 'KiB' },
    ...countOptions(COUNTS),
  ],

  parse(raw) {
    const p: PagetablesParams = {
      pages: parseInteger('--pages', str(raw, 'pages', DEFAULTS.pages), 1, 1 << 24),
      spacingKb: parseInteger('--spacing-kb', str(raw, 'spacingKb', DEFAULTS.spacingKb), 8, 1 << 30),
      ...parseCounts(raw, COUNTS),
    };
    if (p.spacingKb % 4 !== 0) throw new UsageError('--spacing-kb', `must be a multiple of the 4 KiB page, got ${p.spacingKb}`);
    if (p.pages * p.spacingKb * 1024 > MAX_ADDRESS_SPACE)
      throw new UsageError('--spacing-kb', `--pages × --spacing-kb is ${gib(p.pages * p.spacingKb)} of address space; keep it under 64 TiB`);
    return p;
  },

  preflight(p) {
    const maxMapCount = readMaxMapCount();
    const need = sparseMappings(p.pages) + OWN_MAPPINGS;
    if (maxMapCount !== null && need > maxMapCount)
      throw new UsageError(
        '--pages',
        `${p.pages} sparse pages need ${sparseMappings(p.pages)} mappings (each page splits the PROT_NONE reservation) plus about ${OWN_MAPPINGS} of the probe's own, more than vm.max_map_count (${maxMapCount}) allows. ` +
          `Use at most ${Math.floor((maxMapCount - OWN_MAPPINGS - 1) / 2)} pages, or as root: sysctl -w vm.max_map_count=${need}`,
      );
    const needBytes = peakBytes(p) + HEADROOM_BYTES;
    requireMemory(
      '--pages',
      needBytes,
      (mb) =>
        `${p.pages} pages need about ${Math.ceil(needBytes / MIB)} MB at the peak (the pages, their copy-on-write copies, the page tables twice, 64 MB headroom); this machine can give about ${mb} MB. Use fewer --pages or a smaller --spacing-kb.`,
    );
    return [];
  },

  summarize: (ms, p) => summarizePagetables(ms, p),

  async run(p, ctx) {
    const { measurements, complete } = await sweep({
      configs: LAYOUTS,
      repeats: p.repeats,
      ctx,
      label: (layout) => `${layout}: ${p.pages} pages`,
      job: (layout) => ({
        caseName: 'pagetables',
        args: { layout, pages: p.pages, 'spacing-kb': p.spacingKb },
        plan: fixedPlan(p.warmup, p.iterations),
        timeoutMs: 60_000 + (p.iterations + p.warmup) * (20 + p.pages * 0.05),
      }),
      measure: (layout, result, repeat) => {
        const phases: Measurement[] = [];
        const rows = phaseRows(layout, result.info);
        const failure = result.state === 'failed' ? describeFailure(result.reason) : 'the probe did not report this phase';
        for (const phase of PHASES) {
          const r = rows.find((x) => x.phase === phase);
          phases.push({
            series: 'phase',
            identity: { layout, phase } satisfies PhaseFields['identity'],
            observed: {
              parentVmPteKb: r?.parentVmPteKb ?? null,
              childVmPteKb: r?.childVmPteKb ?? null,
              pageTablesKb: r?.pageTablesKb ?? null,
              settleMs: r?.settleMs ?? null,
            } satisfies PhaseFields['observed'],
            repeat,
            state: r ? 'ok' : 'failed',
            failure: r ? null : failure,
            info: result.info,
            samplesNs: [],
            columns: {},
            stats: null,
          });
        }
        const identity = { layout, pages: p.pages, spacingKb: layout === 'sparse' ? p.spacingKb : 4 };
        const observed = {
          mappingsInRange: infoNumber(result.info, 'mappingsInRange'),
          builtVmPteKb: diff(rows.find((r) => r.phase === 'after-build')?.parentVmPteKb, rows.find((r) => r.phase === 'before')?.parentVmPteKb),
        };
        return [...phases, ...measurementsFrom(FORK_FIELDS, result, identity, observed, repeat, [`fork-exit-${layout}`], ctx.seed)];
      },
    });
    const summary = summarizePagetables(measurements, p);
    return finishRun<PagetablesSummary, PagetablesParams>({ experiment: 'pagetables', params: { ...p }, measurements, summary, complete }, warningsFor);
  },

  view(run) {
    const out: Block[] = [];
    const p = run.params;
    const sparse = run.summary.layouts.find((l) => l.layout === 'sparse');
    const dense = run.summary.layouts.find((l) => l.layout === 'dense');
    {
      const lines: string[] = [];
      const st = run.summary;
      if (sparse && dense && sparse.builtVmPteKb != null && dense.builtVmPteKb != null)
        lines.push(
          `${sparse.pages} pages ${sparse.spacingKb} kB apart take ${sparse.builtVmPteKb} kB of page tables against ${dense.builtVmPteKb} kB packed together${st.sparseToDenseVmPte !== null ? ` (${fmtTimes(st.sparseToDenseVmPte)})` : ''}.`,
        );
      if (sparse?.forkExit && dense?.forkExit && st.forkExitSparseToDense !== null) {
        const apart = sparse.forkExit.ciLowNs > dense.forkExit.ciHighNs;
        const one = p.repeats < 2 ? '; one probe process per layout, so the spread between runs is not measured' : '';
        lines.push(
          `fork+_exit takes ${fmtTime(sparse.forkExit.medianNs)} sparse against ${fmtTime(dense.forkExit.medianNs)} dense (${fmtTimes(st.forkExitSparseToDense)}${apart ? '' : ': the intervals overlap, a difference is not established'}${one}).`,
        );
      }
      out.push(conclusion(lines.length ? lines : ['The layouts could not be measured: nothing to conclude.']), blank);
    }
    const before = (l: Layout) => run.summary.phases.find((r) => r.layout === l && r.phase === 'before')?.pageTablesKb ?? null;
    const rows = run.summary.phases.map((r) => [
      r.layout,
      PHASE_LABELS[r.phase],
      kb(r.parentVmPteKb),
      kb(r.childVmPteKb),
      kb(r.pageTablesKb),
      r.phase === 'before' ? '' : signedKb(diff(r.pageTablesKb, before(r.layout))),
    ]);
    out.push(
      heading(
        `Page tables through fork and exec: ${p.pages} pages, sparse = one every ${p.spacingKb} KiB` +
          (sparse?.mappingsInRange != null && sparse.rangeKb != null ? ` (${sparse.mappingsInRange} mappings in a ${gib(sparse.rangeKb)} reservation)` : '') +
          ', dense = one mapping',
      ),
    );
    out.push(table(['layout', 'phase', 'parent VmPTE', 'child VmPTE', 'PageTables', 'Δ PageTables'], rows, { leftAlign: [0, 1] }));
    out.push(note('VmPTE: /proc/PID/status (per process, exact); PageTables: /proc/meminfo (whole system, read once it settled).'));
    out.push(blank);
    const t = run.summary.layouts
      .filter((l) => l.forkExit)
      .map((l) => [
        l.layout,
        String(l.mappingsInRange ?? '—'),
        kb(l.builtVmPteKb),
        String(l.forkExit!.n),
        fmtUsCi(l.forkExit!.medianNs, l.forkExit!.ciLowNs, l.forkExit!.ciHighNs),
      ]);
    if (t.length) {
      out.push(heading('fork+_exit+waitpid with the pages in place: median µs [95 % CI]'));
      out.push(table(['layout', 'mappings', 'VmPTE built', 'n', 'fork+_exit'], t));
      const parts: string[] = [];
      if (run.summary.forkExitSparseToDense !== null) parts.push(`fork+_exit sparse ÷ dense: ${fmtRatio(run.summary.forkExitSparseToDense)}`);
      if (run.summary.sparseToDenseVmPte !== null) parts.push(`VmPTE after building sparse ÷ dense: ${fmtRatio(run.summary.sparseToDenseVmPte)}`);
      if (sparse?.childToParentVmPte != null) parts.push(`idle child's VmPTE ÷ parent's (sparse): ${fmtRatio(sparse.childToParentVmPte)}`);
      if (parts.length) out.push(text(parts.join('; ')));
      out.push(blank);
    }
    if (sparse?.forkPageTablesGrowthKb != null || dense?.forkPageTablesGrowthKb != null)
      out.push(
        text(
          `PageTables at fork: sparse ${signedKb(sparse?.forkPageTablesGrowthKb ?? null)}, dense ${signedKb(dense?.forkPageTablesGrowthKb ?? null)}; ` +
            `given back at the child's exec: sparse ${kb(sparse?.execPageTablesDropKb)}, dense ${kb(dense?.execPageTablesDropKb)}`,
        ),
      );
    const a = (id: string) => publishedValue(`003.pagetables.${id}`);
    out.push(
      note(
        `article 003: PageTables ${a('sparse.before')} kB before, ${a('sparse.after-build')} kB after building the sparse space (${a('sparse.mappings')} mappings, one page per MiB), ` +
          `${a('sparse.after-fork-parent-write')} kB after fork and the parent’s writes, ${a('sparse.after-child-exec')} kB after the child’s exec; ` +
          `dense: ${a('dense.before')}, ${a('dense.after-build')}, ${a('dense.after-fork-parent-write')} kB.`,
      ),
    );
    return out;
  },
};
