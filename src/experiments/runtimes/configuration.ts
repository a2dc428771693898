// runtimes' configurations: the runtime, the variant of its spawn call, the kind of heap and its size (what
// identifies one), and what was observed (the runtime's family and version, the driver's RSS, and the mechanism
// strace saw for the variant), declared once; its measure writes them, its summary and a stored run read them.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';
import { FAMILIES } from './registry.js';
import { SPAWN_MECHANISMS } from './mechanism.js';

/** The mechanism strace saw for the variant (src/experiments/runtimes/stored.ts); absent where none was observed. */
const Mechanism = Type.Object({
  mechanism: OneOfList(SPAWN_MECHANISMS),
  mechanismSyscall: Type.String(),
  mechanismFlags: Nullable(Type.String()),
  mechanismHelpers: Type.String(),
  mechanismText: Type.String(),
});
export type MechanismObserved = Static<typeof Mechanism>;
export type NoMechanismObserved = Record<never, never>;
/** None of the mechanism's fields (none was observed): checked field by field, typed as no field. */
const NoMechanism = Type.Unsafe<NoMechanismObserved>(
  Type.Object({
    mechanism: Type.Optional(Type.Never()),
    mechanismSyscall: Type.Optional(Type.Never()),
    mechanismFlags: Type.Optional(Type.Never()),
    mechanismHelpers: Type.Optional(Type.Never()),
    mechanismText: Type.Optional(Type.Never()),
  }),
);

export const RUNTIMES_FIELDS = defineFields(
  'runtimes',
  Type.Object({ runtime: Type.String(), variant: Type.String(), heapKind: Type.String(), heapMb: Type.Number() }),
  Type.Intersect([
    Type.Object({ family: OneOfList(FAMILIES.map((f) => f.family)), runtimeVersion: Type.String(), rssMb: Nullable(Type.Number()) }),
    Type.Union([Mechanism, NoMechanism]),
  ]),
);
export type RuntimesFields = FieldsOf<typeof RUNTIMES_FIELDS>;
export type RuntimesIdentity = RuntimesFields['identity'];
export type RuntimesMeasurement = MeasurementOf<RuntimesFields>;

/** The identity keys, in the order a document writes them. */
export const RUNTIMES_IDENTITY = ['runtime', 'variant', 'heapKind', 'heapMb'] as const satisfies readonly (keyof RuntimesIdentity)[];
