// Where the run history lives: --db PATH, else $FORKLAB_DB, else $XDG_DATA_HOME/forklab/forklab.db,
// else ~/.local/share/forklab/forklab.db.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const DB_FILE_NAME = 'forklab.db';

/**
 * The database path to use. `explicit` is the --db option (wins when given). Relative paths are resolved
 * against the current directory. An empty or relative XDG_DATA_HOME is ignored, as the XDG spec asks.
 */
export function resolveDbPath(
  explicit?: string,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (explicit !== undefined && explicit !== '') return resolve(explicit);
  const fromEnv = env.FORKLAB_DB;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) return join(xdg, 'forklab', DB_FILE_NAME);
  return join(home, '.local', 'share', 'forklab', DB_FILE_NAME);
}
