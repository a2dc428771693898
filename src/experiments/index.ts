// The registry: the one list of the experiments forklab knows, in the order of the articles. Everything
// else that needs to know the experiments (commands, reports, `show`, `compare`, `reproduce`, the tests)
// reads it from here.
import type { Experiment, RawOptions } from './types.js';
import { spawnExperiment } from './spawn.js';
import { cowExperiment } from './cow.js';
import { createExperiment } from './create.js';
import { execExperiment } from './exec.js';
import { pagetablesExperiment } from './pagetables.js';
import { vmaExperiment } from './vma.js';
import { deadlockExperiment } from './deadlock.js';
import { runtimesExperiment } from './runtimes.js';
import { traceExperiment } from './trace/index.js';

// biome-ignore lint/suspicious/noExplicitAny: the registry holds experiments of every parameter and summary type
export type AnyExperiment = Experiment<any, any>;

export const EXPERIMENTS: readonly AnyExperiment[] = [
  spawnExperiment,
  cowExperiment,
  createExperiment,
  execExperiment,
  pagetablesExperiment,
  vmaExperiment,
  deadlockExperiment,
  runtimesExperiment,
];

export const EXPERIMENT_NAMES: readonly string[] = EXPERIMENTS.map((e) => e.name);

/**
 * Kinds of run with a command of their own (not a sweep of probe configurations) that are stored, shown and
 * reported like an experiment's: `forklab trace`. Not in EXPERIMENTS, so no experiment command or reproduce preset.
 */
export const RECORDED: readonly AnyExperiment[] = [traceExperiment];

export function findExperiment(name: string): AnyExperiment | undefined {
  return EXPERIMENTS.find((e) => e.name === name) ?? RECORDED.find((e) => e.name === name);
}

/** The option values `forklab reproduce` runs an experiment with (a copy); null for an unknown experiment. */
export function presetFor(experiment: string, quick: boolean): RawOptions | null {
  const e = findExperiment(experiment);
  return e ? { ...(quick ? e.presets.quick : e.presets.full) } : null;
}
