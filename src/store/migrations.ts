// The schema of the run history, as an ordered list of migrations, and the checks made before a database
// file is used (is it SQLite, is it forklab's, is it not newer than this forklab). The database's PRAGMA user_version
// is the number of migrations applied; each migration runs in its own IMMEDIATE transaction, so two
// processes opening a fresh database at once apply it exactly once. Never edit a released migration:
// append a new one.
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ForklabError } from '../errors.js';
import { type SqlDatabase, sqliteCode } from './sqlite.js';

export { sqliteCode };

/** PRAGMA application_id of a forklab database: "fklb". Tells a forklab database from other SQLite files. */
export const FORKLAB_APPLICATION_ID = 0x666b6c62;

export interface Migration {
  /** user_version after this migration. */
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs and their measurements',
    sql: `
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        experiment TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'incomplete')),
        started_at TEXT NOT NULL,            -- ISO 8601
        finished_at TEXT,                    -- null while running
        duration_ms REAL,
        forklab_version TEXT NOT NULL,
        params TEXT NOT NULL,                -- JSON object
        machine TEXT NOT NULL,               -- JSON MachineRecord
        load_before TEXT NOT NULL,           -- JSON LoadSample
        load_after TEXT,                     -- JSON LoadSample; null if the run never finished
        warnings TEXT NOT NULL DEFAULT '[]', -- JSON Warning[]
        summary TEXT,                        -- JSON; null if the run never finished
        hostname TEXT NOT NULL,              -- host of the recording process (stale-run detection)
        pid INTEGER,                         -- recording process; null for imported runs
        proc_start INTEGER,                  -- its start time, field 22 of /proc/PID/stat
        boot_id TEXT,                        -- /proc/sys/kernel/random/boot_id when it started
        cmdline TEXT,                        -- its /proc/PID/cmdline, NULs as spaces
        imported_at TEXT,                    -- ISO 8601 when it came from forklab import
        note TEXT
      );
      CREATE INDEX runs_started_at ON runs (started_at);
      CREATE INDEX runs_status ON runs (status);
      CREATE TABLE measurements (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,                -- order within the run
        series TEXT NOT NULL,
        fields TEXT NOT NULL,                -- JSON object, key order kept
        repeat_index INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('ok', 'failed')),
        failure TEXT,
        info TEXT NOT NULL,                  -- JSON object
        sample_count INTEGER NOT NULL,
        samples BLOB NOT NULL,               -- raw samples in ns, float64 little-endian (exact for integers < 2^53)
        columns TEXT,                        -- JSON object of per-iteration columns, or null
        stats TEXT,                          -- JSON SeriesStats, or null
        added_at TEXT NOT NULL,              -- ISO 8601
        PRIMARY KEY (run_id, seq)
      );
      PRAGMA application_id = ${FORKLAB_APPLICATION_ID};
    `,
  },
  {
    version: 2,
    description: 'reproductions: the verdicts of a forklab reproduce and the runs they rest on',
    sql: `
      CREATE TABLE reproductions (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        started_at TEXT NOT NULL,            -- ISO 8601
        finished_at TEXT NOT NULL,
        preset TEXT NOT NULL,                -- quick or full
        label TEXT,                          -- --label, or null
        hostname TEXT NOT NULL,
        document TEXT NOT NULL               -- JSON forklab.reproduce document: statuses, verdicts, figures, run uuids
      );
      CREATE TABLE reproduction_runs (
        reproduction_id INTEGER NOT NULL REFERENCES reproductions (id) ON DELETE CASCADE,
        run_uuid TEXT NOT NULL,              -- runs.uuid; the run may since have been removed (forklab rm)
        PRIMARY KEY (reproduction_id, run_uuid)
      );
    `,
  },
  {
    version: 3,
    description: 'drift estimates: the within-run estimate of every judged quantity of a run, what later runs learn the drift between runs from',
    sql: `
      CREATE TABLE drift_estimates (
        id INTEGER PRIMARY KEY,
        machine_key TEXT NOT NULL,           -- src/env/machine-key.ts: the machine the runs ran on
        experiment TEXT NOT NULL,
        started_at TEXT NOT NULL,            -- ISO 8601: when the first of its runs started
        version INTEGER NOT NULL,            -- how quantities are named and measured (src/claims/drift.ts)
        estimates TEXT NOT NULL              -- JSON object: quantity key -> { scale, class, point, low, high, confidence }
      );
      CREATE INDEX drift_estimates_machine ON drift_estimates (machine_key, experiment, started_at);
      CREATE TABLE drift_estimate_runs (
        estimate_id INTEGER NOT NULL REFERENCES drift_estimates (id) ON DELETE CASCADE,
        run_uuid TEXT NOT NULL,              -- runs.uuid: the runs judged together
        PRIMARY KEY (estimate_id, run_uuid)
      );
      CREATE INDEX drift_estimate_runs_uuid ON drift_estimate_runs (run_uuid);
    `,
  },
  {
    version: 4,
    description: 'run numbers are never given again: the highest number a removed run had is kept',
    sql: `
      CREATE TABLE id_marks (
        name TEXT PRIMARY KEY,               -- the table whose numbers it guards: runs
        value INTEGER NOT NULL               -- the highest number given so far (a new run gets one more)
      );
      INSERT INTO id_marks (name, value) VALUES ('runs', (SELECT coalesce(max(id), 0) FROM runs));
      CREATE TRIGGER runs_keep_mark AFTER DELETE ON runs
        BEGIN UPDATE id_marks SET value = max(value, OLD.id) WHERE name = 'runs'; END;
    `,
  },
];

