// Whether this Node's own child_process still forks, and for which calls. libuv starts children with posix_spawn
// on Linux from its PR #3520 on (commit 40d45efe, merged on its v1.x branch on 2026-03-25), first released in
// libuv 1.53.0 (2026-09-24); its v1.x branch read 1.52.2-dev from 2026-03-06 on, so a Node on 1.52.2-dev may
// have it or not. On libuv >= 1.53 (its unix/process.c), Linux still forks for uid and gid, for a cwd where the C
// library has no posix_spawn_file_actions_addchdir(_np) (looked up at run time: glibc < 2.29), for detached where
// libuv was compiled without POSIX_SPAWN_SETSID (glibc headers < 2.26), and for every call when its one-time vfork
// probe fails (CPU emulation such as QEMU user, WSL1). So on any libuv after 1.52.1 the mechanism itself is looked
// at, once, when the package loads: a spawn through Node's own spawnSync of a path that cannot be executed, plain
// and detached; one that calls fork() runs the pthread_atfork handler the addon registers (posix_spawn, vfork and
// clone never do). A plain spawn that forks: Node forks (forklab serves every call). Only a detached one that
// forks: forklab serves the detached calls (with POSIX_SPAWN_SETSID where the C library has it) and Node the
// others. Neither: forklab steps aside for the whole process (its functions are child_process's own, register
// installs nothing). uid and gid, and a cwd without addchdir, are the same for forklab (Node's handle), and where
// the vfork probe fails forklab's own load probe fails too (no addon): Node serves them either way. When nothing
// can be looked at (no addon, no right to start children), libuv's version decides: 1.53.0 and later spawn with
// posix_spawn, 1.52.2-dev is taken to fork.
// FORKLAB_SPAWN_NODE_MECHANISM=fork or =posix_spawn says it instead, for a Node whose libuv is patched, or to
// keep forklab (pidfd reaping) everywhere.
import childProcess from 'node:child_process';
import { native } from './native.js';
import { type MechanismVerdict, shared } from './state.js';

export const MECHANISM_VARIABLE = 'FORKLAB_SPAWN_NODE_MECHANISM';

/** The first libuv release whose unix uv_spawn uses posix_spawn on Linux. */
export const FIRST_POSIX_SPAWN_UV: readonly [number, number, number] = [1, 53, 0];
/** The last libuv release whose unix uv_spawn always forks on Linux; between the two, a development build. */
export const LAST_FORKING_UV: readonly [number, number, number] = [1, 52, 1];

export type { MechanismVerdict, NodeMechanism } from './state.js';

/** What is looked at on this machine (replaced in tests). */
export interface MechanismLook {
  /** whether a spawn (detached or not) through Node's own child_process calls fork(): null when that cannot be told */
  nodeForks(detached: boolean): boolean | null;
}

/** [major, minor, patch] of a libuv version string ('1.52.2-dev' is [1, 52, 2]); null when unreadable. */
export function parseUvVersion(v: unknown): [number, number, number] | null {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)\.(\d+)/.exec(v) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

const spawnSyncOfNode = childProcess.spawnSync;

/** One spawn of a path that cannot be executed, through Node's own spawnSync: under fork, libuv forks and the child
 * fails its exec; under posix_spawn, posix_spawn returns ENOTDIR and nothing is started. */
function nodeForks(detached: boolean): boolean | null {
  try {
    const addon = native();
    if (typeof addon.forks !== 'function') return null;
    const before = addon.forks();
    // (Node's spawnSync reads detached, which its types leave out)
    const options = { stdio: 'ignore', detached, timeout: 10_000 } as childProcess.SpawnSyncOptions;
    const r = spawnSyncOfNode('/dev/null/forklab-spawn-mechanism-probe', [], options);
    if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ERR_ACCESS_DENIED') return null;
    return addon.forks() > before;
  } catch {
    return null; // no addon, or no right to start children: nothing forklab could serve either
  }
}

const machineLook: MechanismLook = { nodeForks };

function decide(env: NodeJS.ProcessEnv, uv: unknown, look: MechanismLook): MechanismVerdict {
  const set = env[MECHANISM_VARIABLE];
  let warning: string | null = null;
  if (set === 'fork' || set === 'posix_spawn') return { mechanism: set, why: `${MECHANISM_VARIABLE}=${set}`, warning, served: [] };
  if (set !== undefined && set !== '') {
    warning = `${MECHANISM_VARIABLE}=${JSON.stringify(set)} is not understood (fork or posix_spawn); libuv's version decides`;
  }
  const version = parseUvVersion(uv);
  if (!version) return { mechanism: 'fork', why: `libuv version unknown (${String(uv)})`, warning, served: [] };
  if (compare(version, LAST_FORKING_UV) <= 0) return { mechanism: 'fork', why: `libuv ${String(uv)}`, warning, served: [] };
  const released = compare(version, FIRST_POSIX_SPAWN_UV) >= 0;
  const plain = look.nodeForks(false);
  if (plain === true) return { mechanism: 'fork', why: `libuv ${String(uv)}: a spawn through Node called fork()`, warning, served: [] };
  if (plain === null) {
    if (released) return { mechanism: 'posix_spawn', why: `libuv ${String(uv)} (${FIRST_POSIX_SPAWN_UV.join('.')} or later: libuv PR #3520)`, warning, served: [] };
    return { mechanism: 'fork', why: `libuv ${String(uv)}, a development build from before or after libuv PR #3520: not looked at, taken as fork`, warning, served: [] };
  }
  const detached = look.nodeForks(true) === true;
  const seen = detached ? 'a spawn through Node did not call fork(), a detached one did' : 'a spawn through Node did not call fork()';
  return { mechanism: 'posix_spawn', why: `libuv ${String(uv)}: ${seen}`, warning, served: detached ? ['detached'] : [] };
}

export function nodeMechanism(env: NodeJS.ProcessEnv = process.env, uv: unknown = process.versions.uv, look: MechanismLook = machineLook): MechanismVerdict {
  if (look !== machineLook) return decide(env, uv, look);
  // on this machine, once per thread (the look at the mechanism is a spawn): shared by every copy of the package
  const verdicts = shared.mechanism.verdicts;
  const key = `${env[MECHANISM_VARIABLE] ?? ''}\0${String(uv)}`;
  let verdict = verdicts.get(key);
  if (!verdict) {
    verdict = decide(env, uv, look);
    verdicts.set(key, verdict);
  }
  return { ...verdict, served: [...verdict.served] };
}

let atLoad: MechanismVerdict | undefined;
/** This process's verdict, as decided when the package first asked (when it loaded). */
export function processVerdict(): MechanismVerdict {
  atLoad ??= nodeMechanism();
  return atLoad;
}

/** Why forklab serves nothing in this process because Node does not fork for any call it could serve (null: it serves). */
export function stepAsideReason(verdict: MechanismVerdict = processVerdict()): string | null {
  if (verdict.mechanism !== 'posix_spawn' || verdict.served.length > 0) return null;
  return `node spawns with posix_spawn: ${verdict.why}; forklab steps aside (${MECHANISM_VARIABLE}=fork keeps it)`;
}

/** For one call on a Node that spawns with posix_spawn but forks for some calls forklab serves: why Node's own
 * handle serves this one (it does not fork for it, or forklab could not do better), or null. */
export function nodeSpawnsItself(call: { detached: boolean }, verdict: MechanismVerdict = processVerdict()): string | null {
  if (verdict.mechanism !== 'posix_spawn') return null;
  if (call.detached && verdict.served.includes('detached')) return null;
  return `node spawns with posix_spawn: ${verdict.why}`;
}
