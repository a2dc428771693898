// What the history commands (history, show, compare, export, import, rm) share: options, colours, output,
// error handling, the store, dates.
import pc from 'picocolors';
import { asStoreError, type Store } from '../store/db.js';
import { openDatabase } from './database.js';
import { writeStdout } from './output.js';
import { fitText } from '../text/fit.js';

export interface Opts {
  db?: string;
  json?: string | boolean;
  color?: boolean;
}

type Paint = (s: string) => string;
export interface Colors {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}
export const plain: Colors = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s, cyan: (s) => s };

export function colors(o: { color?: boolean }): Colors {
  return o.color !== false && process.stdout.isTTY && !process.env.NO_COLOR ? pc : plain;
}

/** Writes a line to stdout now: a closed pipe ends quietly (141), a full disk is an error (src/cli/output.ts). */
export const out = (s: string) => writeStdout(fitText(s.endsWith('\n') ? s : `${s}\n`));

export const RUN_HELP = 'a run id, a uuid or its first characters, latest (the latest run or reproduction made), latest~N, or latest:EXPERIMENT (latest:spawn)';

/** Runs a command body; an error it throws is printed by the CLI's one error printer (src/cli/errors.ts). */
export async function guarded(_command: string, body: () => void | Promise<void>): Promise<void> {
  await body();
}

/** Opens the database of --db (creating it only for commands that add runs), runs fn, closes it; SQLite's errors become StoreErrors. */
export function withStore<T>(o: { db?: string }, create: boolean, fn: (s: Store) => T): T {
  const { store } = openDatabase(o.db, { create, write: create });
  try {
    return fn(store);
  } catch (e) {
    throw asStoreError(e, store.path);
  } finally {
    store.close();
  }
}

/** fn with a way to open the history only if it needs it (a file of whole documents does not); closed afterwards. */
export function withLazyStore<T>(o: { db?: string }, fn: (open: () => Store) => T): T {
  let store: Store | null = null;
  try {
    return fn(() => (store ??= openDatabase(o.db, { create: false, write: false }).store));
  } catch (e) {
    throw store ? asStoreError(e, (store as Store).path) : e;
  } finally {
    (store as Store | null)?.close();
  }
}

export function localTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function statusText(status: string, c: Colors): string {
  return status === 'complete' ? c.green(status) : status === 'incomplete' ? c.yellow(status) : c.cyan(status);
}

export const show = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(show).join(',') : JSON.stringify(v));
