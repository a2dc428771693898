// The compiled drivers (a family spec's `build`: drivers/go/main.go, drivers/rust/main.rs): built once per
// compiler version and driver source into forklab's cache (<cache>/drivers/FAMILY-VERSION-HASH/forklab-driver)
// with the machine's own compiler, then reused. Nothing is downloaded: each uses its standard library only.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../../runner/command.js';
import { FORKLAB_VERSION as VERSION } from '../../version.js';
import { isExecutable } from './locations.js';
import { DRIVERS_DIR, familySpec, type Family } from './registry.js';
import type { CompiledDriver } from './spec.js';

export type BuildResult = { state: 'built' | 'cached'; path: string } | { state: 'failed'; why: string };

const BUILD_TIMEOUT_MS = 300_000;

/** Where the driver for this compiler and this source lives in the cache. */
function builtDriverPath(family: Family, b: CompiledDriver, version: string, cacheRoot: string): string {
  const source = readFileSync(join(DRIVERS_DIR, b.source));
  const hash = createHash('sha256').update(source).update(`\0${VERSION}\0${version}`).digest('hex').slice(0, 12);
  return join(cacheRoot, 'drivers', `${family}-${version}-${hash}`, 'forklab-driver');
}

/** Builds the family's compiled driver with `compiler` (of `version`), or finds it built. */
export async function buildDriver(
  family: Family,
  compiler: string,
  version: string,
  cacheRoot: string,
  o: { note(message: string): void; signal?: AbortSignal },
): Promise<BuildResult> {
  const b = familySpec(family).build;
  if (!b) return { state: 'failed', why: `${family} has no compiled driver` };
  const dest = builtDriverPath(family, b, version, cacheRoot);
  if (isExecutable(dest)) return { state: 'cached', path: dest };
  const dir = join(dest, '..');
  mkdirSync(join(cacheRoot, 'drivers'), { recursive: true });
  // Built beside its place, then renamed in: an interrupted build leaves nothing that looks finished.
  const work = mkdtempSync(join(cacheRoot, 'drivers', `.${family}-build-`));
  try {
    const out = join(work, 'forklab-driver');
    const cmd = b.command({ source: join(DRIVERS_DIR, b.source), out, work, version, forklabVersion: VERSION });
    o.note(`building the ${b.language} driver once with ${compiler} ${b.shownArgs} into ${dir}`);
    const r = await runCommand(compiler, cmd.args, { timeoutMs: BUILD_TIMEOUT_MS, env: cmd.env, ...(o.signal ? { signal: o.signal } : {}) });
    if (r.state === 'failed') return { state: 'failed', why: `${b.tool}: ${r.why}` };
    if (!isExecutable(out)) return { state: 'failed', why: `${b.tool} wrote no executable` };
    mkdirSync(dir, { recursive: true });
    renameSync(out, dest);
    return { state: 'built', path: dest };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
