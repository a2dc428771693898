// From the measurements of `forklab runtimes` to what a reader wants: per runtime, variant and heap kind,
// the median per spawn at each heap size, the slope against the heap with its interval, a flat/grows
// verdict, and whether it matches what the observed mechanism predicts (article 000: fork grows; vfork
// and posix_spawn stay flat).
import { pooled, seriesStats } from '../shared/measure.js';
import type { Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { RUNTIMES_FIELDS, type RuntimesIdentity, type RuntimesMeasurement } from './configuration.js';
import type { RuntimeEntry } from './discover.js';
import { copiesPageTables, describeMechanism, type MechanismResult } from './mechanism.js';
import { growthVerdict, heapSlope, type GrowthVerdict, type SlopeEstimate } from './slope.js';

export interface RuntimeCell {
  runtime: string;
  variant: string;
  heapKind: string;
  heapMb: number;
  n: number;
  medianNs: number;
  ciLowNs: number;
  ciHighNs: number;
  cv: number;
  /** The driver's resident memory once its heap was built (smallest over the repeats), MB. */
  rssMb: number | null;
  repeatMediansNs: number[];
  failedRepeats: number;
}

export interface VariantMechanism {
  runtime: string;
  variant: string;
  result: MechanismResult;
  /** "posix_spawn (clone3 CLONE_VM|CLONE_VFORK) → exec jspawnhelper", or why unknown. */
  text: string;
}

export interface RuntimeLine {
  runtime: string;
  runtimeVersion: string;
  /** A Node's libuv version (process.versions.uv, from its driver's info line): it decides whether child_process forks. */
  libuv: string | null;
  variant: string;
  heapKind: string;
  slope: SlopeEstimate | null;
  verdict: GrowthVerdict | 'one-heap';
  /** What the observed mechanism predicts: fork grows, the others stay flat; null when unknown. */
  expected: 'flat' | 'grows' | null;
  /** Whether the verdict matches the prediction (article 000's claim for this variant); null when either is missing. */
  claimHolds: boolean | null;
}

export interface AbsentVariant {
  runtime: string;
  variant: string;
  why: string;
}

export interface RuntimesSummary {
  runtimes: RuntimeEntry[];
  absentVariants: AbsentVariant[];
  mechanisms: VariantMechanism[];
  /** Why no mechanism was observed at all (strace missing, --no-strace), or null. */
  mechanismsSkipped: string | null;
  cells: RuntimeCell[];
  lines: RuntimeLine[];
}

/** One line of the tables: runtime × variant × heap kind. */
const key = (m: Pick<RuntimesIdentity, 'runtime' | 'variant' | 'heapKind'>) => `${m.runtime}|${m.variant}|${m.heapKind}`;

export function summarizeCells(ms: readonly Measurement[], seed: number): RuntimeCell[] {
  const groups = new Map<string, RuntimesMeasurement[]>();
  for (const m of measurementsOf(RUNTIMES_FIELDS, ms)) {
    const k = `${key(m.identity)}|${m.identity.heapMb}`;
    groups.set(k, [...(groups.get(k) ?? []), m]);
  }
  const cells: RuntimeCell[] = [];
  for (const mine of groups.values()) {
    const f = mine[0]!.identity;
    const ok = mine.filter((m) => m.state === 'ok' && m.stats);
    const st = seriesStats(
      pooled(ok, () => true),
      seed,
    );
    if (!st) continue;
    const rss = ok.map((m) => m.observed.rssMb).filter((x): x is number => typeof x === 'number');
    cells.push({
      runtime: String(f.runtime),
      variant: String(f.variant),
      heapKind: String(f.heapKind),
      heapMb: Number(f.heapMb),
      n: st.n,
      medianNs: st.medianNs,
      ciLowNs: st.ciLowNs,
      ciHighNs: st.ciHighNs,
      cv: st.cv,
      rssMb: rss.length ? Math.min(...rss) : null,
      repeatMediansNs: ok.map((m) => m.stats!.medianNs),
      failedRepeats: mine.length - ok.length,
    });
  }
  return cells.sort((a, b) => key({ ...a }).localeCompare(key({ ...b })) || a.heapMb - b.heapMb);
}

export function summarizeLines(ms: readonly Measurement[], mechanisms: readonly VariantMechanism[], seed: number): RuntimeLine[] {
  const byLine = new Map<string, RuntimesMeasurement[]>();
  for (const m of measurementsOf(RUNTIMES_FIELDS, ms)) byLine.set(key(m.identity), [...(byLine.get(key(m.identity)) ?? []), m]);
  const lines: RuntimeLine[] = [];
  for (const mine of byLine.values()) {
    const f = mine[0]!.identity;
    const version = mine.find((m) => typeof m.observed.runtimeVersion === 'string')?.observed.runtimeVersion;
    const libuv = mine.find((m) => typeof m.info?.libuv === 'string')?.info.libuv;
    const heaps = [...new Set(mine.map((m) => Number(m.identity.heapMb)))].sort((a, b) => a - b);
    const groups = heaps.map((heapMb) => ({
      heapMb,
      repeats: mine.filter((m) => m.identity.heapMb === heapMb && m.state === 'ok').map((m) => m.samplesNs.map((ns) => ns / 1000)),
    }));
    const slope = heapSlope(groups, { seed });
    const verdict = slope ? growthVerdict(slope, heaps[heaps.length - 1]! - heaps[0]!) : 'one-heap';
    const mech = mechanisms.find((x) => x.runtime === f.runtime && x.variant === f.variant)?.result;
    const expected = mech && mech.state === 'observed' ? (copiesPageTables(mech.mechanism) ? 'grows' : 'flat') : null;
    lines.push({
      runtime: String(f.runtime),
      runtimeVersion: String(version ?? ''),
      libuv: typeof libuv === 'string' ? libuv : null,
      variant: String(f.variant),
      heapKind: String(f.heapKind),
      slope,
      verdict,
      expected,
      claimHolds: expected === null || verdict === 'one-heap' || verdict === 'unclear' ? null : verdict === expected,
    });
  }
  return lines.sort((a, b) => key({ ...a }).localeCompare(key({ ...b })));
}

export function mechanismEntry(runtime: string, variant: string, result: MechanismResult): VariantMechanism {
  return { runtime, variant, result, text: describeMechanism(result) };
}
