// The places runtimes live on a developer's machine, as the family specs' candidate finders (families/) use
// them: PATH, a version manager's folders (ROOT/VERSION/bin/EXE), a folder in the home directory,
// node_modules/.bin, and forklab's own cache ($XDG_CACHE_HOME/forklab/runtimes, laid out NAME-VERSION/bin/EXE,
// which `--fetch` fills). Only paths: the runtimes are run (and their versions read) by discover.ts.
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type Origin = 'this-node' | 'path' | 'pyenv' | 'jvm-dir' | 'flag' | 'nvm' | 'fnm' | 'volta' | 'asdf' | 'n' | 'home' | 'node_modules' | 'cache';

export interface Candidate {
  path: string;
  origin: Origin;
  /** The one a user gets by typing the command (first on PATH, or the Node running forklab). */
  preferred: boolean;
}

export function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first executable called `cmd` on PATH, or null. */
export function which(cmd: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    if (isExecutable(p)) return p;
  }
  return null;
}

export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** forklab's cache root: $XDG_CACHE_HOME/forklab, else ~/.cache/forklab; null without either variable. */
export function forklabCacheDir(env: NodeJS.ProcessEnv): string | null {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'forklab');
  return env.HOME ? join(env.HOME, '.cache', 'forklab') : null;
}

/** Where `--fetch` installs runtimes and discovery looks for them: <cache>/runtimes. */
export function runtimeCacheDir(env: NodeJS.ProcessEnv): string | null {
  const root = forklabCacheDir(env);
  return root ? join(root, 'runtimes') : null;
}

/** NAME-VERSION/bin/EXE under a cache folder. */
export function cached(cacheDir: string | null, name: string, exe: string): Candidate[] {
  if (!cacheDir) return [];
  return listDir(cacheDir)
    .filter((d) => d.startsWith(`${name}-`))
    .map((d) => ({ path: join(cacheDir, d, 'bin', exe), origin: 'cache' as const, preferred: false }))
    .filter((c) => isExecutable(c.path));
}

/** EXE inside every version folder of a manager: ROOT/<version>/SUB/EXE. */
export function versions(root: string | null | undefined, sub: string, exe: string, origin: Origin): Candidate[] {
  if (!root) return [];
  return listDir(root)
    .map((ver) => ({ path: join(root, ver, sub, exe), origin, preferred: false }))
    .filter((c) => isExecutable(c.path));
}

/** A path in the home directory, null without HOME. */
export const home = (env: NodeJS.ProcessEnv, ...parts: string[]) => (env.HOME ? join(env.HOME, ...parts) : null);

/** The command on PATH, as the one a user gets by typing it. */
export function onPath(cmd: string, env: NodeJS.ProcessEnv): Candidate[] {
  const p = which(cmd, env);
  return p ? [{ path: p, origin: 'path', preferred: true }] : [];
}

export function inNodeModules(cwd: string, exe: string): Candidate[] {
  const p = join(cwd, 'node_modules', '.bin', exe);
  return isExecutable(p) ? [{ path: p, origin: 'node_modules', preferred: false }] : [];
}

/** EXE in a folder its installer uses (~/.cargo/bin, /usr/local/go/bin). */
export function inHome(dir: string | null, exe: string): Candidate[] {
  if (!dir) return [];
  const p = join(dir, exe);
  return isExecutable(p) ? [{ path: p, origin: 'home', preferred: false }] : [];
}

/** A runtime shipped as one binary (Bun, Deno): PATH, its installer's ROOT/bin, node_modules/.bin, the cache. */
export function singleBinaryCandidates(exe: string, installRoot: string | null | undefined, c: { env: NodeJS.ProcessEnv; cacheDir: string | null; cwd: string }): Candidate[] {
  return [...onPath(exe, c.env), ...inHome(installRoot ? join(installRoot, 'bin') : null, exe), ...inNodeModules(c.cwd, exe), ...cached(c.cacheDir, exe, exe)];
}
