// cow's summary (article 001): the five passes of each THP mode in ns per page with their intervals and minor
// faults, first ÷ second write (paired: both after the same fork), the CoW total, and what the kernel did with the
// huge pages; and the split of the probe's one line per fork into those four series.
import type { SeriesData } from '../../runner/probe.js';
import { ratioOfMedians } from '../../stats/pool.js';
import { median } from '../../stats/descriptive.js';
import { cellFigure, repeatsOf, type CellFigure } from '../shared/measure.js';
import type { Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { COW_FIELDS, COW_THP_MODES, type CowThp } from './configuration.js';

export const COW_SERIES = ['read', 'first-write', 'second-write', 'no-fork-write', 'no-fork-read'] as const;
export type CowSeries = (typeof COW_SERIES)[number];

/** One pass: its figure in ns per page over every fork of every repeat (CellFigure), and its faults. */
export interface CowPass extends CellFigure {
  series: CowSeries;
  /** Median minor faults of the pass (child's, or the parent's for no-fork-write and no-fork-read), and per page. */
  minflt: number;
  faultsPerPage: number;
}

/** What the kernel did with the huge pages on the child's first write. */
export type ThpVerdict = 'no-huge-pages' | 'split' | 'copied-huge' | 'mixed';

export interface CowCell {
  thp: CowThp;
  sizeMb: number;
  pages: number;
  passes: Partial<Record<CowSeries, CowPass>>;
  /** median(first-write) / median(second-write), with a bootstrap interval. */
  firstToSecond: { ratio: number; low: number; high: number } | null;
  firstToNoFork: number | null;
  /** first-write ns per page × pages: what the child pays to write the whole region once. */
  cowTotalMs: number | null;
  cowTotalLowMs: number | null;
  cowTotalHighMs: number | null;
  /** Child's AnonHugePages of the region before and after its first write (medians, kB). */
  hugeBeforeKb: number | null;
  hugeAfterKb: number | null;
  thpVerdict: ThpVerdict | null;
  failedRepeats: number;
}

export interface CowSummary {
  cells: CowCell[];
}

/** Which columns of the probe's one "fork" line feed each series. */
const COLUMNS: Record<CowSeries, { ns: string; minflt: string; extra: Record<string, string> }> = {
  read: { ns: 'readNs', minflt: 'readMinflt', extra: {} },
  'first-write': { ns: 'firstWriteNs', minflt: 'firstWriteMinflt', extra: { hugeBeforeKb: 'hugeBeforeKb', hugeAfterKb: 'hugeAfterKb' } },
  'second-write': { ns: 'secondWriteNs', minflt: 'secondWriteMinflt', extra: {} },
  'no-fork-write': { ns: 'noForkWriteNs', minflt: 'noForkWriteMinflt', extra: { hugeKb: 'parentHugeKb' } },
  'no-fork-read': { ns: 'noForkReadNs', minflt: 'noForkReadMinflt', extra: {} },
};

/**
 * The probe reports each fork as one line (whole-pass totals in columns); this splits it into its series
 * (a probe built before no-fork-read gives four), in ns per page (floating point: integer ns per page would lose most of a 5–15 ns figure).
 * Each series keeps the pass totals (passNs) and minor faults (minflt) as columns.
 */
export function splitForkSeries(fork: SeriesData | undefined, pages: number): SeriesData[] {
  if (!fork || pages <= 0) return [];
  const out: SeriesData[] = [];
  for (const name of COW_SERIES) {
    const c = COLUMNS[name];
    const passNs = fork.columns[c.ns];
    const minflt = fork.columns[c.minflt];
    if (!passNs || !minflt) continue;
    const columns: Record<string, number[]> = { passNs: [...passNs], minflt: [...minflt] };
    for (const [to, from] of Object.entries(c.extra)) if (fork.columns[from]) columns[to] = [...fork.columns[from]!];
    if (name === 'first-write') columns.forkToReapNs = [...fork.samplesNs];
    out.push({ series: name, samplesNs: passNs.map((ns) => ns / pages), columns });
  }
  return out;
}

export function thpVerdict(regionKb: number, hugeBeforeKb: number, hugeAfterKb: number, faultsPerPage: number): ThpVerdict {
  if (hugeBeforeKb < regionKb * 0.1) return 'no-huge-pages';
  if (faultsPerPage <= 0.1 && hugeAfterKb >= hugeBeforeKb * 0.5) return 'copied-huge';
  if (faultsPerPage >= 0.5 && hugeAfterKb < hugeBeforeKb * 0.5) return 'split';
  return 'mixed';
}

const col = (ms: readonly Measurement[], name: string): number[] => ms.flatMap((m) => m.columns[name] ?? []);

export function summarizeCow(measurements: readonly Measurement[], seed: number): CowSummary {
  const ms = measurementsOf(COW_FIELDS, measurements);
  const cells: CowCell[] = [];
  const keys = [...new Set(ms.map((m) => `${m.identity.thp}|${m.identity.sizeMb}`))];
  for (const key of keys) {
    const mine = ms.filter((m) => `${m.identity.thp}|${m.identity.sizeMb}` === key);
    const { thp, sizeMb } = mine[0]!.identity;
    const pages = Number(mine[0]!.identity.pages) || sizeMb * 256;
    const passes: CowCell['passes'] = {};
    for (const series of COW_SERIES) {
      const ok = mine.filter((m) => m.series === series && m.state === 'ok' && m.stats);
      const fig = cellFigure(ok, seed);
      if (!fig) continue;
      const faults = col(ok, 'minflt');
      const flt = faults.length ? median(faults) : Number.NaN; // NaN: a document without the fault counts
      passes[series] = {
        series,
        ...fig,
        minflt: flt,
        faultsPerPage: flt / pages,
      };
    }
    // Both passes are timed after the same fork: paired, repeat by repeat.
    const r = ratioOfMedians(
      repeatsOf(mine, (m) => m.series === 'second-write'),
      repeatsOf(mine, (m) => m.series === 'first-write'),
      seed,
      { paired: true },
    );
    const fw = passes['first-write'];
    const nf = passes['no-fork-write'];
    const firstOk = mine.filter((m) => m.series === 'first-write' && m.state === 'ok');
    const hb = col(firstOk, 'hugeBeforeKb');
    const ha = col(firstOk, 'hugeAfterKb');
    const hugeBeforeKb = hb.length ? median(hb) : null;
    const hugeAfterKb = ha.length ? median(ha) : null;
    cells.push({
      thp,
      sizeMb,
      pages,
      passes,
      firstToSecond: r ? { ratio: r.ratio, low: r.low, high: r.high } : null,
      firstToNoFork: fw && nf && nf.medianNs > 0 ? fw.medianNs / nf.medianNs : null,
      cowTotalMs: fw ? (fw.medianNs * pages) / 1e6 : null,
      cowTotalLowMs: fw ? (fw.ciLowNs * pages) / 1e6 : null,
      cowTotalHighMs: fw ? (fw.ciHighNs * pages) / 1e6 : null,
      hugeBeforeKb,
      hugeAfterKb,
      thpVerdict: fw && hugeBeforeKb !== null && hugeAfterKb !== null ? thpVerdict(sizeMb * 1024, hugeBeforeKb, hugeAfterKb, fw.faultsPerPage) : null,
      failedRepeats: new Set(mine.filter((m) => m.state === 'failed').map((m) => m.repeat)).size,
    });
  }
  cells.sort((a, b) => COW_THP_MODES.indexOf(a.thp) - COW_THP_MODES.indexOf(b.thp) || a.sizeMb - b.sizeMb);
  return { cells };
}
