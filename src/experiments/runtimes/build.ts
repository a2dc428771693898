// The compiled drivers (drivers/go/main.go, drivers/rust/main.rs): built once per compiler version and driver
// source into forklab's cache (<cache>/drivers/FAMILY-VERSION-HASH/forklab-driver) with the machine's own
// `go build` or `rustc`, then reused. Nothing is downloaded: both use their standard library only.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../../runner/command.js';
import { FORKLAB_VERSION as VERSION } from '../../version.js';
import { isExecutable } from './locations.js';
import { DRIVERS_DIR } from './registry.js';

export type CompiledFamily = 'go' | 'rust';
export type BuildResult = { state: 'built' | 'cached'; path: string } | { state: 'failed'; why: string };

const DRIVER_SOURCES: Readonly<Record<CompiledFamily, string>> = { go: join('go', 'main.go'), rust: join('rust', 'main.rs') };
const BUILD_TIMEOUT_MS = 300_000;

/** Where the driver for this compiler and this source lives in the cache. */
function builtDriverPath(family: CompiledFamily, version: string, cacheRoot: string): string {
  const source = readFileSync(join(DRIVERS_DIR, DRIVER_SOURCES[family]));
  const hash = createHash('sha256').update(source).update(`\0${VERSION}\0${version}`).digest('hex').slice(0, 12);
  return join(cacheRoot, 'drivers', `${family}-${version}-${hash}`, 'forklab-driver');
}

function buildCommand(family: CompiledFamily, compiler: string, version: string, out: string, work: string): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const source = join(DRIVERS_DIR, DRIVER_SOURCES[family]);
  if (family === 'go')
    return {
      file: compiler,
      args: ['build', '-trimpath', '-ldflags', `-X main.driverVersion=${VERSION}`, '-o', out, source],
      // One file, the standard library only: no module, no proxy, no toolchain download, no cgo; its caches in ours.
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPROXY: 'off',
        GOTOOLCHAIN: 'local',
        CGO_ENABLED: '0',
        GOFLAGS: '',
        GOCACHE: join(work, 'go-build'),
        GOPATH: join(work, 'gopath'),
      },
    };
  return {
    file: compiler,
    args: ['-O', '--edition', '2021', '-o', out, source],
    env: { ...process.env, FORKLAB_DRIVER_VERSION: VERSION, FORKLAB_RUSTC_VERSION: version },
  };
}

export async function buildDriver(
  family: CompiledFamily,
  compiler: string,
  version: string,
  cacheRoot: string,
  o: { note(message: string): void; signal?: AbortSignal },
): Promise<BuildResult> {
  const dest = builtDriverPath(family, version, cacheRoot);
  if (isExecutable(dest)) return { state: 'cached', path: dest };
  const dir = join(dest, '..');
  mkdirSync(join(cacheRoot, 'drivers'), { recursive: true });
  // Built beside its place, then renamed in: an interrupted build leaves nothing that looks finished.
  const work = mkdtempSync(join(cacheRoot, 'drivers', `.${family}-build-`));
  try {
    const out = join(work, 'forklab-driver');
    const cmd = buildCommand(family, compiler, version, out, work);
    o.note(`building the ${family === 'go' ? 'Go' : 'Rust'} driver once with ${compiler} ${family === 'go' ? 'build' : '-O'} into ${dir}`);
    const r = await runCommand(cmd.file, cmd.args, { timeoutMs: BUILD_TIMEOUT_MS, env: cmd.env, ...(o.signal ? { signal: o.signal } : {}) });
    if (r.state === 'failed') return { state: 'failed', why: `${family === 'go' ? 'go build' : 'rustc'}: ${r.why}` };
    if (!isExecutable(out)) return { state: 'failed', why: `${family === 'go' ? 'go build' : 'rustc'} wrote no executable` };
    mkdirSync(dir, { recursive: true });
    renameSync(out, dest);
    return { state: 'built', path: dest };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
