// cgroup's summary and view: each configuration's figure (launch+wait, and the write to cgroup.procs alone), whether
// the groups could be made at all, and the conclusion said first: what a write costs against clone3(CLONE_INTO_CGROUP)
// after a pause and back to back, and whether threads in the parent change it.
import { median } from '../../stats/descriptive.js';
import { fmtUsCi } from '../../text/format.js';
import { cellFigure, type CellFigure } from '../shared/measure.js';
import { cellRatio, fmtTime, poolOfCells, ratioSentence, runCells, type RunCell } from '../shared/conclude.js';
import { blank, conclusion, heading, note, table, text, type Block } from '../contract/view.js';
import type { ShownRun, Measurement } from '../contract/types.js';
import { measurementsOf } from '../contract/fields.js';
import { CGROUP_FIELDS, CGROUP_METHODS, WRITE_METHODS, type CgroupMeasurement, type CgroupMethod } from './configuration.js';
import type { CgroupAccess } from './hierarchy.js';

export interface CgroupParams {
  methods: CgroupMethod[];
  /** Threads the probe starts and keeps blocked before it times anything (0: the main thread alone). */
  threads: number[];
  /** Untimed pause before every launch, in ms (0: back to back). */
  gapMs: number[];
  iterations: number;
  warmup: number;
  repeats: number;
  /** --cgroup-parent: the group to make the run's groups in (null: this process's own). */
  cgroupParent: string | null;
  /** What the run found when it made its group (absent until it ran). */
  access?: CgroupAccess;
}

export interface CgroupCell extends CellFigure {
  method: CgroupMethod;
  threads: number;
  gapMs: number;
  /** Median of the write to cgroup.procs alone, every sample pooled (null: the method does not write). */
  writeMedianNs: number | null;
  /** Median time from the end of the probe's previous write to the start of this one (null: the method does not write). */
  sinceWriteMedianNs: number | null;
  failedRepeats: number;
}

/** Whether the groups were made and the children placed; when not, why and what would allow it. */
export type CgroupOutcome =
  | { state: 'measured'; favordynmods: boolean | null }
  | { state: 'unavailable'; reason: string; remedy: string }
  | { state: 'refused'; reason: string; remedy: string };

export interface CgroupSummary {
  outcome: CgroupOutcome;
  cells: CgroupCell[];
}

/** How the methods are said in words. */
export const METHOD_WORDS: Readonly<Record<CgroupMethod, string>> = {
  'fork-exec': 'fork+exec in the parent’s group',
  'clone3-into': 'clone3(CLONE_INTO_CGROUP)',
  'parent-write': 'a write of the child’s pid by the parent',
  'child-write': 'a write by the child itself',
};

/** What the probes' refusals say (observed `refusal`), the first one; null when no probe was refused. */
const refusalOf = (ms: readonly CgroupMeasurement[]): { reason: string; remedy: string } | null => {
  for (const m of ms) {
    const r = m.observed.refusal;
    const remedy = m.observed.remedy;
    if (typeof r === 'string' && typeof remedy === 'string') return { reason: r, remedy };
  }
  return null;
};

export function summarizeCgroup(measurements: readonly Measurement[], params: Pick<CgroupParams, 'access'>, seed: number): CgroupSummary {
  const ms = measurementsOf(CGROUP_FIELDS, measurements);
  const access = params.access;
  if (access && access.state === 'unavailable') return { outcome: { state: 'unavailable', reason: access.reason, remedy: access.remedy }, cells: [] };
  const cells: CgroupCell[] = [];
  const keys = [...new Set(ms.map((m) => `${m.identity.threads}|${m.identity.gapMs}`))];
  for (const method of CGROUP_METHODS)
    for (const key of keys) {
      const mine = ms.filter((m) => m.identity.method === method && `${m.identity.threads}|${m.identity.gapMs}` === key);
      const ok = mine.filter((m) => m.state === 'ok' && m.stats);
      const fig = cellFigure(ok, seed);
      if (!fig) continue;
      const writes = ok.flatMap((m) => m.columns['writeNs'] ?? []);
      // the probe's first write has no previous one (0)
      const since = ok.flatMap((m) => (m.columns['sinceWriteNs'] ?? []).filter((x) => x > 0));
      cells.push({
        method,
        threads: mine[0]!.identity.threads,
        gapMs: mine[0]!.identity.gapMs,
        ...fig,
        writeMedianNs: WRITE_METHODS.includes(method) && writes.length ? median(writes) : null,
        sinceWriteMedianNs: WRITE_METHODS.includes(method) && since.length ? median(since) : null,
        failedRepeats: mine.length - ok.length,
      });
    }
  cells.sort((a, b) => a.threads - b.threads || a.gapMs - b.gapMs);
  const refused = refusalOf(ms);
  if (cells.length === 0 && refused) return { outcome: { state: 'refused', ...refused }, cells };
  const fav = ms.find((m) => m.observed.favordynmods !== null)?.observed.favordynmods ?? (access?.state === 'ready' ? access.favordynmods : null);
  return { outcome: { state: 'measured', favordynmods: fav }, cells };
}

