// Drift estimates in the history: for each judged set of runs of one experiment (a reproduction's, or one stored run
// judged later), the within-run estimate of every quantity its claims judge, keyed as src/claims/drift.ts names them.
// Later judgements of the same machine learn the drift between runs from them instead of judging old runs again.
// The estimates are derived data: removing a run removes the sets it is part of.
import type { SqlDatabase } from './sqlite.js';

export interface NewDriftEstimates {
  machineKey: string;
  experiment: string;
  startedAt: string;
  version: number;
  /** The runs judged together (stored runs' uuids); a set with exactly these runs is replaced. */
  runUuids: readonly string[];
  estimates: Readonly<Record<string, unknown>>;
}

export interface StoredDriftEstimates {
  runUuids: string[];
  startedAt: string;
  estimates: Record<string, unknown>;
}

/** A stored run of an experiment that no estimate set of this version covers: its machine record and parameters. */
export interface RunWithoutEstimates {
  id: number;
  uuid: string;
  startedAt: string;
  machine: unknown;
  params: unknown;
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

function addDriftEstimates(db: SqlDatabase, e: NewDriftEstimates): number {
  return db.transaction(() => {
    const linked = db
      .prepare(
        `SELECT e.id, group_concat(r.run_uuid) AS uuids FROM drift_estimates e JOIN drift_estimate_runs r ON r.estimate_id = e.id
         WHERE e.experiment = ? AND e.version = ? AND e.id IN (SELECT estimate_id FROM drift_estimate_runs WHERE run_uuid = ?) GROUP BY e.id`,
      )
      .all(e.experiment, e.version, e.runUuids[0] ?? '') as { id: number; uuids: string }[];
    for (const l of linked) if (sameSet(l.uuids.split(','), e.runUuids)) db.prepare('DELETE FROM drift_estimates WHERE id = ?').run(l.id);
    const info = db
      .prepare('INSERT INTO drift_estimates (machine_key, experiment, started_at, version, estimates) VALUES (?, ?, ?, ?, ?)')
      .run(e.machineKey, e.experiment, e.startedAt, e.version, JSON.stringify(e.estimates));
    const id = Number(info.lastInsertRowid);
    const link = db.prepare('INSERT OR IGNORE INTO drift_estimate_runs (estimate_id, run_uuid) VALUES (?, ?)');
    for (const u of e.runUuids) link.run(id, u);
    return id;
  }, 'immediate');
}

/** The estimate sets of one machine and experiment, most recent first, at most `limit`. */
function driftHistory(db: SqlDatabase, machineKey: string, experiment: string, version: number, limit: number, before?: string): StoredDriftEstimates[] {
  const since = before === undefined ? '' : ' AND started_at < ?';
  const rows = db
    .prepare(`SELECT id, started_at, estimates FROM drift_estimates WHERE machine_key = ? AND experiment = ? AND version = ?${since} ORDER BY started_at DESC, id DESC LIMIT ?`)
    .all(machineKey, experiment, version, ...(before === undefined ? [] : [before]), Math.max(0, Math.floor(limit))) as { id: number; started_at: string; estimates: string }[];
  const runs = db.prepare('SELECT run_uuid FROM drift_estimate_runs WHERE estimate_id = ? ORDER BY rowid');
  return rows.map((r) => ({
    runUuids: (runs.all(r.id) as { run_uuid: string }[]).map((x) => x.run_uuid),
    startedAt: r.started_at,
    estimates: JSON.parse(r.estimates) as Record<string, unknown>,
  }));
}

/** Complete stored runs of an experiment that no estimate set of this version covers, most recent first. */
function runsWithoutEstimates(db: SqlDatabase, experiment: string, version: number, limit: number): RunWithoutEstimates[] {
  const rows = db
    .prepare(
      `SELECT id, uuid, started_at, machine, params FROM runs r WHERE experiment = ? AND status = 'complete' AND NOT EXISTS (
         SELECT 1 FROM drift_estimate_runs l JOIN drift_estimates e ON e.id = l.estimate_id WHERE l.run_uuid = r.uuid AND e.version = ?)
       ORDER BY started_at DESC, id DESC LIMIT ?`,
    )
    .all(experiment, version, Math.max(0, Math.floor(limit))) as { id: number; uuid: string; started_at: string; machine: string; params: string }[];
  return rows.map((r) => ({ id: r.id, uuid: r.uuid, startedAt: r.started_at, machine: JSON.parse(r.machine) as unknown, params: JSON.parse(r.params) as unknown }));
}

/** Removes the estimate sets any of these runs is part of (within the caller's transaction). */
export function forgetDriftEstimates(db: SqlDatabase, runUuids: readonly string[]): number {
  let n = 0;
  const sets = db.prepare('SELECT DISTINCT estimate_id AS id FROM drift_estimate_runs WHERE run_uuid = ?');
  const del = db.prepare('DELETE FROM drift_estimates WHERE id = ?');
  for (const u of runUuids) for (const r of sets.all(u) as { id: number }[]) n += del.run(r.id).changes;
  return n;
}

/** Every estimate set in the history, oldest first (what bench:verdicts --prior fits the priors' scales on). */
function allDriftEstimates(db: SqlDatabase): StoredDriftEstimates[] {
  const rows = db.prepare('SELECT id, started_at, estimates FROM drift_estimates ORDER BY started_at, id').all() as { id: number; started_at: string; estimates: string }[];
  return rows.map((r) => ({ runUuids: [], startedAt: r.started_at, estimates: JSON.parse(r.estimates) as Record<string, unknown> }));
}

/** The drift estimates of one history, as Store.driftEstimates hands them out. */
export class DriftEstimates {
  constructor(private readonly db: SqlDatabase) {}
  /** Keeps the within-run estimates of a judged set of runs (replacing the set of exactly these runs). */
  add(e: NewDriftEstimates): number {
    return addDriftEstimates(this.db, e);
  }
  /** The estimate sets of one machine and experiment, most recent first (with `before`: of runs started before it). */
  history(machineKey: string, experiment: string, version: number, limit: number, before?: string): StoredDriftEstimates[] {
    return driftHistory(this.db, machineKey, experiment, version, limit, before);
  }
  /** Complete runs of an experiment no estimate set covers yet, most recent first. */
  runsWithout(experiment: string, version: number, limit: number): RunWithoutEstimates[] {
    return runsWithoutEstimates(this.db, experiment, version, limit);
  }
  all(): StoredDriftEstimates[] {
    return allDriftEstimates(this.db);
  }
}
