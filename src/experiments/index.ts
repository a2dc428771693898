// The registry: the one list of the experiments forklab knows, in the order of the articles. Everything
// else that needs to know the experiments (commands, reports, `show`, `compare`, `reproduce`, the tests)
// reads it from here.
import type { Experiment, RawOptions, Recording } from './contract/types.js';
import { spawnExperiment } from './spawn/index.js';
import { cowExperiment } from './cow/index.js';
import { createExperiment } from './create/index.js';
import { execExperiment } from './exec/index.js';
import { pagetablesExperiment } from './pagetables/index.js';
import { vmaExperiment } from './vma/index.js';
import { deadlockExperiment } from './deadlock/index.js';
import { runtimesExperiment } from './runtimes/index.js';
import { fdsExperiment } from './fds/index.js';
import { cgroupExperiment } from './cgroup/index.js';
import { traceRecording } from './trace/index.js';
import { contendExperiment } from './contend/index.js';
import { SPAWN_FIELDS } from './spawn/configuration.js';
import { COW_FIELDS } from './cow/configuration.js';
import { CREATE_FIELDS } from './create/configuration.js';
import { EXEC_FIELDS } from './exec/configuration.js';
import { PAGETABLES_FIELDS } from './pagetables/configuration.js';
import { VMA_FIELDS } from './vma/configuration.js';
import { DEADLOCK_FIELDS } from './deadlock/configuration.js';
import { RUNTIMES_FIELDS } from './runtimes/configuration.js';
import { FDS_FIELDS } from './fds/configuration.js';
import { CGROUP_FIELDS } from './cgroup/configuration.js';
import { TRACE_FIELDS } from './trace/configuration.js';
import { CONTEND_FIELDS } from './contend/configuration.js';
import type { FieldsOf, FieldsSpec } from './contract/fields.js';

// biome-ignore lint/suspicious/noExplicitAny: the registry holds experiments of every parameter, summary and fields type
export type AnyExperiment = Experiment<any, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: as AnyExperiment, for the kinds of run a command of their own records
export type AnyRecording = Recording<any, any, any>;

/** A kind of run the history holds, read, judged and shown alike: an experiment's sweep or a recording. */
export type AnyRunKind = AnyExperiment | AnyRecording;

export const EXPERIMENTS: readonly AnyExperiment[] = [
  spawnExperiment,
  cowExperiment,
  createExperiment,
  execExperiment,
  pagetablesExperiment,
  vmaExperiment,
  deadlockExperiment,
  runtimesExperiment,
  fdsExperiment,
  cgroupExperiment,
  contendExperiment,
];

/**
 * Each experiment's fields spec (its NAME/configuration.ts; a list where its measurements are of several kinds) by
 * its name: what a document's configurations of it are checked against and typed by (src/document/, configurationsOf).
 * Every experiment of EXPERIMENTS and RECORDED has its entry.
 */
export const FIELDS = {
  spawn: SPAWN_FIELDS,
  cow: COW_FIELDS,
  create: CREATE_FIELDS,
  exec: EXEC_FIELDS,
  pagetables: PAGETABLES_FIELDS,
  vma: VMA_FIELDS,
  deadlock: DEADLOCK_FIELDS,
  runtimes: RUNTIMES_FIELDS,
  fds: FDS_FIELDS,
  cgroup: CGROUP_FIELDS,
  trace: TRACE_FIELDS,
  contend: CONTEND_FIELDS,
} as const satisfies Readonly<Record<string, FieldsSpec | readonly FieldsSpec[]>>;

/** The spec of a known experiment's fields, as one spec or the list of its kinds. */
type SpecOf<E extends KnownExperiment> = (typeof FIELDS)[E] extends readonly (infer S)[] ? S : (typeof FIELDS)[E];

/** Each experiment's fields, the types its spec gives them, by its name. */
export type ExperimentFields = { [E in KnownExperiment]: FieldsOf<SpecOf<E>> };

/** The name of an experiment whose fields are known by type. */
export type KnownExperiment = keyof typeof FIELDS;

export const EXPERIMENT_NAMES: readonly string[] = EXPERIMENTS.map((e) => e.name);

/** The experiments with selfcheck pairs, in the registry's order: what `selfcheck --suites` chooses from (the first is the default). */
export const SUITES: readonly string[] = EXPERIMENTS.filter((e) => e.selfcheck).map((e) => e.name);

/**
 * The kinds of run a command of their own records (src/experiments/contract/types.ts, Recording), stored, shown and reported
 * like an experiment's: `forklab trace`. Not in EXPERIMENTS: no experiment command, no reproduce preset.
 */
export const RECORDED: readonly AnyRecording[] = [traceRecording];

/** The experiment or recording of this name: what reading, judging and showing a stored run of it needs. */
export function findExperiment(name: string): AnyRunKind | undefined {
  return findSweep(name) ?? RECORDED.find((e) => e.name === name);
}

/** The experiment of this name that runs as a sweep of probe configurations: its options, presets, selfcheck and run. */
export function findSweep(name: string): AnyExperiment | undefined {
  return EXPERIMENTS.find((e) => e.name === name);
}

/** The option values of an experiment's preset (a copy), as `forklab NAME --quick` takes them; null for an unknown experiment. */
export function presetFor(experiment: string, quick: boolean): RawOptions | null {
  const e = findSweep(experiment);
  return e ? { ...(quick ? e.presets.quick : e.presets.full) } : null;
}

/**
 * The option values `forklab reproduce` runs an experiment with (a copy): its preset, or what it declares for
 * reproduce instead; `{ notRun }` where reproduce leaves it out at that preset, saying why; null for an unknown one.
 */
export function reproducePresetFor(experiment: string, quick: boolean): RawOptions | { notRun: string } | null {
  const e = findSweep(experiment);
  if (!e) return null;
  const own = e.presets.reproduce?.[quick ? 'quick' : 'full'];
  if (typeof own === 'string') return { notRun: own };
  return { ...(own ?? (quick ? e.presets.quick : e.presets.full)) };
}
