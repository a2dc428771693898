// Runs campaign cases: each in fresh processes, through node:child_process in a process where register is not
// loaded (the reference) and through the module under test (its exports; and node:child_process under
// register.js, by absolute path), with a hard time limit per process and its whole process group killed after.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { differences, normalise } from './compare.mjs';

const RUNNER = fileURLToPath(new URL('./runner.mjs', import.meta.url));
const NOOP = fileURLToPath(new URL('./noop.mjs', import.meta.url));
export const PROCESS_LIMIT_MS = 20_000;

/** Node's flags for the case's state on this Node. */
function nodeFlags(kase, major, registerPath, mode) {
  const f = [];
  if (kase.state.gc) f.push('--expose-gc');
  const p = kase.state.permission;
  if (p) {
    f.push(major >= 22 ? '--permission' : '--experimental-permission', '--allow-fs-read=*', '--allow-fs-write=*', '--allow-addons', '--allow-worker');
    if (major >= 25) f.push('--allow-net');
    if (p === 'allow') f.push('--allow-child-process');
  }
  if (mode === 'register') f.push('--import', registerPath);
  if (mode === 'refImport') f.push('--import', NOOP);
  return f;
}

/** One run of a case in a fresh process: its observation, normalised. */
export function runOnce(kase, mode, cfg) {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-fuzz-'));
  chmodSync(dir, 0o755); // a child run as another uid (opts.uid) can reach its scripts
  const caseFile = join(dir, 'case.json');
  writeFileSync(caseFile, JSON.stringify(kase));
  const argv = [...nodeFlags(kase, cfg.major, cfg.register, mode), RUNNER, caseFile, dir, mode, cfg.module];
  const env = { PATH: `${join(dir, 'empty')}:${join(dir, 'bin')}:/usr/local/bin:/usr/bin:/bin`, HOME: dir, LANG: 'C', TMPDIR: dir };
  // under the permission model the package ignores FORKLAB_SPAWN_ADDON, and says so: its own addon is loaded
  if (cfg.addon && !kase.state.permission) env.FORKLAB_SPAWN_ADDON = cfg.addon;
  const [file, args] = kase.state.nofile ? ['/bin/sh', ['-c', `ulimit -n ${kase.state.nofile} && exec "$0" "$@"`, cfg.node, ...argv]] : [cfg.node, argv];
  return new Promise((resolve) => {
    const c = spawn(file, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    c.stdout.on('data', (d) => out.push(d));
    c.stderr.on('data', (d) => err.push(d));
    const killGroup = () => {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {}
    };
    const limit = setTimeout(killGroup, PROCESS_LIMIT_MS);
    c.on('close', (status, signal) => {
      clearTimeout(limit);
      killGroup(); // what the child left behind in its group (a background sleeper)
      let result;
      try {
        result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
      } catch {
        result = { noResult: true };
      }
      const obs = { ...result, status: signal ?? status, stdout: Buffer.concat(out).toString('latin1'), stderr: Buffer.concat(err).toString('latin1') };
      rmSync(dir, { recursive: true, force: true });
      resolve(normalise(obs, dir, mode === 'register' ? cfg.register : mode === 'refImport' ? NOOP : null, kase));
    });
  });
}

/** The subjects a case is run through: the module's exports, and register when there is one. */
export function subjects(cfg) {
  return cfg.register ? ['module', 'register'] : ['module'];
}

/** A case through the reference and every subject; on a difference, each is run twice more, and only the
 * fields where no subject run agrees with any reference run are reported. */
export async function runCase(kase, cfg) {
  const modes = subjects(cfg);
  // the reference for register: a forked child inherits --import, so when the case forks the reference has one too
  const refOf = (m) => (m === 'register' && kase.fn === 'fork' ? 'refImport' : 'ref');
  const refModes = [...new Set(modes.map(refOf))];
  const all = await Promise.all([...refModes, ...modes].map((m) => runOnce(kase, m, cfg)));
  const ref = new Map(refModes.map((m, i) => [m, all[i]]));
  const found = [];
  for (let i = 0; i < modes.length; i++) {
    const r0 = ref.get(refOf(modes[i]));
    const s0 = all[refModes.length + i];
    if (differences([r0], [s0]).length === 0) continue;
    const refs = [r0];
    const subs = [s0];
    for (let k = 0; k < 2; k++) {
      const [a, b] = await Promise.all([runOnce(kase, refOf(modes[i]), cfg), runOnce(kase, modes[i], cfg)]);
      refs.push(a);
      subs.push(b);
    }
    const d = differences(refs, subs);
    if (d.length) found.push({ subject: modes[i], differences: d });
  }
  return found;
}
