// The cost model: what a forking process would spend with a posix_spawn (vfork-style) start instead, from this
// machine's own `spawn` measurements (fork+exec and posix_spawn against the parent's RSS), and the concrete
// change for its runtime. Advice is given only where it applies: a process that forks.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { linearFit } from '../../stats/regression.js';
import type { ProcessFigures } from './figures.js';
import type { Runtime } from './model.js';

/** One measured point: median ns per launch (spawn + exec + wait) from a parent of rssMb. */
export interface ModelPoint {
  method: 'fork-exec' | 'posix-spawn';
  rssMb: number;
  medianNs: number;
}

export interface SpawnModel {
  /** Where the figures come from: a stored `spawn` run (its id), or a short run made for this trace. */
  source: { kind: 'stored'; runId: string; startedAt: string } | { kind: 'measured' };
  thp: string;
  points: ModelPoint[];
  fork: { interceptNs: number; nsPerMb: number };
  spawn: { interceptNs: number; nsPerMb: number };
}

/** A model from measured points: a least-squares line per method (at least two RSS values each); null otherwise. */
export function fitModel(source: SpawnModel['source'], thp: string, points: ModelPoint[]): SpawnModel | null {
  const line = (method: ModelPoint['method']) => {
    const ps = points.filter((p) => p.method === method);
    if (new Set(ps.map((p) => p.rssMb)).size < 2) return null;
    const f = linearFit(
      ps.map((p) => p.rssMb),
      ps.map((p) => p.medianNs),
    );
    return { interceptNs: f.intercept, nsPerMb: f.slope };
  };
  const fork = line('fork-exec');
  const spawn = line('posix-spawn');
  return fork && spawn ? { source, thp, points, fork, spawn } : null;
}

/** A launch's cost by the model's line for a method, from a parent of rssMb: never below its smallest measured point. */
export function launchNs(m: SpawnModel, method: ModelPoint['method'], rssMb: number): number {
  const floor = Math.min(...m.points.filter((p) => p.method === method).map((p) => p.medianNs));
  const line = method === 'fork-exec' ? m.fork : m.spawn;
  return Math.max(floor, line.interceptNs + line.nsPerMb * rssMb);
}

/** What one fork+exec launch from a parent of rssMb would save as a posix_spawn launch, by the model (never below 0). */
export function forkSavingNs(m: SpawnModel, rssMb: number): { withForkNs: number; withSpawnNs: number; savingNs: number } {
  const f = launchNs(m, 'fork-exec', rssMb);
  const s = launchNs(m, 'posix-spawn', rssMb);
  return { withForkNs: f, withSpawnNs: s, savingNs: Math.max(0, f - s) };
}

export interface Estimate {
  forks: number;
  /** Forks whose creator's RSS was sampled (the others are estimated at the process's median RSS). */
  forksWithRss: number;
  /** The time in the forking calls as traced (the tracer's stops included). */
  inForkNs: number;
  /**
   * The same launches (start, exec, wait) by this machine's model: with fork+exec and with posix_spawn, from
   * parents of the RSS each fork was made at. A fork costs more than its call: the child's exec tears the copied
   * page tables down, and the parent's next writes fault, so the saving is taken from whole launches.
   */
  withForkNs: number;
  withSpawnNs: number;
  /** Σ max(0, fork+exec − posix_spawn) over the forks. */
  savingNs: number;
  /** savingNs over the command's wall time (0–1); null without a wall time. */
  shareOfWall: number | null;
}

/** The estimate for one process's forks; null when it did not fork or its RSS was never sampled. */
export function estimate(p: ProcessFigures, m: SpawnModel, wallNs: number | null): Estimate | null {
  // Only forks followed by an exec: a worker that never execs cannot be started by posix_spawn.
  const forks = p.calls.filter((c) => c.mechanism === 'fork' && c.toExecNs !== null);
  if (!forks.length || !p.rssMb) return null;
  let withFork = 0;
  let withSpawn = 0;
  let saving = 0;
  let inFork = 0;
  for (const c of forks) {
    const one = forkSavingNs(m, c.rssKb === null ? p.rssMb.median : c.rssKb / 1024);
    withFork += one.withForkNs;
    withSpawn += one.withSpawnNs;
    saving += one.savingNs;
    inFork += c.durationNs ?? 0;
  }
  return {
    forks: forks.length,
    forksWithRss: forks.filter((c) => c.rssKb !== null).length,
    inForkNs: inFork,
    withForkNs: withFork,
    withSpawnNs: withSpawn,
    savingNs: saving,
    shareOfWall: wallNs && wallNs > 0 ? Math.min(1, saving / wallNs) : null,
  };
}

/** The change that makes this runtime start children without fork; null where none applies. */
export interface Advice {
  runtime: Runtime;
  change: string;
  why: string;
}

/**
 * The switch for a whole Node process. -r (--require) and not --import: a --require preload also runs in every
 * worker thread, an --import one does not (Node 20, 22 and 24: a worker's spawn then forks).
 */
export const NODE_SWITCH = `node -r ${registerPath()} (or NODE_OPTIONS=--require=${registerPath()}; in a project with @forklab/spawn installed: -r @forklab/spawn/register)`;

/**
 * The register module of this forklab by absolute path (lib/spawn-register.cjs of its package), so that the advice
 * works from wherever the user stands, with or without @forklab/spawn in their project.
 */
function registerPath(): string {
  const p = fileURLToPath(new URL('../../../lib/spawn-register.cjs', import.meta.url));
  return existsSync(p) ? p : '@forklab/spawn/register';
}

/** The concrete change for a process that forks and then execs, by runtime; null for one that does not (or whose forks are workers). */
export function adviceFor(p: Pick<ProcessFigures, 'byMechanism' | 'forksWithoutExec' | 'runtime'>): Advice | null {
  if (p.byMechanism.fork - p.forksWithoutExec <= 0) return null;
  switch (p.runtime) {
    case 'node':
      return {
        runtime: 'node',
        change: `${NODE_SWITCH}; or spawn/run from @forklab/spawn`,
        why: "Node's child_process forks on Linux; @forklab/spawn starts children with posix_spawn",
      };
    case 'python':
      return {
        runtime: 'python',
        change: 'drop preexec_fn (use start_new_session=, process_group=, user=/group= instead); keep close_fds at its default',
        why: 'subprocess forks when preexec_fn is set (and always before Python 3.10); without it, it uses vfork or posix_spawn',
      };
    case 'java':
      return {
        runtime: 'java',
        change: 'remove -Djdk.lang.Process.launchMechanism=FORK (the default POSIX_SPAWN, or VFORK, does not copy the heap)',
        why: 'ProcessBuilder forks only when launchMechanism=FORK',
      };
    case 'perl':
      return {
        runtime: 'perl',
        change: 'start children with POSIX::RT::Spawn or Proc::FastSpawn (posix_spawn) instead of fork/exec, system or backticks',
        why: "perl's system, exec-after-fork and backticks fork",
      };
    case 'shell':
      return { runtime: 'shell', change: 'nothing to change', why: 'a shell forks by design, and a shell is small: its forks stay cheap' };
    default:
      return null;
  }
}
