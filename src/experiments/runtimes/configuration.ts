// runtimes' configurations: the runtime, the variant of its spawn call, the kind of heap and its size (what
// identifies one), and what was observed (the runtime's family and version, the driver's RSS, and the mechanism
// strace saw for the variant), declared once; its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';
import type { Family } from './registry.js';
import type { SpawnMechanism } from './mechanism.js';

export type RuntimesIdentity = { runtime: string; variant: string; heapKind: string; heapMb: number };
/** The mechanism strace saw for the variant (src/experiments/runtimes/stored.ts); absent where none was observed. */
export type MechanismObserved = {
  mechanism: SpawnMechanism;
  mechanismSyscall: string;
  mechanismFlags: string | null;
  mechanismHelpers: string;
  mechanismText: string;
};
export type RuntimesObserved = { family: Family; runtimeVersion: string; rssMb: number | null } & (MechanismObserved | Record<string, never>);
export type RuntimesFields = Fields<RuntimesIdentity, RuntimesObserved>;
export type RuntimesMeasurement = MeasurementOf<RuntimesFields>;

/** The identity keys, in the order a document writes them. */
export const RUNTIMES_IDENTITY = ['runtime', 'variant', 'heapKind', 'heapMb'] as const satisfies readonly (keyof RuntimesIdentity)[];

/** A runtimes run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const runtimesMeasurements = (ms: readonly Measurement[]): readonly RuntimesMeasurement[] => ms as readonly RuntimesMeasurement[];
