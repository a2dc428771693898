// The history database as the command line opens it: --db (never empty), $FORKLAB_DB or the default location;
// only the default location's directory is created; problems become usage errors naming --db, with what to do.
import { Store, StoreError } from '../store/db.js';
import { resolveDbLocation, type DbSource } from '../store/location.js';
import { UsageError } from '../errors.js';

export interface DbLocation {
  path: string;
  source: DbSource;
}

/** Where the database is; an empty --db is a usage error (it would silently mean $FORKLAB_DB or the default). */
export function dbLocation(flag: string | undefined): DbLocation {
  if (flag !== undefined && flag.trim() === '') throw new UsageError('--db', 'the path is empty; give a database file, or leave --db out for $FORKLAB_DB or the default location');
  return resolveDbLocation(flag);
}

/** "--db /x/y.db" to repeat in a hint when the user chose the database with --db; "" otherwise. */
export function dbArgument(loc: DbLocation): string {
  return loc.source === 'flag' ? ` --db ${shellWord(loc.path)}` : '';
}

/** A word the shell reads back as s. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface OpenDatabaseOptions {
  /** Create the database when missing (its directory only at the default location). */
  create: boolean;
  /** The command will write: refuse a read-only database before any work. */
  write: boolean;
  /** Offer --no-store in the read-only message (the measuring commands have it). */
  offerNoStore?: boolean;
}

/** Opens the history database; every StoreError becomes a UsageError on --db that says what to do. */
export function openDatabase(flag: string | undefined, o: OpenDatabaseOptions): { store: Store; location: DbLocation } {
  const location = dbLocation(flag);
  const where = location.source === 'env' ? ' (from $FORKLAB_DB)' : '';
  try {
    const store = Store.open(location.path, { create: o.create, createDirectory: location.source === 'default', requireWritable: o.write });
    return { store, location };
  } catch (e) {
    if (!(e instanceof StoreError)) throw e;
    if (e.kind === 'readonly' && !o.write)
      throw new UsageError(
        '--db',
        `${e.message}${where}: forklab must write to open a history (its journal, the status of killed runs)`,
        'copy it somewhere writable and give that --db PATH',
      );
    if (e.kind === 'readonly')
      throw new UsageError(
        '--db',
        `${e.message}${where}: cannot store runs there`,
        `give a writable --db PATH${o.offerNoStore ? ', or --no-store to measure without storing' : ''}`,
      );
    if (e.kind === 'missing') throw new StoreError(`${e.message}${where}`, 'missing', e.hint);
    if (e.kind === 'nodir')
      throw new UsageError('--db', `${e.message}${where}; give --db PATH in a writable directory${o.offerNoStore ? ', or --no-store to measure without storing' : ''}`);
    throw new UsageError('--db', `${e.message}${where}`, e.hint);
  }
}
