// Where runtimes live on a developer's machine, beyond PATH: the version managers' folders (nvm, fnm, volta,
// asdf, n for Node), ~/.bun/bin and ~/.deno/bin, node_modules/.bin, ~/.cargo/bin, and forklab's own cache
// ($XDG_CACHE_HOME/forklab/runtimes, laid out NAME-VERSION/bin/EXE, which `--fetch` fills). Only paths: the
// runtimes are run (and their versions read) by discover.ts.
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Family } from './registry.js';

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
function cached(cacheDir: string | null, name: string, exe: string): Candidate[] {
  if (!cacheDir) return [];
  return listDir(cacheDir)
    .filter((d) => d.startsWith(`${name}-`))
    .map((d) => ({ path: join(cacheDir, d, 'bin', exe), origin: 'cache' as const, preferred: false }))
    .filter((c) => isExecutable(c.path));
}

/** EXE inside every version folder of a manager: ROOT/<version>/SUB/EXE. */
function versions(root: string | null | undefined, sub: string, exe: string, origin: Origin): Candidate[] {
  if (!root) return [];
  return listDir(root)
    .map((ver) => ({ path: join(root, ver, sub, exe), origin, preferred: false }))
    .filter((c) => isExecutable(c.path));
}

const home = (env: NodeJS.ProcessEnv, ...parts: string[]) => (env.HOME ? join(env.HOME, ...parts) : null);

function onPath(cmd: string, env: NodeJS.ProcessEnv): Candidate[] {
  const p = which(cmd, env);
  return p ? [{ path: p, origin: 'path', preferred: true }] : [];
}

function inNodeModules(cwd: string, exe: string): Candidate[] {
  const p = join(cwd, 'node_modules', '.bin', exe);
  return isExecutable(p) ? [{ path: p, origin: 'node_modules', preferred: false }] : [];
}

function inHome(dir: string | null, exe: string): Candidate[] {
  if (!dir) return [];
  const p = join(dir, exe);
  return isExecutable(p) ? [{ path: p, origin: 'home', preferred: false }] : [];
}

/** Every Node the user may run: this one, PATH's, nvm, fnm, volta, asdf, n and the cache. */
export function nodeCandidates(env: NodeJS.ProcessEnv, cacheDir: string | null, thisNode: string): Candidate[] {
  const fnmRoot = env.FNM_DIR || (env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'fnm') : home(env, '.local', 'share', 'fnm'));
  return [
    { path: thisNode, origin: 'this-node', preferred: true },
    ...onPath('node', env).map((c) => ({ ...c, preferred: false })),
    ...versions(join(env.NVM_DIR || home(env, '.nvm') || '/nonexistent', 'versions', 'node'), 'bin', 'node', 'nvm'),
    ...versions(fnmRoot ? join(fnmRoot, 'node-versions') : null, join('installation', 'bin'), 'node', 'fnm'),
    ...versions(home(env, '.fnm', 'node-versions'), join('installation', 'bin'), 'node', 'fnm'),
    ...versions(join(env.VOLTA_HOME || home(env, '.volta') || '/nonexistent', 'tools', 'image', 'node'), 'bin', 'node', 'volta'),
    ...versions(join(env.ASDF_DATA_DIR || home(env, '.asdf') || '/nonexistent', 'installs', 'nodejs'), 'bin', 'node', 'asdf'),
    ...versions(join(env.N_PREFIX || '/usr/local', 'n', 'versions', 'node'), 'bin', 'node', 'n'),
    ...cached(cacheDir, 'node', 'node'),
  ];
}

/** Bun or Deno: PATH, ~/.bun/bin or ~/.deno/bin (or $BUN_INSTALL, $DENO_INSTALL), node_modules/.bin, the cache. */
export function jsRuntimeCandidates(family: 'bun' | 'deno', env: NodeJS.ProcessEnv, cacheDir: string | null, cwd: string): Candidate[] {
  const installRoot = family === 'bun' ? env.BUN_INSTALL || home(env, '.bun') : env.DENO_INSTALL || home(env, '.deno');
  return [...onPath(family, env), ...inHome(installRoot ? join(installRoot, 'bin') : null, family), ...inNodeModules(cwd, family), ...cached(cacheDir, family, family)];
}

/** The compilers of the compiled drivers and Ruby: PATH, then where their installers put them. */
export function toolCandidates(family: Extract<Family, 'go' | 'ruby' | 'rust'>, env: NodeJS.ProcessEnv): Candidate[] {
  if (family === 'go') return [...onPath('go', env), ...inHome('/usr/local/go/bin', 'go'), ...inHome(home(env, 'go', 'bin'), 'go')];
  if (family === 'rust') return [...onPath('rustc', env), ...inHome(env.CARGO_HOME ? join(env.CARGO_HOME, 'bin') : home(env, '.cargo', 'bin'), 'rustc')];
  return [...onPath('ruby', env), ...versions(home(env, '.rbenv', 'versions'), 'bin', 'ruby', 'home')];
}