/** The number a new run gets: one above every number given so far, removed runs' too (used inside its INSERT). */
export const NEXT_RUN_ID = `(SELECT max(coalesce((SELECT max(id) FROM runs), 0), coalesce((SELECT value FROM id_marks WHERE name = 'runs'), 0)) + 1)`;

export const LATEST_SCHEMA = MIGRATIONS.length;

function userVersion(db: SqlDatabase): number {
  return Number(db.pragma('user_version'));
}

function applicationId(db: SqlDatabase): number {
  return Number(db.pragma('application_id'));
}

/** Applies the migrations above `user_version` (up to `target`), one transaction each. */
export function migrate(db: SqlDatabase, target: number = LATEST_SCHEMA): void {
  for (const m of MIGRATIONS) {
    if (m.version > target) break;
    db.transaction(() => {
      // Read inside the write lock: another process may have migrated meanwhile.
      const current = userVersion(db);
      if (current >= m.version) return;
      if (current !== m.version - 1) throw new Error(`schema ${current} cannot take migration ${m.version} (${m.description})`);
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }, 'immediate');
  }
}

/** A problem with the database or a request to it; the message says what and where. */
export class StoreError extends ForklabError {
  constructor(
    message: string,
    /** 'missing': the database file does not exist (and was not to be created); 'readonly': it cannot be written; 'nodir': its directory cannot be made. */
    readonly kind: 'missing' | 'readonly' | 'nodir' | 'other' = 'other',
    hint?: string,
  ) {
    super('store', message, { hint });
    this.name = 'StoreError';
  }
}

/** "X is read-only (SQLITE_READONLY)", or that its directory is not writable, which SQLite needs for the WAL files. */
export function readOnlyText(path: string, code: string): string {
  return code === 'SQLITE_READONLY_DIRECTORY'
    ? `${path} is in a directory this process cannot write to, which SQLite needs for its WAL files (${code})`
    : `${path} is read-only (${code})`;
}

/** An error from SQLite as a StoreError naming the database and SQLite's code; other errors unchanged. */
export function asStoreError(e: unknown, path: string): unknown {
  const code = sqliteCode(e);
  if (code === null) return e;
  if (code.startsWith('SQLITE_READONLY')) return new StoreError(readOnlyText(path, code), 'readonly');
  if (code === 'SQLITE_FULL') return new StoreError(`${path}: the disk is full (${code})`);
  if (code.startsWith('SQLITE_BUSY')) return new StoreError(`${path} is locked by another process for too long (${code}); try again`);
  return new StoreError(`${path}: ${(e as Error).message} (${code})`);
}

export type RunStatus = 'running' | 'complete' | 'incomplete';

/** Rows of the tables above, as SQLite returns them. */
export interface RunRecord {
  id: number;
  uuid: string;
  experiment: string;
  status: RunStatus;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  forklab_version: string;
  params: string;
  machine: string;
  load_before: string;
  load_after: string | null;
  warnings: string;
  summary: string | null;
  hostname: string;
  pid: number | null;
  proc_start: number | null;
  boot_id: string | null;
  cmdline: string | null;
  imported_at: string | null;
  note: string | null;
}

export interface MeasurementRecord {
  seq: number;
  series: string;
  fields: string;
  repeat_index: number;
  state: 'ok' | 'failed';
  failure: string | null;
  info: string;
  sample_count: number;
  samples: Uint8Array;
  columns: string | null;
  stats: string | null;
  added_at: string;
}

const SQLITE_HEADER = 'SQLite format 3\0';

