// Finds the runtimes on this machine: on PATH, in pyenv's versions, in /usr/lib/jvm, and those given with
// --runtime NAME=PATH; reads each one's version by running it. Absent runtimes are listed with the command
// that adds them, never an error.
import { setMaxListeners } from 'node:events';
import { accessSync, constants, readdirSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { runCommand } from '../../runner/command.js';
import { parseLine } from '../../runner/protocol.js';
import { DRIVERS_DIR, FAMILIES, familySpec, type Family } from './registry.js';

export interface FoundRuntime {
  state: 'found';
  /** Unique short name: node20, python3.13, java25, perl5.36, or the name given with --runtime. */
  name: string;
  family: Family;
  /** The real executable (symlinks and pyenv shims resolved). */
  path: string;
  version: string;
  /** Run by default (or asked for); the others are listed with the flag that adds them. */
  selected: boolean;
  origin: 'this-node' | 'path' | 'pyenv' | 'jvm-dir' | 'flag';
  /** Cases its driver cannot run here, with why (forklab/spawn not importable, say). */
  unavailable: Record<string, string>;
}
export type RuntimeEntry =
  | FoundRuntime
  | { state: 'absent'; family: Family; install: string }
  | { state: 'no-driver'; family: Family; path: string }
  | { state: 'broken'; name: string; family: Family; path: string; why: string };

export interface DiscoverOptions {
  env?: NodeJS.ProcessEnv;
  /** NAME=PATH pairs from --runtime, already checked to name a family and an executable. */
  extra?: { name: string; family: Family; path: string }[];
  /** Where JDKs are installed side by side. */
  jvmDir?: string;
  signal?: AbortSignal;
}

const VERSION_TIMEOUT_MS = 30_000;

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

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Compares dotted versions numerically: "3.9" < "3.13". */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+_-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+_-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

type Probe = { path: string; version: string; unavailable: Record<string, string> } | { why: string };

/** Runs the executable to learn its version (and, for Python, the interpreter a shim stands for). */
export async function probeRuntime(family: Family, exe: string, signal?: AbortSignal): Promise<Probe> {
  const run = (args: string[]) => runCommand(exe, args, { timeoutMs: VERSION_TIMEOUT_MS, ...(signal ? { signal } : {}) });
  switch (family) {
    case 'python': {
      const r = await run(['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())']);
      if (r.state === 'failed') return { why: r.why };
      const [path, version] = r.stdout.trim().split('\n');
      return path && version ? { path: real(path), version, unavailable: {} } : { why: 'printed no version' };
    }
    case 'java': {
      const r = await run(['-version']);
      if (r.state === 'failed') return { why: r.why };
      const m = /version "([^"]+)"/.exec(r.stderr + r.stdout);
      return m ? { path: real(exe), version: m[1]!, unavailable: {} } : { why: 'printed no version' };
    }
    case 'perl': {
      const r = await run(['-e', 'printf "%vd\\n", $^V']);
      if (r.state === 'failed') return { why: r.why };
      return { path: real(exe), version: r.stdout.trim(), unavailable: {} };
    }
    case 'node': {
      // The driver without a case says which cases this Node can run (forklab/spawn only when importable).
      const r = await run([join(DRIVERS_DIR, 'node.mjs')]);
      if (r.state === 'failed') return { why: r.why };
      let version = '';
      const unavailable: Record<string, string> = {};
      for (const line of r.stdout.split('\n')) {
        const p = parseLine(line);
        if (!p.ok || p.message.type !== 'info') continue;
        for (const [k, x] of Object.entries(p.message.fields)) {
          if (k === 'runtimeVersion') version = String(x);
          else if (k.startsWith('absent.')) unavailable[k.slice('absent.'.length)] = String(x);
        }
      }
      return version ? { path: real(exe), version, unavailable } : { why: 'its driver printed no version' };
    }
    default:
      return { why: 'no driver' };
  }
}

function shortName(family: Family, version: string): string {
  const parts = version.split('.');
  if (family === 'python' || family === 'perl') return `${family}${parts.slice(0, 2).join('.')}`;
  return `${family}${parts[0]}`;
}

/** Python candidates: python3 and python3.N on PATH, and every pyenv version (shims of inactive versions fail to run). */
function pythonCandidates(env: NodeJS.ProcessEnv): { path: string; origin: FoundRuntime['origin']; preferred: boolean }[] {
  const out: { path: string; origin: FoundRuntime['origin']; preferred: boolean }[] = [];
  const first = which('python3', env);
  if (first) out.push({ path: first, origin: 'path', preferred: true });
  for (const dir of (env.PATH ?? '').split(delimiter))
    for (const f of listDir(dir)) if (/^python3\.\d+$/.test(f) && isExecutable(join(dir, f))) out.push({ path: join(dir, f), origin: 'path', preferred: false });
  const root = env.PYENV_ROOT || (env.HOME ? join(env.HOME, '.pyenv') : null);
  if (root)
    for (const ver of listDir(join(root, 'versions')))
      for (const f of listDir(join(root, 'versions', ver, 'bin')))
        if (/^python3\.\d+$/.test(f)) out.push({ path: join(root, 'versions', ver, 'bin', f), origin: 'pyenv', preferred: false });
  return out;
}

