// One small SQLite interface over the two engines forklab can use: Node's own `node:sqlite` (Node 22.13+, 24, 26:
// nothing to compile) and better-sqlite3 (Node 20, which has no node:sqlite; built at install time). The rest of
// the store speaks only this interface, so both engines run the same SQL the same way.
import { createRequire } from 'node:module';
import { ForklabError } from '../errors.js';

export type SqliteBackend = 'node:sqlite' | 'better-sqlite3';
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface SqlStatement {
  run(...args: SqlValue[]): { changes: number; lastInsertRowid: number };
  get(...args: SqlValue[]): unknown;
  all(...args: SqlValue[]): unknown[];
}

export interface SqlDatabase {
  readonly backend: SqliteBackend;
  readonly isOpen: boolean;
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  /** `PRAGMA source`; the first column of the first row it returns (undefined when none). */
  pragma(source: string): unknown;
  /** fn inside BEGIN [IMMEDIATE] … COMMIT (a SAVEPOINT when already inside one); rolled back when it throws. */
  transaction<T>(fn: () => T, mode?: 'deferred' | 'immediate'): T;
  close(): void;
}

export interface SqlOpenOptions {
  /** Open read-only; the file must exist. */
  readonly?: boolean;
}

/** The engine this process uses: node:sqlite when Node has it, else better-sqlite3. FORKLAB_SQLITE picks one. */
export function sqliteBackend(env: NodeJS.ProcessEnv = process.env): SqliteBackend {
  const asked = env.FORKLAB_SQLITE;
  if (asked === 'node:sqlite' || asked === 'better-sqlite3') return asked;
  return nodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

/** The part of node:sqlite used here (@types/node 20 has no types for it). */
interface NodeSqliteDatabase {
  readonly isOpen: boolean;
  prepare(sql: string): { run(...a: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint }; get(...a: SqlValue[]): unknown; all(...a: SqlValue[]): unknown[] };
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, opts?: { readOnly?: boolean }) => NodeSqliteDatabase;
}
let nodeSqliteModule: NodeSqliteModule | null | undefined;

/** node:sqlite, or null on a Node without it. Node 22 warns that it is experimental: that one warning is dropped. */
function nodeSqlite(): NodeSqliteModule | null {
  if (nodeSqliteModule !== undefined) return nodeSqliteModule;
  const emit = process.emitWarning;
  process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
    const text = typeof w === 'string' ? w : w.message;
    if (/SQLite/i.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, w, ...rest);
  }) as typeof process.emitWarning;
  try {
    nodeSqliteModule = (process.getBuiltinModule?.('node:sqlite') as NodeSqliteModule | undefined) ?? null;
  } catch {
    nodeSqliteModule = null;
  } finally {
    process.emitWarning = emit;
  }
  return nodeSqliteModule;
}

interface BetterDb {
  open: boolean;
  prepare(sql: string): { run(...a: unknown[]): { changes: number; lastInsertRowid: number | bigint }; get(...a: unknown[]): unknown; all(...a: unknown[]): unknown[] };
  exec(sql: string): void;
  pragma(source: string, opts: { simple: true }): unknown;
  close(): void;
}
type BetterCtor = new (path: string, opts: { readonly?: boolean; fileMustExist?: boolean }) => BetterDb;

function betterSqlite(): BetterCtor {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as BetterCtor;
  } catch (e) {
    throw new ForklabError('store', `Node ${process.version} has no node:sqlite, and better-sqlite3 (its stand-in) is not built: ${(e as Error).message.split('\n')[0]}`, {
      hint: 'use Node 22.13 or newer (node:sqlite: nothing to build), or build better-sqlite3 with gcc, make and python3 present (npm rebuild better-sqlite3; in a checkout: node scripts/build-sqlite.mjs); --no-store measures without the history',
    });
  }
}

/** Opens a database with the engine sqliteBackend() picks. Errors are the engine's own (see sqliteCode). */
export function openSqlite(path: string, opts: SqlOpenOptions = {}, backend: SqliteBackend = sqliteBackend()): SqlDatabase {
  if (backend === 'node:sqlite') {
    const mod = nodeSqlite();
    if (!mod) throw new ForklabError('store', `FORKLAB_SQLITE=node:sqlite, but Node ${process.version} has no node:sqlite (Node 22.13 or newer has it)`);
    return new Wrapped('node:sqlite', new NodeDb(new mod.DatabaseSync(path, opts.readonly ? { readOnly: true } : {})));
  }
  const Ctor = betterSqlite();
  return new Wrapped('better-sqlite3', new Ctor(path, opts.readonly ? { readonly: true, fileMustExist: true } : { fileMustExist: false }));
}

