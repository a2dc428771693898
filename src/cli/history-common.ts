// What the history commands (history, show, compare, export, import, rm) share: options, colours, output,
// error handling, the store, dates.
import pc from 'picocolors';
import { Store } from '../store/db.js';
import { resolveDbPath } from '../store/location.js';

export interface Opts {
  db?: string;
  json?: boolean;
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
  return o.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR ? pc : plain;
}

export const out = (s: string) => void process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

export const RUN_HELP = 'a run id, a uuid or its first characters, latest or latest~N';

/** Runs a command body; an error it throws is printed by the CLI's one error printer (src/cli/errors.ts). */
export async function guarded(_command: string, body: () => void | Promise<void>): Promise<void> {
  await body();
}

export function withStore<T>(o: { db?: string }, create: boolean, fn: (s: Store) => T): T {
  const store = Store.open(resolveDbPath(o.db), { create });
  try {
    return fn(store);
  } finally {
    store.close();
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
