// spawn's summary and view (article 000): each method × THP × parent RSS cell with its pooled median and interval
// and the huge pages its region got, the growth with RSS (least squares through each RSS's pooled median, the one
// slope every output shows, and what it costs per copied page-table entry), and what a run shows in the article's
// layout, its conclusion first.
import { publishedValue } from '../../reference/published.js';
import { median } from '../../stats/descriptive.js';
import { fmtNs, fmtUs, fmtUsCi } from '../../text/format.js';
import { pooledSeriesStats } from '../shared/measure.js';
import { linearFit } from '../../stats/regression.js';
import { describeRepeatsStop, type RepeatParams } from '../shared/repeats.js';
import { targetCommandLine } from '../shared/target.js';
import { blank, heading, note, table, type Block } from '../contract/view.js';
import type { ShownRun, Measurement } from '../contract/types.js';

export const METHODS = ['fork-exec', 'vfork-exec', 'posix-spawn', 'clone-vfork', 'fork-exit'] as const;
export type Method = (typeof METHODS)[number];
/**
 * What a method's child does with the parent's memory: a copy of its page tables (fork), or the parent's own until
 * it execs (vfork, posix_spawn, clone(CLONE_VM)). Methods of the two kinds are timed in separate probes: in one
 * process, forks of a 512 MB parent made the vfork+exec and posix_spawn that followed them 24-40 % slower than a
 * plain loop of either alone (`forklab selfcheck`, quiet), while vfork+exec and posix_spawn timed together matched it.
 */
export const CHILD_MEMORY = { 'fork-exec': 'copy', 'fork-exit': 'copy', 'vfork-exec': 'shared', 'posix-spawn': 'shared', 'clone-vfork': 'shared' } as const;
export type ChildMemory = (typeof CHILD_MEMORY)[Method];

/** The chosen methods in probes of one kind each (in their given order): those that copy, then those that share. */
export function probeGroups(methods: readonly Method[]): Method[][] {
  return (['copy', 'shared'] as const).map((k) => methods.filter((m) => CHILD_MEMORY[m] === k)).filter((g) => g.length > 0);
}
export const THP_MODES = ['on', 'off', 'default'] as const;
export type ThpMode = (typeof THP_MODES)[number];

export interface SpawnParams extends RepeatParams {
  methods: Method[];
  rssMb: number[];
  thp: ThpMode[];
  /** Most timed iterations per probe; fewer when the median's interval is already within ciTarget. */
  iterations: number;
  warmup: number;
  repeats: number;
  /** Fraction (0.02 = ±2 %); 0 runs every iteration. */
  ciTarget: number;
  /** Time budget per probe in ms for the timed iterations (setup excluded); 0 = none. */
  budgetMs: number;
  /**
   * Calls of each method per round: one probe per RSS × THP fills its region once and times every method, round by
   * round in a shuffled order (native/case_spawn.c). Runs stored before this design have none (one probe per method).
   */
  block: number;
  /**
   * 'child-memory': methods whose child copies the parent's memory and those whose child shares it are timed in
   * separate probes (CHILD_MEMORY). Runs stored before this have none: every method in one probe.
   */
  probes: 'child-memory';
  /** --target: the user's program (absolute path) started instead of the built-in `return 0` target; absent: built-in. */
  target?: string;
  /** --target's arguments. */
  targetArgs?: string[];
}

export interface SpawnCell {
  method: Method;
  thp: ThpMode;
  rssMb: number;
  n: number;
  medianNs: number;
  ciLowNs: number;
  ciHighNs: number;
  meanNs: number;
  cv: number;
  repeatMediansNs: number[];
  /** Smallest AnonHugePages of the region over the repeats, in kB. */
  hugePagesKb: number;
  failedRepeats: number;
}

export interface SpawnSlope {
  method: Method;
  thp: ThpMode;
  /** Least-squares slope of the cells' medians (every repeat's samples pooled) against RSS: µs per MB. */
  slopeUsPerMb: number;
  interceptUs: number;
  r2: number;
  points: number;
  /** Cost per copied page-table entry, from the slope: 4 KiB PTEs or 2 MiB PMDs; null where the mapping is mixed, no fork, or the fit falls. */
  entry: { kind: 'PTE' | 'PMD'; ns: number } | null;
}

export interface SpawnSummary {
  cells: SpawnCell[];
  slopes: SpawnSlope[];
}

/** Entries one MB of mapping needs: 256 PTEs of 4 KiB, or half a PMD of 2 MiB. */
export function perEntryCost(slopeUsPerMb: number, kind: 'PTE' | 'PMD'): number {
  return (slopeUsPerMb * 1000) / (kind === 'PTE' ? 256 : 0.5);
}

