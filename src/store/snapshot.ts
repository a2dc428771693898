// A history that cannot be written (a read-only file system, a directory or file without write permission) is
// still read: SQLite cannot open a WAL database read-only where it cannot make the -shm file beside it
// (SQLITE_CANTOPEN), so the database and its -wal are copied to a temporary directory and the copy is opened.
// Nothing is written where the history is; the copy is removed when the store is closed.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { StoreError } from './migrations.js';

export interface Snapshot {
  /** The copy to open. */
  path: string;
  /** Removes the copy (and its directory). */
  remove(): void;
}

/** Copies the database at `path` (and its -wal, which holds the latest commits) to a new temporary directory. */
export function snapshotOf(path: string): Snapshot {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-read-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const copy = join(dir, basename(path));
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  } catch (e) {
    remove();
    throw new StoreError(`cannot read ${path}: ${(e as Error).message}`);
  }
  return { path: copy, remove };
}
