// The `forklab.fleet` document: the machines of a fleet side by side. Runs are grouped by machine key (the stable
// fields of the machine record and the node's name); each machine is judged on its own runs only, never pooled
// with another; each headline figure gets its interval per machine; each machine is compared with a reference
// machine by compare's statistics (ratio of medians with its bootstrap interval, Mann–Whitney, VERDICT_RULE).

import type { RunDocument } from '../document/run.js';
import { machineKey, machineName, stableFields } from '../env/machine-key.js';
import { judgeDocuments } from './judge.js';
import type { Verdict, VerdictValue } from './evaluate.js';
import type { FigureComparison as PublishedComparison } from './figures.js';
import { NotMeasurable, dataFor, repeatValues, select } from './select.js';
import { loadPublished, type Published } from '../reference/published.js';
import { compareRuns, type Verdict as CompareVerdict } from '../store/compare.js';
import { poolRepeats } from '../stats/pool.js';
import { UsageError } from '../errors.js';

export const FLEET_SCHEMA = 'forklab.fleet';
export const FLEET_VERSION = 1;

export interface FleetMember {
  machine: string;
  node: string;
  pool: string | null;
  labels: Record<string, string>;
  /** The stable fields the key is made of. */
  record: Record<string, unknown>;
  runs: { runId: string | null; experiment: string; startedAt: string }[];
}

export interface HeadlinePoint {
  figureId: string;
  label: string;
  unit: string;
  published: number;
  measured: number | null;
  /** 95 % interval of the measured value; null where none can be given (detail says why). */
  low: number | null;
  high: number | null;
  detail: string;
}

export interface ReferenceFigure {
  experiment: string;
  label: string;
  /** This machine's median ÷ the reference's, with its bootstrap interval. */
  ratio: number | null;
  ratioLow: number | null;
  ratioHigh: number | null;
  pValue: number;
  /** 'slower' = this machine takes longer; 'same' unless the difference is clear by compare's rule. */
  verdict: CompareVerdict;
}

export interface MachineResults {
  machine: string;
  verdicts: { claimId: string; article?: string; source?: string; statement: string; verdict: VerdictValue }[];
  headline: HeadlinePoint[];
  /** Null for the reference itself. */
  versusReference: ReferenceFigure[] | null;
}

export interface FleetDocument {
  schema: typeof FLEET_SCHEMA;
  schemaVersion: typeof FLEET_VERSION;
  forklabVersion: string;
  createdAt: string;
  seed: number;
  reference: string;
  /** Stable fields whose values are not the same on every machine. */
  differingFields: string[];
  members: FleetMember[];
  results: MachineResults[];
}

/** The order of the report's columns: by pool, kernel, THP and seccomp, then node. */
export function groupKey(m: FleetMember): string[] {
  const r = m.record;
  return [m.pool ?? '-', String(r.kernel ?? '?'), `THP ${String(r.thpEnabled ?? '?')}`, `seccomp ${r.seccompMode === null || r.seccompMode === undefined ? '?' : r.seccompMode}`];
}

function membersOf(docs: readonly RunDocument[]): { member: FleetMember; docs: RunDocument[] }[] {
  const by = new Map<string, { member: FleetMember; docs: RunDocument[] }>();
  for (const d of docs) {
    const key = machineKey(d.machine);
    let e = by.get(key);
    if (!e) {
      const p = d.machine.placement;
      e = { member: { machine: key, node: machineName(d.machine), pool: p?.pool ?? null, labels: p?.labels ?? {}, record: stableFields(d.machine), runs: [] }, docs: [] };
      by.set(key, e);
    }
    e.docs.push(d);
    e.member.runs.push({ runId: d.runId, experiment: d.experiment, startedAt: d.startedAt });
  }
  const sortKey = (m: FleetMember) => [...groupKey(m), m.node].join('\u0000');
  return [...by.values()].sort((a, b) => sortKey(a.member).localeCompare(sortKey(b.member)));
}

