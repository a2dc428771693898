// `forklab runtimes --fetch node@24,bun,deno`: installs a runtime's binary from the npm registry into forklab's
// cache (NAME-VERSION/bin/EXE, the layout discovery reads), with the machine's own npm (`npm view` for the
// version, `npm pack` for the tarball) — only when asked, and every step said on the way.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCommand } from '../../runner/command.js';
import { UsageError } from '../../errors.js';
import { isExecutable, which } from './locations.js';
import { FAMILIES, familySpec, orList, type Family } from './registry.js';

export interface FetchSpec {
  /** A family whose spec names its npm package. */
  family: Family;
  /** A major (24), a full version (24.22.3) or null (the registry's latest). */
  version: string | null;
  /** As the user wrote it: node@24. */
  label: string;
}

export type FetchResult = { state: 'fetched' | 'cached'; spec: FetchSpec; pkg: string; version: string; path: string } | { state: 'failed'; spec: FetchSpec; why: string };

/** The families whose binary the npm registry carries (node, bun, deno). */
const FETCHABLE: readonly Family[] = FAMILIES.filter((f) => f.npm).map((f) => f.family);
const [FIRST = '', ...REST] = FETCHABLE;

/** What --fetch accepts, as its help says it. */
export const FETCH_FORMS = `${FIRST}@MAJOR or ${FIRST}@VERSION, ${REST.join(', ')}`;

export function parseFetchSpecs(raw: string | undefined): FetchSpec[] {
  if (raw === undefined) return [];
  const out: FetchSpec[] = [];
  for (const label of raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x)) {
    const m = /^([a-z]+)(?:@(\d+(?:\.\d+){0,2}))?$/.exec(label);
    const family = FETCHABLE.find((f) => f === m?.[1]);
    if (!m || !family)
      throw new UsageError('--fetch', `${JSON.stringify(label)}: expected ${orList([`${FIRST}@MAJOR`, `${FIRST}@VERSION`, ...REST])} (a version after @ is allowed for each)`);
    if (out.some((x) => x.label === label)) throw new UsageError('--fetch', `${label} is given twice`);
    out.push({ family, version: m[2] ?? null, label });
  }
  if (raw.trim() !== '' && out.length === 0) throw new UsageError('--fetch', `expected ${orList([`${FIRST}@MAJOR`, ...REST])}`);
  return out;
}

/** The npm package that carries the binary for this machine, and where the binary is inside it. */
export function packageFor(family: Family, arch: string = process.arch): { pkg: string; exe: string } | null {
  const a = arch === 'x64' ? 'x64' : arch === 'arm64' ? 'arm64' : null;
  const npm = familySpec(family).npm;
  return a && npm ? npm(a) : null;
}

/** The npm to use: next to the Node running forklab, else on PATH. */
function findNpm(env: NodeJS.ProcessEnv = process.env): string | null {
  const near = join(dirname(process.execPath), 'npm');
  return isExecutable(near) ? near : which('npm', env);
}

const NPM_TIMEOUT_MS = 300_000;

/** The highest version of `pkg` that `range` names, from `npm view --json` (one version or an array of them). */
export function highestVersion(json: string): string | null {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return null;
  }
  const all = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && /^\d+\.\d+\.\d+$/.test(x));
  const num = (s: string) => s.split('.').map(Number);
  all.sort((a, b) => {
    const [x, y] = [num(a), num(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
  return all.length ? all[all.length - 1]! : null;
}

export async function fetchRuntime(spec: FetchSpec, cacheDir: string, o: { note(message: string): void; signal?: AbortSignal; npm?: string | null }): Promise<FetchResult> {
  const where = packageFor(spec.family);
  if (!where) return { state: 'failed', spec, why: `no ${spec.family} binary on the npm registry for ${process.arch}` };
  const npm = o.npm === undefined ? findNpm() : o.npm;
  if (!npm) return { state: 'failed', spec, why: 'npm was not found (next to this node or on PATH)' };
  const sig = o.signal ? { signal: o.signal } : {};
  const wanted = `${where.pkg}@${spec.version ?? 'latest'}`;
  o.note(`--fetch ${spec.label}: asking the npm registry for ${wanted} (npm view)`);
  const view = await runCommand(npm, ['view', wanted, 'version', '--json'], { timeoutMs: NPM_TIMEOUT_MS, ...sig });
  if (view.state === 'failed') return { state: 'failed', spec, why: `npm view ${wanted}: ${view.why}` };
  const version = highestVersion(view.stdout);
  if (!version) return { state: 'failed', spec, why: `npm view ${wanted} named no version` };
  const dir = join(cacheDir, `${spec.family}-${version}`);
  const exe = join(dir, 'bin', where.exe);
  if (isExecutable(exe)) {
    o.note(`--fetch ${spec.label}: ${spec.family} ${version} is already in ${dir}`);
    return { state: 'cached', spec, pkg: where.pkg, version, path: exe };
  }
  const tmp = mkdtempSync(join(tmpdir(), 'forklab-fetch-'));
  try {
    o.note(`--fetch ${spec.label}: downloading ${where.pkg}@${version} from the npm registry (npm pack) into ${dir}`);
    const pack = await runCommand(npm, ['pack', `${where.pkg}@${version}`, '--json', '--pack-destination', tmp], { timeoutMs: NPM_TIMEOUT_MS, ...sig });
    if (pack.state === 'failed') return { state: 'failed', spec, why: `npm pack ${where.pkg}@${version}: ${pack.why}` };
    let file: string | undefined;
    try {
      file = (JSON.parse(pack.stdout) as { filename?: string }[])[0]?.filename;
    } catch {
      /* below */
    }
    if (!file || !existsSync(join(tmp, file))) return { state: 'failed', spec, why: `npm pack ${where.pkg}@${version} wrote no tarball` };
    const untar = await runCommand('tar', ['xzf', join(tmp, file), '-C', tmp], { timeoutMs: NPM_TIMEOUT_MS, ...sig });
    if (untar.state === 'failed') return { state: 'failed', spec, why: `tar: ${untar.why}` };
    const inside = [join(tmp, 'package', 'bin', where.exe), join(tmp, 'package', where.exe)].find((p) => existsSync(p));
    if (!inside) return { state: 'failed', spec, why: `${where.pkg}@${version} holds no ${where.exe} binary` };
    const pkgJson = JSON.parse(readFileSync(join(tmp, 'package', 'package.json'), 'utf8')) as { version?: string };
    if (pkgJson.version !== version) return { state: 'failed', spec, why: `npm pack gave ${where.pkg}@${pkgJson.version}, not ${version}` };
    // Written beside the cache, then renamed in: an interrupted fetch never leaves a half-written runtime.
    mkdirSync(cacheDir, { recursive: true });
    const partial = join(cacheDir, `.${spec.family}-${version}.partial-${process.pid}`);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(join(partial, 'bin'), { recursive: true });
    copyFileSync(inside, join(partial, 'bin', where.exe));
    chmodSync(join(partial, 'bin', where.exe), 0o755);
    renameSync(partial, dir);
    o.note(`--fetch ${spec.label}: installed ${exe}`);
    return { state: 'fetched', spec, pkg: where.pkg, version, path: exe };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
