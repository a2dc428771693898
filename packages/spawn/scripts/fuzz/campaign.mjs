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

/** A flood step writes for a time, not a number of lines: runs of its lines are compared as present, and so are
 * runs of one line written between them, each time the same (a shell's "echo: I/O error" on stderr for every
 * line it could not write to a stdout the child closed first: Node 22, seed 20261209). */
export function floodLines(o) {
  const text = JSON.stringify(o)
    .replace(/q{8,}(?:(?:\\n)+q*)*/g, '<flood stdout lines>')
    .replace(/j{8,}(?:(?:\\n)+j*)*/g, '<flood stderr lines>')
    .replace(/((?:(?!<flood )[^"])*?<flood (?:stdout|stderr) lines>)\1+/g, '$1');
  return JSON.parse(text);
}

/** What a child wrote before a kill at its start is compared as this: see killedAtStart. */
export const WRITTEN_BEFORE_THE_KILL = '<what the child wrote before it was killed at its start>';

/** A call whose AbortSignal was aborted before it: Node starts the child and kills it at once, so how much the
 * child wrote first depends on timing, in child_process too (Node 26, seed 20261211: two lines of its output, one,
 * or none). Its output, wherever the observation holds it (the streams, exec's callback and its error), is one
 * value; the events, the error, the exit and everything else are compared as they are. */
export function killedAtStart(o) {
  const out = structuredClone(o);
  for (const k of ['stdout', 'stderr']) if (out.streams && typeof out.streams[k] === 'string') out.streams[k] = WRITTEN_BEFORE_THE_KILL;
  if (Array.isArray(out.callback)) {
    for (const i of [1, 2]) if (out.callback[i] !== null && out.callback[i] !== undefined) out.callback[i] = WRITTEN_BEFORE_THE_KILL;
    const e = out.callback[0];
    if (e && typeof e === 'object') for (const k of ['stdout', 'stderr']) if (k in e) e[k] = WRITTEN_BEFORE_THE_KILL;
  }
  return out;
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
      const o = normalise(obs, dir, mode === 'register' ? cfg.register : mode === 'refImport' ? NOOP : null);
      const flooded = kase.steps.some((s) => 'flood' in s) ? floodLines(o) : o;
      resolve(kase.opts.signal === 'abortedBefore' ? killedAtStart(flooded) : flooded);
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