function javaCandidates(env: NodeJS.ProcessEnv, jvmDir: string): { path: string; origin: FoundRuntime['origin']; preferred: boolean }[] {
  const out: { path: string; origin: FoundRuntime['origin']; preferred: boolean }[] = [];
  const first = which('java', env);
  if (first) out.push({ path: first, origin: 'path', preferred: true });
  if (env.JAVA_HOME) out.push({ path: join(env.JAVA_HOME, 'bin', 'java'), origin: 'jvm-dir', preferred: false });
  for (const d of listDir(jvmDir)) out.push({ path: join(jvmDir, d, 'bin', 'java'), origin: 'jvm-dir', preferred: false });
  return out.filter((c) => isExecutable(c.path));
}

/**
 * One family's interpreters: the one a user gets by typing its name (selected) and the newest version
 * found (selected too when it differs); the others listed, not run.
 */
async function discoverMany(family: Family, cands: ReturnType<typeof pythonCandidates>, signal?: AbortSignal): Promise<RuntimeEntry[]> {
  const probed = await Promise.all(cands.map(async (c) => ({ c, p: await probeRuntime(family, c.path, signal) })));
  const byPath = new Map<string, FoundRuntime & { preferred: boolean }>();
  for (const { c, p } of probed) {
    if ('why' in p) continue;
    const prev = byPath.get(p.path);
    if (prev) prev.preferred ||= c.preferred;
    else
      byPath.set(p.path, {
        state: 'found',
        name: '',
        family,
        path: p.path,
        version: p.version,
        selected: false,
        origin: c.origin,
        unavailable: p.unavailable,
        preferred: c.preferred,
      });
  }
  const found = [...byPath.values()].sort((a, b) => compareVersions(a.version, b.version) || (a.preferred ? -1 : 1));
  if (found.length === 0) return [{ state: 'absent', family, install: familySpec(family).install }];
  const preferred = found.find((f) => f.preferred);
  if (preferred) preferred.selected = true;
  found[found.length - 1]!.selected = true;
  // Selected interpreters get the plain names; a second 3.11 elsewhere becomes python3.11-2.
  const names = new Set<string>();
  for (const f of [...found.filter((x) => x.selected), ...found.filter((x) => !x.selected)]) {
    let n = shortName(family, f.version);
    for (let i = 2; names.has(n); i++) n = `${shortName(family, f.version)}-${i}`;
    names.add(n);
    f.name = n;
  }
  return found.map(({ preferred: _, ...f }) => f);
}

async function discoverOne(family: Family, exe: string | null, origin: FoundRuntime['origin'], signal?: AbortSignal): Promise<RuntimeEntry> {
  if (!exe) return { state: 'absent', family, install: familySpec(family).install };
  const p = await probeRuntime(family, exe, signal);
  if ('why' in p) return { state: 'broken', name: family, family, path: exe, why: p.why };
  return { state: 'found', name: shortName(family, p.version), family, path: p.path, version: p.version, selected: true, origin, unavailable: p.unavailable };
}

export async function discoverRuntimes(o: DiscoverOptions = {}): Promise<RuntimeEntry[]> {
  const env = o.env ?? process.env;
  // Every candidate is run at once, each listening for cancellation: one relay signal, not N listeners on the caller's.
  const relay = new AbortController();
  setMaxListeners(256, relay.signal);
  const cancel = () => relay.abort();
  if (o.signal?.aborted) relay.abort();
  o.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await discoverAll({ ...o, signal: relay.signal }, env);
  } finally {
    o.signal?.removeEventListener('abort', cancel);
  }
}

async function discoverAll(o: DiscoverOptions, env: NodeJS.ProcessEnv): Promise<RuntimeEntry[]> {
  const groups = await Promise.all(
    FAMILIES.map(async (spec): Promise<RuntimeEntry[]> => {
      switch (spec.family) {
        case 'node':
          return [await discoverOne('node', process.execPath, 'this-node', o.signal)];
        case 'python':
          return discoverMany('python', pythonCandidates(env), o.signal);
        case 'java':
          return discoverMany('java', javaCandidates(env, o.jvmDir ?? '/usr/lib/jvm'), o.signal);
        case 'perl':
          return [await discoverOne('perl', which('perl', env), 'path', o.signal)];
        default: {
          const exe = spec.commands.map((c) => which(c, env)).find((p) => p !== null) ?? null;
          return [exe ? { state: 'no-driver', family: spec.family, path: exe } : { state: 'absent', family: spec.family, install: spec.install }];
        }
      }
    }),
  );
  const entries = groups.flat();
  for (const x of o.extra ?? []) {
    const p = await probeRuntime(x.family, x.path, o.signal);
    const entry: RuntimeEntry =
      'why' in p
        ? { state: 'broken', name: x.name, family: x.family, path: x.path, why: p.why }
        : { state: 'found', name: x.name, family: x.family, path: p.path, version: p.version, selected: true, origin: 'flag', unavailable: p.unavailable };
    // The flag's name replaces a discovered runtime of that name; the family is then no longer absent.
    const same = entries.findIndex((e) => (e.state === 'found' || e.state === 'broken') && e.name === x.name);
    if (same >= 0) entries.splice(same, 1);
    const absent = entries.findIndex((e) => e.state === 'absent' && e.family === x.family);
    if (absent >= 0 && entry.state === 'found') entries.splice(absent, 1);
    entries.push(entry);
  }
  return entries;
}
