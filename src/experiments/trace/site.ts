// What one call site is (callsites.ts groups the recorded calls into them) and the change that fits it (change.ts
// says which): the type both files share.
import type { Mechanism, Runtime } from './model.js';
import type { SiteFrame } from './stack.js';

export interface CallSite {
  /** "src/build.ts:42:7 spawn in collectChanges", or the innermost frame when no frame of the user's own is in the stack. */
  label: string;
  runtime: Runtime;
  /** recorded: a recorder saw the calls; native: strace -k's frames of a process without one. */
  source: 'recorded' | 'native';
  /** The first frame of the user's own code; null when the stack holds none (a dependency's callback). */
  own: SiteFrame | null;
  /** The innermost frame outside the runtime and @forklab/spawn: where the call was made. */
  at: SiteFrame | null;
  /** The dependency the call came from (node_modules/<pkg>, site-packages/<pkg>); null: the user's own code made it. */
  package: string | null;
  /** The named function the site's frame is in (an arrow function's enclosing one, in the same file); null when none. */
  function: string | null;
  /** The functions called (spawn, execFile, subprocess.Popen…) and the commands, most frequent first. */
  functions: { name: string; calls: number }[];
  commands: { command: string; calls: number }[];
  /** Calls recorded, and of them those joined with a creation strace saw. */
  calls: number;
  joined: number;
  byMechanism: Record<Mechanism, number>;
  /** Forks whose child never exec'd (workers): posix_spawn cannot replace them. */
  forksWithoutExec: number;
  /** Time in the creating calls (strace -T, the tracer's stops included), all and forks only. */
  inCallNs: number;
  inForkNs: number;
  /** The creators' RSS at the forks (MB): median and largest; null when none was sampled. */
  rssMb: { median: number; max: number } | null;
  /** The forks' saving as posix_spawn launches by this machine's model; null without a model. */
  savingNs: number | null;
  /** When @forklab/spawn was in the call: calls it started with posix_spawn, those that forked, and why (its fallback channel). */
  forklab: { calls: number; served: number; forked: number; reasons: Record<string, number> } | null;
  change: SiteChange;
  pids: number[];
}

export type SiteChange =
  | { kind: 'none'; why: string }
  | { kind: 'replace-call'; text: string }
  | { kind: 'switch-process'; text: string }
  | { kind: 'change-call'; text: string }
  | { kind: 'upgrade-dependency'; package: string; text: string }
  | { kind: 'fix-setup'; text: string };
