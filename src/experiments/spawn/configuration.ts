// spawn's configurations: the method, the parent's RSS and THP mode, and the user's --target where one was given
// (what identifies one), and what its probe observed (the huge pages the parent got, why sampling stopped, the kind of child its probe timed),
// declared once; its measure writes them, its summary and a stored run read them.
import type { StopReason } from '../../runner/plans.js';
import type { Fields, Measurement, MeasurementOf } from '../types.js';
import type { ChildMemory, Method, ThpMode } from './summary.js';

/** With --target, every method but fork-exit runs the user's program (its path). */
export type SpawnIdentity = { method: Method; rssMb: number; thp: ThpMode } | { method: Method; rssMb: number; thp: ThpMode; target: string };
/** stopReason: absent in runs stored before adaptive sampling; childMemory: absent in runs stored before the methods' two kinds were timed in probes of their own (CHILD_MEMORY). */
export type SpawnObserved = { hugePagesKb: number | null; stopReason?: StopReason | null; childMemory?: ChildMemory };
export type SpawnFields = Fields<SpawnIdentity, SpawnObserved>;
export type SpawnMeasurement = MeasurementOf<SpawnFields>;

/** The identity keys, in the order a document writes them. */
export const SPAWN_IDENTITY = ['method', 'rssMb', 'thp', 'target'] as const;

/** A spawn run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const spawnMeasurements = (ms: readonly Measurement[]): readonly SpawnMeasurement[] => ms as readonly SpawnMeasurement[];