/** node:sqlite's DatabaseSync shaped as better-sqlite3's few methods this file uses. */
class NodeDb implements BetterDb {
  constructor(private readonly db: NodeSqliteDatabase) {}
  get open(): boolean {
    return this.db.isOpen;
  }
  prepare(sql: string) {
    const s = this.db.prepare(sql);
    return {
      run: (...a: unknown[]) => {
        const r = s.run(...(a as SqlValue[]));
        return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
      },
      get: (...a: unknown[]) => s.get(...(a as SqlValue[])),
      all: (...a: unknown[]) => s.all(...(a as SqlValue[])),
    };
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  pragma(source: string): unknown {
    const row = this.db.prepare(`PRAGMA ${source}`).get() as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }
  close(): void {
    this.db.close();
  }
}

class Wrapped implements SqlDatabase {
  private depth = 0;
  constructor(
    readonly backend: SqliteBackend,
    private readonly db: BetterDb,
  ) {}
  get isOpen(): boolean {
    return this.db.open;
  }
  prepare(sql: string): SqlStatement {
    const s = this.db.prepare(sql);
    return {
      run: (...a) => {
        const r = s.run(...a);
        return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
      },
      get: (...a) => s.get(...a),
      all: (...a) => s.all(...a),
    };
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  pragma(source: string): unknown {
    return this.db.pragma(source, { simple: true });
  }
  transaction<T>(fn: () => T, mode: 'deferred' | 'immediate' = 'deferred'): T {
    const savepoint = this.depth > 0 ? `forklab_${this.depth}` : null;
    this.db.exec(savepoint ? `SAVEPOINT ${savepoint}` : mode === 'immediate' ? 'BEGIN IMMEDIATE' : 'BEGIN');
    this.depth++;
    try {
      const out = fn();
      this.db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
      return out;
    } catch (e) {
      try {
        this.db.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
      } catch {
        // SQLite already rolled back (a failed COMMIT, a full disk): nothing left to undo.
      }
      throw e;
    } finally {
      this.depth--;
    }
  }
  close(): void {
    if (this.db.open) this.db.close();
  }
}

// SQLite's primary result codes by number (https://www.sqlite.org/rescode.html), for node:sqlite's errors,
// which carry the number (errcode) where better-sqlite3's carry the name.
const PRIMARY: Record<number, string> = {
  1: 'SQLITE_ERROR',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  19: 'SQLITE_CONSTRAINT',
  26: 'SQLITE_NOTADB',
};
const EXTENDED: Record<number, string> = {
  264: 'SQLITE_READONLY_RECOVERY',
  520: 'SQLITE_READONLY_CANTLOCK',
  776: 'SQLITE_READONLY_ROLLBACK',
  1032: 'SQLITE_READONLY_DBMOVED',
  1288: 'SQLITE_READONLY_CANTINIT',
  1544: 'SQLITE_READONLY_DIRECTORY',
  261: 'SQLITE_BUSY_RECOVERY',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
};

/** SQLite's code of an error from either engine ('SQLITE_BUSY', 'SQLITE_READONLY_DIRECTORY', …), else null. */
export function sqliteCode(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const o = e as Error & { code?: unknown; errcode?: unknown };
  if (typeof o.code === 'string' && o.code.startsWith('SQLITE_')) return o.code;
  if (o.code === 'ERR_SQLITE_ERROR' && typeof o.errcode === 'number') return EXTENDED[o.errcode] ?? PRIMARY[o.errcode & 0xff] ?? `SQLITE_${o.errcode}`;
  return null;
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs fn again while SQLite says the file is busy, for up to 10 s: switching to WAL needs a moment alone with the file, and another process opening it at once can make it busy. */
export function retryWhileBusy(fn: () => void): void {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      fn();
      return;
    } catch (e) {
      if (!sqliteCode(e)?.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw e;
      sleepMs(20);
    }
  }
}
