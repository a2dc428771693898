// contend's configurations: the method, whether the creators are processes or threads of one parent, how many run
// at once and the parent's RSS (what identifies one), and what its probe observed (the CPUs it could use), declared
// once; its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';

export const CONTEND_METHODS = ['fork-exec', 'vfork-exec', 'posix-spawn'] as const;
export type ContendMethod = (typeof CONTEND_METHODS)[number];
export const CONTEND_MODES = ['process', 'thread'] as const;
export type ContendMode = (typeof CONTEND_MODES)[number];

/** Concurrent creators (series aggregate and latency), or sibling threads beside one creator (series stall and baseline). */
export type ContendIdentity = { method: ContendMethod; creator: ContendMode; creators: number; rssMb: number } | { method: ContendMethod; siblings: number; rssMb: number };
/** cpusUsable: the CPUs the probe (and so every creator) could run on; null where the probe did not say. */
export type ContendObserved = { cpusUsable: number | null };
export type ContendFields = Fields<ContendIdentity, ContendObserved>;
export type ContendMeasurement = MeasurementOf<ContendFields>;

/** The identity keys, in the order a document writes them. */
export const CONTEND_IDENTITY = ['method', 'creator', 'creators', 'siblings', 'rssMb'] as const;

/** The series of a creators probe: the wall time per creation of all creators together, and each launch's own time. */
export const CONTEND_SERIES = ['aggregate', 'latency'] as const;
/** The series of a siblings probe: their longest gap overlapping a launch, and overlapping a spin of the same length. */
export const STALL_SERIES = ['stall', 'baseline'] as const;

export const contendMeasurements = (ms: readonly Measurement[]): readonly ContendMeasurement[] => ms as readonly ContendMeasurement[];
