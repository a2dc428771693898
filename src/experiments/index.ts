// The experiments forklab knows, in the order of the articles.
import type { Experiment } from './types.js';
import { spawnExperiment } from './spawn.js';
import { cowExperiment } from './cow.js';
import { createExperiment } from './create.js';
import { execExperiment } from './exec.js';
import { pagetablesExperiment } from './pagetables.js';
import { vmaExperiment } from './vma.js';
import { deadlockExperiment } from './deadlock.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const EXPERIMENTS: Experiment<any, any>[] = [spawnExperiment, cowExperiment, createExperiment, execExperiment, pagetablesExperiment, vmaExperiment, deadlockExperiment];

export function findExperiment(name: string): Experiment<unknown, unknown> | undefined {
  return EXPERIMENTS.find((e) => e.name === name);
}