/** A headline figure's interval: the claim's where the claim computes it, else the pooled repeats' bootstrap. */
function headlinePoint(f: PublishedComparison, docs: readonly RunDocument[], verdicts: readonly Verdict[], p: Published, seed: number): HeadlinePoint {
  const base = { figureId: f.figureId, label: f.label ?? f.figureId, unit: f.unit, published: f.published, measured: f.measured };
  const none = (why: string): HeadlinePoint => ({ ...base, low: null, high: null, detail: `${f.detail}; ${why}` });
  if (f.measured === null) return { ...base, low: null, high: null, detail: f.detail };
  const byClaim = /^as computed by claim (\S+):/.exec(f.detail);
  if (byClaim) {
    const v = verdicts.find((x) => x.claimId === byClaim[1]);
    if (!v?.interval || v.measured === null || v.measured === undefined || v.measured === 0) return none('no interval');
    const k = f.measured / v.measured; // 100 when the figure is a percentage of the claim's fraction
    return { ...base, low: v.interval.low * k, high: v.interval.high * k, detail: f.detail };
  }
  const pf = p.figures.find((x) => x.id === f.figureId);
  if (!pf || !['median', 'unspecified', 'reading', 'size'].includes(pf.statistic)) return none(`no interval for a ${f.statistic}`);
  try {
    const data = dataFor(docs, pf.experiment);
    const sel = pf.equivalentSeries ?? pf.series;
    const pooled = poolRepeats(repeatValues(data, select(data, sel), pf.metric, sel), seed);
    if (!pooled || pooled.medianNs === 0) return none('no interval');
    const k = f.measured / pooled.medianNs; // the figure's unit per raw unit
    return { ...base, low: pooled.ciLowNs * k, high: pooled.ciHighNs * k, detail: f.detail };
  } catch (e) {
    if (e instanceof NotMeasurable) return none(e.message);
    throw e;
  }
}

const latest = (docs: readonly RunDocument[], experiment: string) =>
  docs.filter((d) => d.experiment === experiment).sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0] ?? null;

function versus(ref: readonly RunDocument[], mine: readonly RunDocument[], seed: number): ReferenceFigure[] {
  const out: ReferenceFigure[] = [];
  for (const exp of [...new Set(mine.map((d) => d.experiment))].sort()) {
    const a = latest(ref, exp);
    const b = latest(mine, exp);
    if (!a || !b) continue;
    for (const f of compareRuns(a, b, { seed }).figures)
      out.push({ experiment: exp, label: f.label, ratio: f.ratio, ratioLow: f.ratioLow, ratioHigh: f.ratioHigh, pValue: f.pValue, verdict: f.verdict });
  }
  return out;
}

export function buildFleet(
  docs: readonly RunDocument[],
  o: { seed: number; reference?: string; forklabVersion: string; now?: Date },
  p: Published = loadPublished(),
): FleetDocument {
  const groups = membersOf(docs);
  if (groups.length === 0) throw new UsageError('DIR', 'holds no run documents');
  let ref = groups[0]!;
  if (o.reference !== undefined) {
    const hit = groups.filter((g) => g.member.node === o.reference || g.member.machine.startsWith(o.reference!));
    if (hit.length !== 1)
      throw new UsageError(
        '--reference',
        `${JSON.stringify(o.reference)} ${hit.length ? 'names more than one machine' : 'is no machine here'}; the machines: ${groups.map((g) => `${g.member.node} (${g.member.machine})`).join(', ')}`,
      );
    ref = hit[0]!;
  }
  const fields = Object.keys(ref.member.record).filter((k) => k !== 'node');
  const differingFields = fields.filter((k) => new Set(groups.map((g) => JSON.stringify(g.member.record[k]))).size > 1);
  const results = groups.map((g): MachineResults => {
    // This machine's runs only: judging never pools two machines.
    const judged = judgeDocuments(g.docs, { seed: o.seed }, p);
    return {
      machine: g.member.machine,
      verdicts: judged.verdicts.map((v) => ({
        claimId: v.claimId,
        ...(v.article !== undefined ? { article: v.article } : { source: v.source }),
        statement: v.statement,
        verdict: v.verdict,
      })),
      headline: judged.figures.filter((f) => f.headline).map((f) => headlinePoint(f, g.docs, judged.verdicts, p, o.seed)),
      versusReference: g === ref ? null : versus(ref.docs, g.docs, o.seed),
    };
  });
  return {
    schema: FLEET_SCHEMA,
    schemaVersion: FLEET_VERSION,
    forklabVersion: o.forklabVersion,
    createdAt: (o.now ?? new Date()).toISOString(),
    seed: o.seed,
    reference: ref.member.machine,
    differingFields,
    members: groups.map((g) => g.member),
    results,
  };
}
