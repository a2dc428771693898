// The one way tests run forklab's command line (through the real parser): every child gets a temporary HOME and
// FORKLAB_DB (no XDG_DATA_HOME), so no test reads or writes the user's history, and a time limit, so a hang fails
// one test instead of holding the suite.
// The children run the built command line, bin/forklab.js (dist/), when dist/ holds the current src/ (every
// src/**/*.ts older than its dist/**/*.js, scripts/built.mjs; `npm test` builds first), and otherwise the sources
// through tsx (test/fixtures/cli-entry.ts): the same main() either way, never a stale build. Through tsx a child
// costs about 2 s of CPU, from dist/ about 0.8 s. FORKLAB_TEST_CLI=source runs the sources whatever dist/ holds;
// FORKLAB_TEST_CLI=built requires a current dist/.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncOptions } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILDS, staleBuild } from '../../scripts/built.mjs';
import { tempDir } from './tmp.js';

const BUILT_ENTRY = fileURLToPath(new URL('../../bin/forklab.js', import.meta.url));
const SOURCE_ENTRY = fileURLToPath(new URL('../fixtures/cli-entry.ts', import.meta.url));

/** Node's arguments that start forklab: the built bin/forklab.js, or the sources through tsx (see above). */
function entryArgs(): string[] {
  const want = process.env.FORKLAB_TEST_CLI ?? '';
  if (!['', 'built', 'source'].includes(want)) throw new Error(`FORKLAB_TEST_CLI=${want}: expected built or source (or unset: built when dist/ is current)`);
  // tsx by absolute URL: the children run in the sandbox directory, where a bare `--import tsx` would not resolve.
  const source = ['--import', import.meta.resolve('tsx'), SOURCE_ENTRY];
  if (want === 'source') return source;
  const stale = staleBuild(BUILDS.forklab);
  if (stale === null) return [BUILT_ENTRY];
  if (want === 'built') throw new Error(`FORKLAB_TEST_CLI=built, but dist/ is not built from the current sources (${stale}): run npm run build`);
  return source;
}

/** The command that runs forklab: Node and its arguments, before forklab's own (see above for which entry). */
export const CLI_COMMAND: readonly [string, ...string[]] = [process.execPath, ...entryArgs()];

/** Default time limit of one CLI child. */
export const CLI_LIMIT_MS = 120_000;

export interface Sandbox {
  dir: string;
  home: string;
  db: string;
  env: NodeJS.ProcessEnv;
}

/** A temporary directory with a HOME and a database path, and the environment that points the CLI at them. */
export function sandbox(base: NodeJS.ProcessEnv = process.env): Sandbox {
  const dir = tempDir('forklab-test-');
  const home = join(dir, 'home');
  mkdirSync(home);
  const db = join(dir, 'history.db');
  const env: NodeJS.ProcessEnv = { ...base, HOME: home, FORKLAB_DB: db, NO_COLOR: '1' };
  delete env.XDG_DATA_HOME;
  return { dir, home, db, env };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The arguments of a short spawn run of these methods and sizes: THP off, one probe process of 12 rounds, no early stop; then `more`. */
export function shortSpawnArgs(methods: string, rss: string, ...more: string[]): string[] {
  return ['spawn', '--methods', methods, '--rss', rss, '--thp', 'off', '--repeats', '1', '--iterations', '12', '--ci-target', '0', ...more];
}

/** Runs `forklab ARGS` to its end (SIGKILL at the limit: the result then has signal 'SIGKILL'). */
export function runCli(box: Sandbox, args: string[], o: { limitMs?: number; input?: string; env?: NodeJS.ProcessEnv; spawnOptions?: SpawnSyncOptions } = {}): CliResult {
  const r = spawnSync(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), ...args], {
    encoding: 'utf8',
    env: { ...box.env, ...o.env },
    cwd: box.dir,
    timeout: o.limitMs ?? CLI_LIMIT_MS,
    killSignal: 'SIGKILL',
    ...(o.input !== undefined ? { input: o.input } : {}),
    ...o.spawnOptions,
  });
  return { code: r.status, signal: r.signal, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

export interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal) and the signal; SIGKILL at the limit. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `forklab ARGS` in the background, with a time limit (SIGKILL) like runCli. */
export function startCli(box: Sandbox, args: string[], o: { limitMs?: number } = {}): RunningCli {
  const child = spawn(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), ...args], { env: box.env, cwd: box.dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), o.limitMs ?? CLI_LIMIT_MS);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal });
    }),
  );
  return { child, stdout: () => out, stderr: () => err, done };
}

/** Polls until check() returns a value (not undefined/false), or throws after limitMs. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, limitMs = 60_000, everyMs = 25): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
