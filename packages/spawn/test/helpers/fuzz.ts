// Runs the differential campaign (scripts/fuzz-spawn.mjs) as npm run fuzz:spawn does, in a process of its own
// with a time limit, its cases' temporary directories under this test file's own.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers/tmp.js';
import { pkgDir } from './addon.js';

export const FUZZ = join(pkgDir, 'scripts', 'fuzz-spawn.mjs');

export interface FuzzRun {
  status: number | null;
  out: string;
}

export function fuzz(args: string[], limitMs: number): Promise<FuzzRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', TMPDIR: tempDir('forklab-fuzz-test-') };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [FUZZ, ...args], { cwd: join(pkgDir, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (out += d));
    const limit = setTimeout(() => c.kill('SIGKILL'), limitMs);
    c.on('close', (status) => {
      clearTimeout(limit);
      resolve({ status, out });
    });
  });
}

/** The newest node-MAJOR.* under $FORKLAB_TEST_RUNTIMES, as runtimes.test.ts finds it, or null. */
export function runtime(major: number): string | null {
  const root = process.env.FORKLAB_TEST_RUNTIMES;
  if (!root || !existsSync(root)) return null;
  const dirs = readdirSync(root)
    .filter((d) => d.startsWith(`node-${major}.`) && existsSync(join(root, d, 'bin', 'node')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const last = dirs.at(-1);
  return last ? join(root, last, 'bin', 'node') : null;
}

/** Runs tasks two at a time (most of a case's time is spent waiting on children). */
export function twoAtATime<T>(tasks: (() => Promise<T>)[]): Promise<T>[] {
  const slots = [Promise.resolve(), Promise.resolve()];
  return tasks.map((t, i) => {
    const slot = i % 2;
    const p = (slots[slot] as Promise<unknown>).then(t);
    slots[slot] = p.then(() => undefined);
    return p;
  });
}
