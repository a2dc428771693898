// pagetables' summary (article 003): the page-table readings of each layout at each phase, what building, fork and
// exec did to them, and fork+_exit sparse against dense; and the probe's per-phase info read as rows.
import type { InfoValue } from '../../runner/protocol.js';
import type { Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { infoNumber } from '../shared/measure.js';
import { LAYOUTS, PAGETABLES_FIELDS, PHASES, type Layout, type Phase, isPhaseRow } from './configuration.js';

export interface PagetablesParams {
  pages: number;
  spacingKb: number;
  /** Timed fork+_exit+waitpid per layout. */
  iterations: number;
  warmup: number;
  /** Fresh probe processes per layout: each takes every reading again (the claims resample them). */
  repeats: number;
}

export interface PhaseRow {
  layout: Layout;
  phase: Phase;
  parentVmPteKb: number | null;
  /** Null where no child lives (before, built, reaped). */
  childVmPteKb: number | null;
  pageTablesKb: number | null;
  /** How long the probe waited for /proc/meminfo PageTables to settle (freed tables lag by an RCU grace period). */
  settleMs: number | null;
}

export interface LayoutSummary {
  layout: Layout;
  pages: number;
  spacingKb: number;
  rangeKb: number | null;
  mappingsInRange: number | null;
  /** The parent's VmPTE after building minus before: what the layout costs in page tables. */
  builtVmPteKb: number | null;
  /** Child's VmPTE ÷ parent's with the child idle after fork: ≈1 when fork copies the tables. */
  childToParentVmPte: number | null;
  /** System PageTables after fork minus after building. */
  forkPageTablesGrowthKb: number | null;
  /** System PageTables after the parent's writes minus after the child's exec. */
  execPageTablesDropKb: number | null;
  forkExit: { n: number; medianNs: number; ciLowNs: number; ciHighNs: number } | null;
}

export interface PagetablesSummary {
  phases: PhaseRow[];
  layouts: LayoutSummary[];
  /** Parent VmPTE after building, sparse ÷ dense. */
  sparseToDenseVmPte: number | null;
  /** Median fork+_exit, sparse ÷ dense. */
  forkExitSparseToDense: number | null;
}

/** The page-table readings the probe reported for each phase it reached. */
export function phaseRows(layout: Layout, info: Record<string, InfoValue>): PhaseRow[] {
  return PHASES.filter((ph) => infoNumber(info, `${ph}.parentVmPteKb`) !== null).map((phase) => ({
    layout,
    phase,
    parentVmPteKb: infoNumber(info, `${phase}.parentVmPteKb`),
    childVmPteKb: infoNumber(info, `${phase}.childVmPteKb`),
    pageTablesKb: infoNumber(info, `${phase}.pageTablesKb`),
    settleMs: infoNumber(info, `${phase}.settleMs`),
  }));
}

/** a − b, or null where either is missing. */
export const diff = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null ? null : a - b);

export function summarizePagetables(measurements: readonly Measurement[], p: PagetablesParams): PagetablesSummary {
  const ms = measurementsOf(PAGETABLES_FIELDS, measurements);
  const phases: PhaseRow[] = [];
  for (const m of ms) {
    if (!isPhaseRow(m) || m.state !== 'ok') continue;
    const f = m.observed;
    phases.push({
      layout: m.identity.layout,
      phase: m.identity.phase,
      parentVmPteKb: f.parentVmPteKb,
      childVmPteKb: f.childVmPteKb,
      pageTablesKb: f.pageTablesKb,
      settleMs: f.settleMs,
    });
  }
  const layouts: LayoutSummary[] = LAYOUTS.map((layout) => {
    const at = (ph: Phase) => phases.find((r) => r.layout === layout && r.phase === ph);
    const fe = ms.find((m) => m.series === `fork-exit-${layout}` && m.state === 'ok' && m.stats);
    const info = ms.find((m) => m.identity.layout === layout)?.info ?? {};
    const forked = at('after-fork');
    return {
      layout,
      pages: p.pages,
      spacingKb: layout === 'sparse' ? p.spacingKb : 4,
      rangeKb: infoNumber(info, 'rangeKb'),
      mappingsInRange: infoNumber(info, 'mappingsInRange'),
      builtVmPteKb: diff(at('after-build')?.parentVmPteKb, at('before')?.parentVmPteKb),
      childToParentVmPte: forked?.childVmPteKb != null && forked.parentVmPteKb ? forked.childVmPteKb / forked.parentVmPteKb : null,
      forkPageTablesGrowthKb: diff(forked?.pageTablesKb, at('after-build')?.pageTablesKb),
      execPageTablesDropKb: diff(at('after-fork-parent-write')?.pageTablesKb, at('after-child-exec')?.pageTablesKb),
      forkExit: fe?.stats ? { n: fe.stats.n, medianNs: fe.stats.medianNs, ciLowNs: fe.stats.ciLowNs, ciHighNs: fe.stats.ciHighNs } : null,
    };
  });
  const [sparse, dense] = layouts;
  const builtParent = (l: Layout) => phases.find((r) => r.layout === l && r.phase === 'after-build')?.parentVmPteKb ?? null;
  const s = builtParent('sparse');
  const d = builtParent('dense');
  return {
    phases,
    layouts,
    sparseToDenseVmPte: s !== null && d ? s / d : null,
    forkExitSparseToDense: sparse?.forkExit && dense?.forkExit ? sparse.forkExit.medianNs / dense.forkExit.medianNs : null,
  };
}
