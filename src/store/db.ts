// The run history: one SQLite database (WAL, busy timeout, foreign keys) holding every run and its raw
// measurements, written as each probe finishes so that an interrupted run keeps what it measured.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { bootId, processIdentity } from '../env/process.js';
import type { Measurement, StoredWarning, Warning } from '../experiments/contract/types.js';
import { measurementToJson, type RunDocument } from '../document/run.js';
import {
  NEXT_RUN_ID,
  StoreError,
  isWritable,
  readOnlyText,
  checkFile,
  checkSchema,
  checkWritable,
  migrate,
  sqliteCode,
  type MeasurementRecord,
  type RunRecord,
} from './migrations.js';
import { openSqlite, retryWhileBusy, type SqlDatabase } from './sqlite.js';
import { snapshotOf } from './snapshot.js';
import { DocumentError, validateConfiguration, validateRunDocument } from '../document/validate.js';

export { StoreError, asStoreError, type RunStatus } from './migrations.js';
export type { OpenOptions, RunFilter, RunFinish, RunRow, RunStart } from './records.js';
import {
  contentUuid,
  documentOf,
  insertConfigurations,
  recorderGone,
  latestMade,
  resolveRunRef,
  runFilterSql,
  runRowOf,
  type ListedRunRecord,
  type OpenOptions,
  type RunFilter,
  type RunFinish,
  type RunRow,
  type RunStart,
} from './records.js';
export { isReproductionRef, type ReproductionRow, type StoredReproduction, type NewReproduction } from './reproductions.js';
import { addReproduction, getReproduction, listReproductions, resolveReproduction, type NewReproduction, type ReproductionRow, type StoredReproduction } from './reproductions.js';
import { DriftEstimates, forgetDriftEstimates } from './drift.js';
export type { DriftEstimates, NewDriftEstimates, RunWithoutEstimates, StoredDriftEstimates } from './drift.js';

export class Store {
  /** This machine, to tell whether the process of a 'running' row is gone. */
  private readonly here = { host: hostname(), bootId: bootId() };

  private constructor(
    readonly path: string,
    private readonly db: SqlDatabase,
    /** Read from a copy (the history cannot be written where it is): removes the copy. */
    private readonly dropCopy: (() => void) | null = null,
  ) {}

  /** Read from a copy, since the history cannot be written where it is (src/store/snapshot.ts). */
  get readOnly(): boolean {
    return this.dropCopy !== null;
  }

  /** Opens (creating when missing, unless told not to), checks, migrates, and marks stale runs. */
  static open(path: string, opts: OpenOptions = {}): Store {
    const create = opts.create ?? true;
    const busy = `busy_timeout = ${opts.busyTimeoutMs ?? 10_000}`;
    // An existing database is first checked through a read-only connection, which can write nothing, not even
    // a WAL checkpoint on close: a foreign or newer database is left exactly as it was.
    const exists = checkFile(path, create, opts.createDirectory ?? true);
    // A history this process cannot write to is read from a copy (a command that writes refuses it below).
    if (exists && !opts.requireWritable && !isWritable(path)) return Store.openCopy(path, busy);
    if (exists && opts.requireWritable) checkWritable(path, true);
    if (exists)
      Store.withConnection(path, true, (db) => {
        db.pragma(busy);
        checkSchema(db, path);
      });
    if (opts.requireWritable) checkWritable(path, existsSync(path));
    return Store.withConnection(
      path,
      false,
      (db) => {
        db.pragma(busy);
        checkSchema(db, path); // again: the file may have been created meanwhile
        retryWhileBusy(() => {
          if (db.pragma('journal_mode') !== 'wal') db.pragma('journal_mode = WAL');
        });
        db.pragma('foreign_keys = ON');
        db.pragma('synchronous = NORMAL');
        migrate(db);
        const store = new Store(path, db);
        store.markStale();
        return store;
      },
      true,
    );
  }

  private static openCopy(path: string, busy: string): Store {
    const copy = snapshotOf(path);
    try {
      return Store.withConnection(
        copy.path,
        false,
        (db) => {
          db.pragma(busy);
          checkSchema(db, path);
          migrate(db);
          return new Store(path, db, copy.remove);
        },
        true,
      );
    } catch (e) {
      copy.remove();
      throw e;
    }
  }

  /** Opens a connection, runs fn; closes it afterwards (or only on error, when `keep`). Errors → StoreError. */
  private static withConnection<T>(path: string, readonly: boolean, fn: (db: SqlDatabase) => T, keep = false): T {
    let db: SqlDatabase;
    try {
      db = openSqlite(path, { readonly });
    } catch (e) {
      throw new StoreError(`cannot open ${path}: ${(e as Error).message}`, 'other', (e as { hint?: string }).hint);
    }
    let ok = false;
    try {
      const out = fn(db);
      ok = true;
      return out;
    } catch (e) {
      if (e instanceof StoreError) throw e;
      const code = sqliteCode(e);
      if (code?.startsWith('SQLITE_READONLY')) throw new StoreError(readOnlyText(path, code), 'readonly');
      throw new StoreError(`${path}: ${(e as Error).message}${code ? ` (${code})` : ''}`);
    } finally {
      if (!ok || !keep) db.close();
    }
  }

