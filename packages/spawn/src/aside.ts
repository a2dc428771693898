// Whether this Node's own child_process still forks. libuv starts children with posix_spawn on Linux from its
// PR #3520 on, merged on its v1.x branch on 2026-03-25 after release 1.52.1 (that branch's version.h reads
// 1.52.2-dev): a Node whose process.versions.uv is above 1.52.1 gets what forklab gives from child_process
// itself, and forklab steps aside there: its functions are child_process's own and register installs nothing.
// FORKLAB_SPAWN_NODE_MECHANISM=fork or =posix_spawn says it instead, for a Node whose libuv is patched, or to
// keep forklab (pidfd reaping, no fallback to fork for uid-less calls with a cwd on old glibc).

export const MECHANISM_VARIABLE = 'FORKLAB_SPAWN_NODE_MECHANISM';

/** The last libuv release whose unix uv_spawn forks on Linux. */
export const LAST_FORKING_UV: readonly [number, number, number] = [1, 52, 1];

export type NodeMechanism = 'fork' | 'posix_spawn';

export interface MechanismVerdict {
  mechanism: NodeMechanism;
  /** how it was decided: the libuv version, or the variable */
  why: string;
  /** a value of the variable that was not understood (then the version decides) */
  warning: string | null;
}

/** [major, minor, patch] of a libuv version string ('1.52.2-dev' is [1, 52, 2]); null when unreadable. */
export function parseUvVersion(v: unknown): [number, number, number] | null {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)\.(\d+)/.exec(v) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function after(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) > (b[i] as number);
  return false;
}

export function nodeMechanism(env: NodeJS.ProcessEnv = process.env, uv: unknown = process.versions.uv): MechanismVerdict {
  const set = env[MECHANISM_VARIABLE];
  let warning: string | null = null;
  if (set === 'fork' || set === 'posix_spawn') return { mechanism: set, why: `${MECHANISM_VARIABLE}=${set}`, warning };
  if (set !== undefined && set !== '') {
    warning = `${MECHANISM_VARIABLE}=${JSON.stringify(set)} is not understood (fork or posix_spawn); libuv's version decides`;
  }
  const version = parseUvVersion(uv);
  if (version && after(version, LAST_FORKING_UV)) {
    return { mechanism: 'posix_spawn', why: `libuv ${String(uv)} (after ${LAST_FORKING_UV.join('.')}: libuv PR #3520)`, warning };
  }
  return { mechanism: 'fork', why: version ? `libuv ${String(uv)}` : `libuv version unknown (${String(uv)})`, warning };
}

/** Why forklab serves nothing in this process because Node does not fork (null: it serves). */
export function stepAsideReason(verdict: MechanismVerdict = nodeMechanism()): string | null {
  if (verdict.mechanism !== 'posix_spawn') return null;
  return `node spawns with posix_spawn: ${verdict.why}; forklab steps aside (${MECHANISM_VARIABLE}=fork keeps it)`;
}
