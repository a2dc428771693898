// Where the run history lives: --db PATH, else $FORKLAB_DB, else $XDG_DATA_HOME/forklab/forklab.db,
// else ~/.local/share/forklab/forklab.db.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

const DB_FILE_NAME = 'forklab.db';

/**
 * The database path to use. `explicit` is the --db option (wins when given). Relative paths are resolved
 * against the current directory. An empty or relative XDG_DATA_HOME is ignored, as the XDG spec asks.
 */
export function resolveDbPath(explicit?: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return resolveDbLocation(explicit, env, home).path;
}

/** Where the database path came from: the --db flag, $FORKLAB_DB, or the default location (XDG or home). */
export type DbSource = 'flag' | 'env' | 'default';

/**
 * The database path and where it came from. Only the default location's directory is ever created by forklab;
 * a path the user gave must be in a directory that exists. (An empty --db is refused by the command line.)
 */
export function resolveDbLocation(explicit?: string, env: NodeJS.ProcessEnv = process.env, home: string = homedir()): { path: string; source: DbSource } {
  if (explicit !== undefined && explicit !== '') return { path: resolve(explicit), source: 'flag' };
  const fromEnv = env.FORKLAB_DB;
  if (fromEnv !== undefined && fromEnv !== '') return { path: resolve(fromEnv), source: 'env' };
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return { path: join(xdg, 'forklab', DB_FILE_NAME), source: 'default' };
  return { path: join(home, '.local', 'share', 'forklab', DB_FILE_NAME), source: 'default' };
}
