// spawn's configurations: the method, the parent's RSS and THP mode, and the user's --target where one was given
// (what identifies one), and what its probe observed (the huge pages the parent got, why sampling stopped, the kind of child its probe timed),
// declared once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { STOP_REASONS } from '../../runner/plans.js';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';
import { CHILD_MEMORY, METHODS, THP_MODES } from './summary.js';

const Chosen = { method: OneOfList(METHODS), rssMb: Type.Number(), thp: OneOfList(THP_MODES) };
export const SPAWN_FIELDS = defineFields(
  'spawn',
  /** With --target, every method but fork-exit runs the user's program (its path). */
  Type.Union([Type.Object(Chosen), Type.Object({ ...Chosen, target: Type.String() })]),
  /** stopReason: absent in runs stored before adaptive sampling; childMemory: absent in runs stored before the methods' two kinds were timed in probes of their own (CHILD_MEMORY). */
  Type.Object({
    hugePagesKb: Nullable(Type.Number()),
    stopReason: Type.Optional(Nullable(OneOfList(STOP_REASONS))),
    childMemory: Type.Optional(OneOfList(Object.values(CHILD_MEMORY))),
  }),
);
export type SpawnFields = FieldsOf<typeof SPAWN_FIELDS>;
export type SpawnIdentity = SpawnFields['identity'];
export type SpawnMeasurement = MeasurementOf<SpawnFields>;

/** The identity keys, in the order a document writes them. */
export const SPAWN_IDENTITY = ['method', 'rssMb', 'thp', 'target'] as const;
