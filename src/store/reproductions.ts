// Reproductions in the history: what `forklab reproduce` concluded (its document: statuses, verdicts, figures)
// and the uuids of the runs it rests on. The runs themselves are ordinary runs; removing one (forklab rm) keeps
// the reproduction and its verdicts.
import { randomUUID } from 'node:crypto';
import type { SqlDatabase } from './sqlite.js';
import { StoreError } from './migrations.js';

export interface ReproductionRow {
  id: number;
  uuid: string;
  startedAt: string;
  finishedAt: string;
  preset: string;
  label: string | null;
  hostname: string;
  /** Uuids of the runs it rests on, in the order they ran. */
  runUuids: string[];
}

export interface StoredReproduction extends ReproductionRow {
  /** The forklab.reproduce document as it was stored (parsed JSON). */
  document: unknown;
}

interface Record {
  id: number;
  uuid: string;
  started_at: string;
  finished_at: string;
  preset: string;
  label: string | null;
  hostname: string;
  document: string;
}

export interface NewReproduction {
  startedAt: string;
  finishedAt: string;
  preset: string;
  label: string | null;
  hostname: string;
  runUuids: readonly string[];
  document: unknown;
}

export function addReproduction(db: SqlDatabase, r: NewReproduction): number {
  return db.transaction(() => {
    const info = db
      .prepare('INSERT INTO reproductions (uuid, started_at, finished_at, preset, label, hostname, document) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(randomUUID(), r.startedAt, r.finishedAt, r.preset, r.label, r.hostname, JSON.stringify(r.document));
    const id = Number(info.lastInsertRowid);
    const link = db.prepare('INSERT OR IGNORE INTO reproduction_runs (reproduction_id, run_uuid) VALUES (?, ?)');
    for (const u of r.runUuids) link.run(id, u);
    return id;
  }, 'immediate');
}

function row(db: SqlDatabase, r: Record): ReproductionRow {
  const uuids = db.prepare('SELECT run_uuid FROM reproduction_runs WHERE reproduction_id = ? ORDER BY rowid').all(r.id) as { run_uuid: string }[];
  return {
    id: r.id,
    uuid: r.uuid,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    preset: r.preset,
    label: r.label,
    hostname: r.hostname,
    runUuids: uuids.map((u) => u.run_uuid),
  };
}

export function listReproductions(db: SqlDatabase): ReproductionRow[] {
  return (db.prepare('SELECT * FROM reproductions ORDER BY id').all() as Record[]).map((r) => row(db, r));
}

export function getReproduction(db: SqlDatabase, id: number, path: string): StoredReproduction {
  const r = db.prepare('SELECT * FROM reproductions WHERE id = ?').get(id) as Record | undefined;
  if (!r) throw new StoreError(`no reproduction R${id} in ${path} (forklab history lists them)`);
  return { ...row(db, r), document: JSON.parse(r.document) };
}

/** Is this what the user typed for a reproduction: R3, r3, or R (the latest)? */
export const isReproductionRef = (ref: string): boolean => /^r(\d+|latest)?$/i.test(ref.trim());

/** A reproduction id from R<n> or Rlatest (or R alone: the latest). */
export function resolveReproduction(db: SqlDatabase, ref: string, path: string): number {
  const m = /^r(\d+|latest)?$/i.exec(ref.trim());
  if (!m) throw new StoreError(`"${ref}" is not a reproduction: give R and its number (forklab history lists them), or Rlatest`);
  const r = (
    m[1] === undefined || m[1].toLowerCase() === 'latest'
      ? db.prepare('SELECT id FROM reproductions ORDER BY started_at DESC, id DESC LIMIT 1').get()
      : db.prepare('SELECT id FROM reproductions WHERE id = ?').get(Number(m[1]))
  ) as { id: number } | undefined;
  if (!r) throw new StoreError(`no reproduction ${ref.trim()} in ${path} (forklab history lists them)`);
  return r.id;
}
