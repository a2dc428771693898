// The machine's earlier runs as the claims engine learns the drift between runs from them (src/claims/drift.ts):
// the stored estimate sets of the same machine and experiment, most recent first, and — for runs stored before
// estimates were kept, or by an experiment command — their estimates computed now from the runs themselves
// (and kept, where the history may be written). After a judgement, its own estimates are kept for later runs.
import { DRIFT_ESTIMATES_VERSION, MAX_HISTORY_RUNS, asQuantityEstimates, sameMeasurement, type DriftOptions, type HistoryRun } from '../claims/drift.js';
import { judgeDocuments, type Judged } from '../claims/judge.js';
import { earliestStart } from '../claims/select.js';
import type { RunDocument } from '../document/run.js';
import { machineKey } from '../env/machine-key.js';
import type { MachineRecord } from '../env/machine.js';
import type { Store } from '../store/db.js';

/** Stored runs judged now for their estimates, per experiment, at most (each costs a judgement of its claims). */
const MAX_LEARNT_NOW = 6;

/** The machine key the documents share, or null when they come from several machines (or none records one). */
function sharedMachineKey(docs: readonly RunDocument[]): string | null {
  const keys = new Set(docs.map((d) => (d.machine ? machineKey(d.machine) : null)));
  return keys.size === 1 ? [...keys][0]! : null;
}

export interface HistoryOptions {
  /** Keep the estimates of runs judged now (the history is writable). */
  keep: boolean;
  seed: number;
  /** Told once when old runs are judged for their estimates. */
  note?: (message: string) => void;
  /** Judge the machine's value: each run pooled with the earlier runs (false with --no-pool). */
  pool?: boolean;
}

/** The earlier runs of the documents' machine, by experiment, for judgeDocuments's drift option. */
export function driftHistory(store: Store | null, docs: readonly RunDocument[], o: HistoryOptions): DriftOptions {
  const key = sharedMachineKey(docs);
  if (store === null || key === null) return {};
  const mine = new Set(docs.map((d) => d.runId).filter((id): id is string => typeof id === 'string'));
  const history: Record<string, HistoryRun[]> = {};
  for (const experiment of new Set(docs.map((d) => d.experiment))) {
    const limit = MAX_HISTORY_RUNS + mine.size;
    const sets = store.driftEstimates.history(key, experiment, DRIFT_ESTIMATES_VERSION, limit);
    // Pooling takes the runs before the judged ones: for runs judged long after, those are not among the most recent
    // (asked for only when the most recent fill the limit and hold fewer than MAX_HISTORY_RUNS of them).
    const first = earliestStart(docs.filter((d) => d.experiment === experiment));
    if (o.pool === true && first !== undefined && sets.length === limit && sets.filter((s) => s.startedAt < first).length < MAX_HISTORY_RUNS) {
      const seen = new Set(sets.map((s) => `${s.startedAt}|${s.runUuids.join(',')}`));
      for (const s of store.driftEstimates.history(key, experiment, DRIFT_ESTIMATES_VERSION, MAX_HISTORY_RUNS, first))
        if (!seen.has(`${s.startedAt}|${s.runUuids.join(',')}`)) sets.push(s);
    }
    const runs: HistoryRun[] = sets.map((s) => ({ runIds: s.runUuids, startedAt: s.startedAt, estimates: asQuantityEstimates(s.estimates) }));
    const params = docs.find((d) => d.experiment === experiment)!.params ?? {};
    const candidates = store.driftEstimates
      .runsWithout(experiment, DRIFT_ESTIMATES_VERSION, 4 * MAX_LEARNT_NOW)
      .filter((r) => !mine.has(r.uuid) && r.machine && machineKey(r.machine as MachineRecord) === key && sameMeasurement(params, (r.params ?? {}) as Record<string, unknown>))
      .slice(0, MAX_LEARNT_NOW);
    if (candidates.length)
      o.note?.(`forklab: learning this machine's drift between runs of ${experiment} from ${candidates.length} stored run${candidates.length === 1 ? '' : 's'} (once)`);
    for (const r of candidates) {
      const doc = store.getDocument(r.id);
      const judged = judgeDocuments([doc], { seed: o.seed, drift: { withinRun: true } });
      const estimates = judged.estimates?.[experiment] ?? {};
      runs.push({ runIds: [r.uuid], startedAt: r.startedAt, estimates });
      if (o.keep) store.driftEstimates.add({ machineKey: key, experiment, startedAt: r.startedAt, version: DRIFT_ESTIMATES_VERSION, runUuids: [r.uuid], estimates });
    }
    history[experiment] = runs.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
  }
  return { history, ...(o.pool === true ? { pool: true } : {}) };
}

/** Keeps a judgement's within-run estimates, per experiment, with the stored runs they rest on. */
export function keepEstimates(store: Store, docs: readonly RunDocument[], judged: Judged): number {
  const key = sharedMachineKey(docs);
  if (key === null || !judged.estimates) return 0;
  let kept = 0;
  for (const [experiment, estimates] of Object.entries(judged.estimates)) {
    const mine = docs.filter((d) => d.experiment === experiment);
    const uuids = mine.map((d) => d.runId).filter((id): id is string => typeof id === 'string');
    if (uuids.length === 0 || uuids.length < mine.length || Object.keys(estimates).length === 0) continue;
    const startedAt = mine.map((d) => d.startedAt).sort()[0]!;
    store.driftEstimates.add({ machineKey: key, experiment, startedAt, version: DRIFT_ESTIMATES_VERSION, runUuids: uuids, estimates });
    kept++;
  }
  return kept;
}
