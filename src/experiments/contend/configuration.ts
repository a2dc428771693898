// contend's configurations: the method, whether the creators are processes or threads of one parent, how many run
// at once and the parent's RSS (what identifies one), and what its probe observed (the CPUs it could use), declared
// once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { Measurement, MeasurementOf, TasksAtOnce } from '../contract/types.js';

export const CONTEND_METHODS = ['fork-exec', 'vfork-exec', 'posix-spawn'] as const;
export type ContendMethod = (typeof CONTEND_METHODS)[number];
export const CONTEND_MODES = ['process', 'thread'] as const;
export type ContendMode = (typeof CONTEND_MODES)[number];

export const CONTEND_FIELDS = defineFields(
  'contend',
  /** Concurrent creators (series aggregate and latency), or sibling threads beside one creator (series stall and baseline). */
  Type.Union([
    Type.Object({ method: OneOfList(CONTEND_METHODS), creator: OneOfList(CONTEND_MODES), creators: Type.Number(), rssMb: Type.Number() }),
    Type.Object({ method: OneOfList(CONTEND_METHODS), siblings: Type.Number(), rssMb: Type.Number() }),
  ]),
  /** cpusUsable: the CPUs the probe (and so every creator) could run on; null where the probe did not say. */
  Type.Object({ cpusUsable: Nullable(Type.Number()) }),
);
export type ContendFields = FieldsOf<typeof CONTEND_FIELDS>;
export type ContendIdentity = ContendFields['identity'];
export type ContendMeasurement = MeasurementOf<ContendFields>;

/** The identity keys, in the order a document writes them. */
export const CONTEND_IDENTITY = ['method', 'creator', 'creators', 'siblings', 'rssMb'] as const;

/** The series of a creators probe: the wall time per creation of all creators together, and each launch's own time. */
export const CONTEND_SERIES = ['aggregate', 'latency'] as const;
/** The series of a siblings probe: their longest gap overlapping a launch, and overlapping a spin of the same length. */
export const STALL_SERIES = ['stall', 'baseline'] as const;

/**
 * What a configuration keeps runnable at once: its creators (each blocked in waitpid while its child runs, so one
 * task each), or its sibling threads and the thread that launches beside them. Beyond the CPUs they take turns.
 */
export function contendTasks(m: Measurement): TasksAtOnce | null {
  const cpus = typeof m.observed.cpusUsable === 'number' ? m.observed.cpusUsable : null;
  const { creator, creators, siblings } = m.identity;
  if (typeof creators === 'number') {
    const kind = creator === 'thread' ? (creators === 1 ? 'thread' : 'threads') : creators === 1 ? 'process' : 'processes';
    return { tasks: creators, cpus, what: `${creators} creator ${kind}` };
  }
  if (typeof siblings === 'number') return { tasks: siblings + 1, cpus, what: `${siblings} sibling thread${siblings === 1 ? '' : 's'} and the launching one` };
  return null;
}