/** Throws StoreError kind 'readonly' when the database (or the directory its WAL files go to) cannot be written. */
export function checkWritable(path: string, exists: boolean): void {
  const wal = [`${path}-wal`, `${path}-shm`];
  const targets = exists ? [path, ...wal.filter((f) => existsSync(f))] : [];
  // SQLite creates the -wal and -shm files beside the database (and a new database in its directory).
  if (!exists || wal.some((f) => !existsSync(f))) targets.push(dirname(path));
  for (const t of targets) {
    try {
      accessSync(t, constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EACCES';
      const why = code === 'EROFS' ? 'on a read-only file system' : `not writable (${code})`;
      throw new StoreError(`${t === dirname(path) ? `the directory of ${path}` : t} is ${why}`, 'readonly');
    }
  }
}

/**
 * Why a directory could not be made, naming the errno: the first of its ancestors that is missing, on a
 * read-only file system or not writable ("/home/u does not exist (ENOENT)"), else mkdir's own error.
 */
export function whyNoDirectory(dir: string, err: unknown): string {
  let missing = dir;
  while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
  const parent = dirname(missing);
  try {
    accessSync(parent, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EACCES';
    const why = code === 'EROFS' ? 'is on a read-only file system (EROFS)' : `is not writable (${code})`;
    return existsSync(missing) ? `${parent} ${why}` : `${missing} does not exist (ENOENT) and ${parent} ${why}`;
  }
  if (!existsSync(missing) && missing !== dir) return `${missing} does not exist (ENOENT)`;
  const code = (err as NodeJS.ErrnoException).code;
  return code ? `${(err as Error).message.replace(/^\w+: /, '').replace(/, mkdir .*$/, '')} (${code})` : String((err as Error).message);
}

/** Can this process write the database at `path` (and make its WAL files beside it)? */
export function isWritable(path: string): boolean {
  try {
    checkWritable(path, true);
    return true;
  } catch (e) {
    if (e instanceof StoreError && e.kind === 'readonly') return false;
    throw e;
  }
}

/**
 * Refuses a directory or a file that is not SQLite; creates the directory of a missing database if asked
 * (`createDirectory`, default true; the command line asks only for the default location). True when the file
 * exists and is not empty.
 */
export function checkFile(path: string, create: boolean, createDirectory = true): boolean {
  let size: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new StoreError(`${path} is a directory, not a forklab database`);
    size = st.size;
  } catch (e) {
    if (e instanceof StoreError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new StoreError(`cannot read ${path}: ${(e as Error).message}`);
    if (!create) throw new StoreError(`no forklab database at ${path} (nothing recorded there yet)`, 'missing');
    if (!createDirectory) {
      let dir: ReturnType<typeof statSync>;
      try {
        dir = statSync(dirname(path));
      } catch {
        throw new StoreError(`directory ${dirname(path)} does not exist; create it first, or give a path in an existing directory`);
      }
      if (!dir.isDirectory()) throw new StoreError(`${dirname(path)} is not a directory`);
      return false;
    }
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (err) {
      throw new StoreError(`cannot create the directory of ${path}: ${whyNoDirectory(dirname(path), err)}`, 'nodir');
    }
    return false;
  }
  if (size === 0) return false; // an empty file is an empty SQLite database
  const head = Buffer.alloc(16);
  let got = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      got = readSync(fd, head, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new StoreError(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (got < 16 || head.toString('latin1') !== SQLITE_HEADER) throw new StoreError(`${path} is not a SQLite database, so not a forklab history; give another path with --db`);
  return true;
}

/** Reads only: a database this forklab must not touch (foreign, newer) is refused as it is. */
export function checkSchema(db: SqlDatabase, path: string): void {
  let version: number, appId: number, tables: number;
  try {
    // One read transaction: another process creating the database at this moment commits its tables, version
    // and application id at once, so the three are read from one snapshot (all before or all after it).
    [version, appId, tables] = db.transaction((): [number, number, number] => [
      userVersion(db),
      applicationId(db),
      (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as { n: number }).n,
    ]);
  } catch (e) {
    const code = sqliteCode(e);
    if (code === 'SQLITE_NOTADB') throw new StoreError(`${path} is not a SQLite database, so not a forklab history; give another path with --db`);
    if (code?.startsWith('SQLITE_CORRUPT')) throw new StoreError(`${path} is a damaged SQLite database: ${(e as Error).message}`);
    throw e;
  }
  const foreign = appId !== 0 ? appId !== FORKLAB_APPLICATION_ID : version !== 0 || tables > 0;
  if (foreign) throw new StoreError(`${path} is a SQLite database but not a forklab history (it holds other tables); give another path with --db`);
  if (version > LATEST_SCHEMA)
    throw new StoreError(`${path} was created by a newer forklab (schema ${version}); this one knows up to ${LATEST_SCHEMA}. Upgrade forklab to use it; it was left untouched.`);
}