export function summarizeSpawn(ms: readonly Measurement[], seed: number): SpawnSummary {
  const cells: SpawnCell[] = [];
  const slopes: SpawnSlope[] = [];
  const keys = new Map<string, { method: Method; thp: ThpMode; rssMb: number }>();
  for (const m of ms) {
    const k = { method: m.identity.method as Method, thp: m.identity.thp as ThpMode, rssMb: m.identity.rssMb as number };
    keys.set(`${k.method}|${k.thp}|${k.rssMb}`, k);
  }
  for (const k of keys.values()) {
    const mine = ms.filter((m) => m.identity.method === k.method && m.identity.thp === k.thp && m.identity.rssMb === k.rssMb);
    const ok = mine.filter((m) => m.state === 'ok' && m.stats);
    const st = pooledSeriesStats(ok, () => true, seed);
    if (!st) continue;
    cells.push({
      ...k,
      n: st.n,
      medianNs: st.medianNs,
      ciLowNs: st.ciLowNs,
      ciHighNs: st.ciHighNs,
      meanNs: st.meanNs,
      cv: st.cv,
      repeatMediansNs: ok.map((m) => m.stats!.medianNs),
      hugePagesKb: Math.min(...ok.map((m) => Number(m.info.hugePagesKb ?? 0))),
      failedRepeats: mine.length - ok.length,
    });
  }
  const groups = new Map<string, SpawnCell[]>();
  for (const c of cells) {
    const g = `${c.method}|${c.thp}`;
    groups.set(g, [...(groups.get(g) ?? []), c]);
  }
  for (const g of groups.values()) {
    if (new Set(g.map((c) => c.rssMb)).size < 2) continue;
    // through each RSS's pooled median: the slope the claims, the chart's fitted line and the conclusion use too
    const fit = linearFit(
      g.map((c) => c.rssMb),
      g.map((c) => c.medianNs / 1000),
    );
    const { method, thp } = g[0]!;
    let entry: SpawnSlope['entry'] = null;
    const largest = g.reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
    const hugeFraction = largest.hugePagesKb / (largest.rssMb * 1024);
    if ((method === 'fork-exec' || method === 'fork-exit') && fit.slope > 0) {
      if (hugeFraction >= 0.9) entry = { kind: 'PMD', ns: perEntryCost(fit.slope, 'PMD') };
      else if (hugeFraction <= 0.1) entry = { kind: 'PTE', ns: perEntryCost(fit.slope, 'PTE') };
    }
    slopes.push({ method, thp, slopeUsPerMb: fit.slope, interceptUs: fit.intercept, r2: fit.r2, points: fit.n, entry });
  }
  const rank = (c: { method: Method; thp: ThpMode }) => METHODS.indexOf(c.method) * 10 + THP_MODES.indexOf(c.thp);
  cells.sort((a, b) => rank(a) - rank(b) || a.rssMb - b.rssMb);
  slopes.sort((a, b) => rank(a) - rank(b));
  return { cells, slopes };
}

/** What a run shows after its conclusion (conclusion.ts; index.ts puts it first): a table and latency chart per THP mode, the growth with RSS, the fastest cell and the repeats. */
export function spawnView(run: ShownRun<SpawnSummary, SpawnParams>): Block[] {
  const p = run.params;
  const out: Block[] = [];
  if (p.target)
    out.push(
      heading(`target: ${targetCommandLine(p.target, p.targetArgs ?? [])}`),
      note('your program, started with your environment and /dev/null as stdin, stdout and stderr; each figure is spawn + run to its exit + wait'),
      blank,
    );
  const methods = [...new Set(run.summary.cells.map((x) => x.method))];
  for (const thp of THP_MODES) {
    const cells = run.summary.cells.filter((x) => x.thp === thp);
    if (cells.length === 0) continue;
    const rss = [...new Set(cells.map((x) => x.rssMb))].sort((a, b) => a - b);
    const rows = rss.map((r) => [
      `${r} MB`,
      ...methods.map((m) => {
        const x = cells.find((y) => y.method === m && y.rssMb === r);
        return x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—';
      }),
      (() => {
        const hp = cells.filter((y) => y.rssMb === r).map((y) => y.hugePagesKb);
        return hp.length ? `${Math.round(median(hp) / 1024)} MB` : '—';
      })(),
    ]);
    out.push(heading(`THP ${thp}: median µs per spawn+wait${p.target ? ` of ${p.target}` : ''} [95 % CI]`));
    out.push(table(['parent RSS', ...methods, 'huge pages'], rows));
    if (rss.length > 1) out.push(blank, { kind: 'latency-chart', points: cells, order: METHODS, width: 64, height: 9 });
    out.push(blank);
  }
  if (run.summary.slopes.length) {
    const copies = (m: Method) => m === 'fork-exec' || m === 'fork-exit';
    const perEntry = (s: SpawnSlope) => (s.entry ? `${fmtNs(s.entry.ns)} ns/${s.entry.kind}` : copies(s.method) && s.slopeUsPerMb <= 0 ? 'not measurable: the fit falls' : '—');
    const rows = run.summary.slopes.map((s) => [s.method, s.thp, s.slopeUsPerMb.toFixed(3), s.r2.toFixed(3), perEntry(s)]);
    out.push(heading('Growth with parent RSS (least squares through each RSS’s median)'));
    out.push(table(['method', 'THP', 'µs per MB', 'R²', 'per entry'], rows, { leftAlign: [0, 1] }));
    const on = run.summary.slopes.find((s) => s.method === 'fork-exec' && s.thp === 'on');
    const off = run.summary.slopes.find((s) => s.method === 'fork-exec' && s.thp === 'off');
    const article = `(article 000: ≈${publishedValue('000.fork-exec.slope-ratio.off-over-default')}×)`;
    if (on && off)
      out.push(
        note(
          on.slopeUsPerMb > 0 && off.slopeUsPerMb > 0
            ? `fork-exec slope, THP off ÷ THP on: ${(off.slopeUsPerMb / on.slopeUsPerMb).toFixed(1)}× ${article}`
            : `fork-exec slope, THP off ÷ THP on: not measurable: the THP-${on.slopeUsPerMb > 0 ? 'off' : 'on'} fit falls ${article}`,
        ),
      );
    out.push(blank);
  }
  const fastest = run.summary.cells.reduce<number | null>((a, x) => (a === null || x.medianNs < a ? x.medianNs : a), null);
  if (fastest !== null) out.push(note(`fastest cell: ${fmtUs(fastest)} µs; every figure is the median of raw per-call times.`));
  const stopped = describeRepeatsStop(run.params);
  if (stopped) out.push(note(stopped));
  return out;
}