/** The conclusion: the write against clone3 after the longest pause and back to back, and the threads' effect. */
export function cgroupConclusion(run: ShownRun<CgroupSummary, CgroupParams>, seed = 1): string[] {
  const o = run.summary.outcome;
  if (o.state !== 'measured') return [`Not measured: ${o.reason}. What would allow it: ${o.remedy}.`];
  const cells = runCells(
    run.measurements,
    (m) => `${m.series}|${String(m.identity.threads)}|${String(m.identity.gapMs)}`,
    (m) => `${String(m.identity.threads)}|${String(m.identity.gapMs)}`,
  );
  if (cells.size === 0) return ['No configuration was measured: nothing to conclude.'];
  const pool = poolOfCells(cells.values());
  const s = run.summary.cells;
  const gaps = [...new Set(s.map((c) => c.gapMs))].sort((a, b) => b - a);
  const threadsAll = [...new Set(s.map((c) => c.threads))].sort((a, b) => a - b);
  const k0 = threadsAll[0]!;
  const cell = (m: CgroupMethod, k: number, g: number): RunCell | undefined => cells.get(`${m}|${k}|${g}`);
  const fig = (m: CgroupMethod, k: number, g: number) => s.find((c) => c.method === m && c.threads === k && c.gapMs === g);
  // How far apart the writes really were: back to back, the launches between two writes (slow on a busy machine)
  const apart = (k: number, g: number) => {
    const v = WRITE_METHODS.map((w) => fig(w, k, g)?.sinceWriteMedianNs).filter((x): x is number => typeof x === 'number');
    return v.length ? `, writes a median ${fmtTime(median(v))} apart` : '';
  };
  const pace = (g: number, k = k0) => (g === 0 ? `Back to back${apart(k, g)}` : `After a ${g} ms pause before each launch${apart(k, g)}`);
  const lines: string[] = [];
  for (const g of gaps) {
    const base = cell('clone3-into', k0, g);
    const parts = WRITE_METHODS.flatMap((w) => {
      const c = cell(w, k0, g);
      if (!c || !base) return [];
      const r = cellRatio(c, base, pool, seed);
      const a = fig(w, k0, g)!;
      const b = fig('clone3-into', k0, g)!;
      const write = a.writeMedianNs === null ? '' : `, the write alone ${fmtTime(a.writeMedianNs)}`;
      return [`${ratioSentence(w, 'clone3-into', r)} (${fmtTime(a.medianNs)} against ${fmtTime(b.medianNs)} per launch+wait${write})`];
    });
    if (parts.length) lines.push(`${pace(g)}${k0 ? ` (${k0} threads)` : ''}: ${parts.join('; ')}.`);
  }
  const kHi = threadsAll.at(-1)!;
  if (kHi !== k0) {
    const g = gaps[0]!;
    const parts = (['parent-write', 'clone3-into'] as const).flatMap((m) => {
      const a = cell(m, kHi, g);
      const b = cell(m, k0, g);
      return a && b ? [ratioSentence(`${m} with ${kHi} threads`, `with ${k0}`, cellRatio(a, b, pool, seed))] : [];
    });
    if (parts.length) lines.push(`Threads in the parent (${pace(g, kHi).replace(/^./, (c) => c.toLowerCase())}): ${parts.join('; ')}.`);
  }
  return lines.length ? lines : ['clone3-into or the writes were not measured: nothing to compare.'];
}

export function cgroupView(run: ShownRun<CgroupSummary, CgroupParams>): Block[] {
  const out: Block[] = [conclusion(cgroupConclusion(run)), blank];
  const s = run.summary;
  if (s.outcome.state !== 'measured') return out;
  const methods = CGROUP_METHODS.filter((m) => s.cells.some((c) => c.method === m));
  const rows = [...new Set(s.cells.map((c) => `${c.threads}|${c.gapMs}`))].map((key) => {
    const [k, g] = key.split('|').map(Number) as [number, number];
    const at = (m: CgroupMethod) => s.cells.find((c) => c.method === m && c.threads === k && c.gapMs === g);
    return [
      String(k),
      String(g),
      ...methods.map((m) => {
        const x = at(m);
        return x ? fmtUsCi(x.medianNs, x.ciLowNs, x.ciHighNs) : '—';
      }),
      ...WRITE_METHODS.filter((m) => methods.includes(m)).map((m) => {
        const w = at(m)?.writeMedianNs;
        return w === null || w === undefined ? '—' : (w / 1000).toFixed(1);
      }),
    ];
  });
  out.push(heading('Median µs per launch+wait [95 % CI], by threads in the parent and pause before each launch'));
  out.push(table(['threads', 'pause ms', ...methods, ...WRITE_METHODS.filter((m) => methods.includes(m)).map((m) => `${m} write µs`)], rows));
  out.push(
    note(
      'fork-exec stays in the parent’s group (the reference); clone3-into is born in the group; parent-write and child-write move the forked child with a write to cgroup.procs before its exec (“write µs”: that write alone, median).',
    ),
  );
  out.push(
    text(
      `The v2 mount’s favordynmods option: ${s.outcome.favordynmods === null ? 'not known' : s.outcome.favordynmods ? 'on (writes skip the RCU grace period)' : 'off (a write after a pause waits for an RCU grace period, kernel ≥ 6.0)'}.`,
    ),
  );
  out.push(note('Bun PR #37466 (2026): about 100 ms per sporadic spawn with a write to cgroup.procs, about 1 ms with clone3(CLONE_INTO_CGROUP), on kernels ≥ 6.0.'));
  return out;
}
