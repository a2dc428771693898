// Finds the runtimes on this machine (where: each family's candidate finder) and those given with --runtime
// NAME=PATH, and reads each one's version by running it (its family's version probe). Absent runtimes are
// listed with the command that adds them, never an error.
import { setMaxListeners } from 'node:events';
import { runCommand } from '../../runner/command.js';
import { type Candidate, type Origin, runtimeCacheDir } from './locations.js';
import { FAMILIES, familySpec, type Family, type FamilySpec } from './registry.js';
import type { Probe } from './spec.js';

export { isExecutable, which } from './locations.js';

export interface FoundRuntime {
  state: 'found';
  /** Unique short name: node20, python3.13, java25, perl5.36, go1.19, or the name given with --runtime. */
  name: string;
  family: Family;
  /** The real executable (symlinks and pyenv shims resolved); for a family with a compiled driver (Go, Rust), the compiler. */
  path: string;
  version: string;
  /** Run by default (or asked for); the others are listed with the flag that adds them. */
  selected: boolean;
  origin: Origin;
  /** Cases its driver cannot run here, with why (forklab/spawn not importable, say). */
  unavailable: Record<string, string>;
  /** A compiled driver (Go, Rust): the one built with this compiler (set by the run, before anything starts). */
  built?: string;
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
  /** forklab's runtime cache (default: runtimeCacheDir(env)). */
  cacheDir?: string | null;
  /** Where node_modules/.bin is looked for (default: the working directory). */
  cwd?: string;
  /** Only these families are looked for (--runtimes naming only them); default: every family. */
  families?: readonly Family[];
  signal?: AbortSignal;
}

const VERSION_TIMEOUT_MS = 30_000;

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

/** Runs the executable, as its family's spec says, to learn its version. */
function probeRuntime(family: Family, exe: string, signal?: AbortSignal): Promise<Probe> {
  return familySpec(family).probe(exe, (file, args) => runCommand(file, args, { timeoutMs: VERSION_TIMEOUT_MS, ...(signal ? { signal } : {}) }));
}

/** node20, python3.13, go1.19, bun1: the part of the version a user names a release line by. */
function shortName(family: Family, version: string): string {
  return `${family}${version.split('.').slice(0, familySpec(family).nameParts).join('.')}`;
}

/**
 * One family's executables, each run once. Selected by default: the one a user gets by typing its name and
 * the newest found — or, for a family that selects each line (Node), one per release line (the preferred one where it is of that line, else
 * the newest). The others are listed, not run.
 */
async function discoverMany(family: Family, cands: readonly Candidate[], signal?: AbortSignal): Promise<RuntimeEntry[]> {
  const probed = await Promise.all(cands.map(async (c) => ({ c, p: await probeRuntime(family, c.path, signal) })));
  const byPath = new Map<string, FoundRuntime & { preferred: boolean }>();
  const broken: RuntimeEntry[] = [];
  for (const { c, p } of probed) {
    if ('why' in p) {
      // A version manager's or the cache's copy that does not run is worth saying; PATH's shims of inactive versions are not.
      if (c.origin === 'cache' || c.origin === 'this-node') broken.push({ state: 'broken', name: family, family, path: c.path, why: p.why });
      continue;
    }
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
  if (found.length === 0) return broken.length ? broken : [{ state: 'absent', family, install: familySpec(family).install }];
  if (familySpec(family).selectEachLine) {
    for (const line of new Set(found.map((f) => shortName(family, f.version)))) {
      const mine = found.filter((f) => shortName(family, f.version) === line);
      (mine.find((f) => f.preferred) ?? mine[mine.length - 1]!).selected = true;
    }
  } else {
    const preferred = found.find((f) => f.preferred);
    if (preferred) preferred.selected = true;
    found[found.length - 1]!.selected = true;
  }
  // Selected runtimes get the plain names; a second 3.11 elsewhere becomes python3.11-2.
  const names = new Set<string>();
  for (const f of [...found.filter((x) => x.selected), ...found.filter((x) => !x.selected)]) {
    let n = shortName(family, f.version);
    for (let i = 2; names.has(n); i++) n = `${shortName(family, f.version)}-${i}`;
    names.add(n);
    f.name = n;
  }
  return [...found.map(({ preferred: _, ...f }) => f), ...broken];
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

function candidatesOf(spec: FamilySpec<Family>, o: DiscoverOptions, env: NodeJS.ProcessEnv): Candidate[] {
  const cacheDir = o.cacheDir === undefined ? runtimeCacheDir(env) : o.cacheDir;
  return spec.candidates({ env, cacheDir, jvmDir: o.jvmDir ?? '/usr/lib/jvm', cwd: o.cwd ?? process.cwd(), thisNode: process.execPath });
}

async function discoverAll(o: DiscoverOptions, env: NodeJS.ProcessEnv): Promise<RuntimeEntry[]> {
  const groups = await Promise.all(
    FAMILIES.filter((spec) => !o.families || o.families.includes(spec.family)).map(async (spec): Promise<RuntimeEntry[]> => {
      const cands = candidatesOf(spec, o, env);
      if (spec.variants.length === 0) {
        const first = cands[0];
        return [first ? { state: 'no-driver', family: spec.family, path: first.path } : { state: 'absent', family: spec.family, install: spec.install }];
      }
      return discoverMany(spec.family, cands, o.signal);
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