  close(): void {
    this.db.close();
    this.dropCopy?.();
  }

  /** Records the start of a run (status 'running', this process's pid); returns its id. */
  startRun(meta: RunStart): number {
    const me = processIdentity(process.pid);
    const info = this.db
      .prepare(
        `INSERT INTO runs (id, uuid, experiment, status, started_at, forklab_version, params, machine, load_before, warnings,
           hostname, pid, proc_start, boot_id, cmdline, note)
         VALUES (${NEXT_RUN_ID}, ?, ?, 'running', ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        randomUUID(),
        meta.experiment,
        meta.startedAt.toISOString(),
        meta.forklabVersion,
        JSON.stringify(meta.params),
        JSON.stringify(meta.machine),
        JSON.stringify(meta.loadBefore),
        this.here.host,
        process.pid,
        me?.startTicks ?? null,
        this.here.bootId,
        me?.cmdline ?? null,
        meta.label ?? null,
      );
    return Number(info.lastInsertRowid);
  }

  private record(runId: number): RunRecord {
    const r = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as RunRecord | undefined;
    if (!r) throw new StoreError(`no run ${runId} in ${this.path} (forklab history lists them)`);
    return r;
  }

  private requireRunning(runId: number, what: string): void {
    const r = this.record(runId);
    if (r.status !== 'running') throw new StoreError(`run ${runId} is ${r.status}: cannot ${what}`);
  }

  /**
   * Stores measurements of a running run, all in one transaction. Call it as each probe finishes. Throws
   * StoreError (nothing stored) for a measurement that could not be exported again (a NaN, say).
   */
  addMeasurements(runId: number, ms: readonly Measurement[]): void {
    const configs = ms.map((m, i) => {
      const c = measurementToJson(m);
      try {
        validateConfiguration(c, `measurement ${i} (${m.series})`);
      } catch (e) {
        if (e instanceof DocumentError) throw new StoreError(`run ${runId}: cannot record ${e.message}`);
        throw e;
      }
      return c;
    });
    this.db.transaction(() => {
      this.requireRunning(runId, 'add measurements');
      insertConfigurations(this.db, runId, configs, new Date().toISOString());
    }, 'immediate');
  }

  /** Ends a running run: 'complete' or 'incomplete', with its summary, warnings and final load sample. */
  finishRun(runId: number, end: RunFinish): void {
    this.db.transaction(() => {
      const r = this.record(runId);
      if (r.status !== 'running') throw new StoreError(`run ${runId} is ${r.status}: cannot finish it again`);
      this.db
        .prepare(`UPDATE runs SET status = ?, finished_at = ?, duration_ms = ?, summary = ?, warnings = ?, load_after = ? WHERE id = ?`)
        .run(
          end.complete ? 'complete' : 'incomplete',
          end.finishedAt.toISOString(),
          end.finishedAt.getTime() - Date.parse(r.started_at),
          JSON.stringify(end.summary ?? null),
          JSON.stringify(end.warnings),
          JSON.stringify(end.loadAfter),
          runId,
        );
    }, 'immediate');
  }

  /** The run's uuid (the document's runId). */
  uuidOf(runId: number): string {
    return this.record(runId).uuid;
  }

  /**
   * Runs still 'running' whose process is gone become 'incomplete', keeping their measurements; their
   * finish time is the last stored measurement's. Returns how many were marked. Called by open().
   */
  markStale(): number {
    const running = this.db.prepare("SELECT * FROM runs WHERE status = 'running'").all() as RunRecord[];
    const stale = running.filter((r) => recorderGone(r, this.here));
    if (stale.length === 0) return 0;
    let marked = 0;
    this.db.transaction(() => {
      const last = this.db.prepare('SELECT max(added_at) AS t FROM measurements WHERE run_id = ?');
      const update = this.db.prepare("UPDATE runs SET status = 'incomplete', finished_at = ?, duration_ms = ?, warnings = ? WHERE id = ? AND status = 'running'");
      for (const r of stale) {
        const end = (last.get(r.id) as { t: string | null }).t ?? r.started_at;
        const killed: Warning = {
          code: 'run-killed',
          message: `the process that recorded this run (pid ${r.pid}) ended without finishing it (killed or crashed); the measurements it stored are kept, the summary is missing. Rerun the experiment for a complete run.`,
        };
        const warnings: StoredWarning[] = [...(JSON.parse(r.warnings) as StoredWarning[]), killed];
        marked += update.run(end, Date.parse(end) - Date.parse(r.started_at), JSON.stringify(warnings), r.id).changes;
      }
    }, 'immediate');
    return marked;
  }

  /** The runs the filter selects (every run without one), oldest id first; with limit, the most recent N of them. */
  listRuns(filter: RunFilter = {}): RunRow[] {
    const { where, args, limit } = runFilterSql(filter);
    const rows = this.db
      .prepare(`SELECT * FROM (SELECT r.*, json_extract(r.machine, '$.hostname') AS machine_host,
           (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) AS n
         FROM runs r ${where} ${limit}) ORDER BY id`)
      .all(...args) as ListedRunRecord[];
    return rows.map(runRowOf);
  }

  /**
   * Removes runs and their measurements (nothing else), in one transaction: all or none. A run still being
   * recorded by a live process is refused (StoreError), so that its process does not write into nothing.
   * Returns how many measurements went with them.
   */
  removeRuns(runIds: readonly number[]): { runs: number; measurements: number } {
    return this.db.transaction(() => {
      let measurements = 0;
      for (const id of runIds) {
        const r = this.record(id);
        if (r.status === 'running' && !recorderGone(r, this.here))
          throw new StoreError(`run ${id} is still being recorded (pid ${r.pid} on ${r.hostname}); nothing was removed. Stop that run first.`);
        measurements += this.db.prepare('DELETE FROM measurements WHERE run_id = ?').run(id).changes;
      }
      // Estimates learnt from a removed run go with it (derived data: a run removed is not evidence any more).
      forgetDriftEstimates(
        this.db,
        runIds.map((id) => this.record(id).uuid),
      );
      let runs = 0;
      for (const id of runIds) runs += this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes;
      return { runs, measurements };
    }, 'immediate');
  }

  /**
   * A run id from what the user typed: its number, its uuid or the uuid's first characters, 'latest'
   * (the most recently started) or 'latest~N' (N runs before it).
   */
  resolveRun(ref: string): number {
    return resolveRunRef(this.db, this.path, ref);
  }

  /** What `latest` names: the latest reproduction or run made (see latestMade). */
  latestMade(): { kind: 'run' | 'reproduction'; id: number } | null {
    return latestMade(this.db);
  }

  /** Stores what a reproduction concluded and the uuids of its runs; returns its id (shown as R<id>). */
  addReproduction(r: NewReproduction): number {
    return addReproduction(this.db, r);
  }

  /** Every reproduction, oldest first. */
  listReproductions(): ReproductionRow[] {
    return listReproductions(this.db);
  }

  /** R<n>, Rlatest or R → a reproduction id. */
  resolveReproduction(ref: string): number {
    return resolveReproduction(this.db, ref, this.path);
  }

  getReproduction(id: number): StoredReproduction {
    return getReproduction(this.db, id, this.path);
  }

  /** The drift estimates kept for later judgements of the same machine (src/store/drift.ts). */
  get driftEstimates(): DriftEstimates {
    return new DriftEstimates(this.db);
  }

  /** The run with this uuid as a document, or null when it is not (or no longer) in the history. */
  documentByUuid(uuid: string): RunDocument | null {
    const r = this.db.prepare('SELECT id FROM runs WHERE uuid = ?').get(uuid) as { id: number } | undefined;
    return r ? this.getDocument(r.id) : null;
  }

  /** The run as a versioned document (runId = its uuid), raw samples exactly as stored. */
  getDocument(runId: number): RunDocument {
    const rows = this.db.prepare('SELECT * FROM measurements WHERE run_id = ? ORDER BY seq').all(runId) as MeasurementRecord[];
    return documentOf(this.record(runId), rows);
  }

  /**
   * Inserts a document (checked first) as a new run, in one transaction, keeping its uuid; a document
   * without one (written by --json outside the history) gets a uuid derived from its content. The same
   * run twice → StoreError, nothing changed. Returns the new run id.
   */
  importDocument(doc: RunDocument): number {
    validateRunDocument(doc);
    const uuid = doc.runId ?? contentUuid(doc);
    return this.db.transaction(() => {
      const had = this.db.prepare('SELECT id FROM runs WHERE uuid = ?').get(uuid) as { id: number } | undefined;
      if (had) throw new StoreError(`run ${uuid} is already in ${this.path} as run ${had.id}; nothing was imported`);
      const info = this.db
        .prepare(
          `INSERT INTO runs (id, uuid, experiment, status, started_at, finished_at, duration_ms, forklab_version, params, machine,
             load_before, load_after, warnings, summary, hostname, imported_at, note)
           VALUES (${NEXT_RUN_ID}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          uuid,
          doc.experiment,
          doc.complete ? 'complete' : 'incomplete',
          doc.startedAt,
          doc.finishedAt,
          doc.durationMs,
          doc.forklabVersion,
          JSON.stringify(doc.params),
          JSON.stringify(doc.machine),
          JSON.stringify(doc.load.before),
          doc.load.after === null ? null : JSON.stringify(doc.load.after),
          JSON.stringify(doc.warnings),
          JSON.stringify(doc.summary ?? null),
          doc.machine.hostname,
          new Date().toISOString(),
          doc.label ?? null,
        );
      const id = Number(info.lastInsertRowid);
      insertConfigurations(this.db, id, doc.configurations, doc.finishedAt);
      return id;
    }, 'immediate');
  }
}
