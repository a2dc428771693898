// deadlock's configurations: the variant and its two waits (what identifies one) and what became of the child
// (what was observed), declared once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { AnyScalar, Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const VARIANTS = ['without-atfork', 'with-atfork', 'plain-lock'] as const;
export type Variant = (typeof VARIANTS)[number];

export const DEADLOCK_FIELDS = defineFields(
  'deadlock',
  /** holdMs, childTimeoutMs: absent in runs stored before they were part of the identity. */
  Type.Object({ variant: OneOfList(VARIANTS), holdMs: Type.Optional(Type.Number()), childTimeoutMs: Type.Optional(Type.Number()) }),
  /** What the child did, from the probe's columns; null where the probe failed or did not say (absent: runs stored before it was kept). */
  Type.Object({
    childAcquired: Nullable(Type.Boolean()),
    childHung: Type.Optional(Nullable(Type.Boolean())),
    childKilled: Type.Optional(Nullable(Type.Boolean())),
    childReported: Type.Optional(Nullable(Type.Boolean())),
    /** The errno name the child reported ('0', 'ETIMEDOUT', …). */
    childResult: Type.Optional(Nullable(Type.String())),
    childWaitNs: Type.Optional(Nullable(Type.Number())),
    forkWaitNs: Type.Optional(Nullable(Type.Number())),
    childPid: Type.Optional(Nullable(Type.Number())),
    probePid: Type.Optional(AnyScalar()),
  }),
);
export type DeadlockFields = FieldsOf<typeof DEADLOCK_FIELDS>;
export type DeadlockIdentity = DeadlockFields['identity'];
export type DeadlockObserved = DeadlockFields['observed'];
export type DeadlockMeasurement = MeasurementOf<DeadlockFields>;

/** The identity keys, in the order a document writes them. */
export const DEADLOCK_IDENTITY = ['variant', 'holdMs', 'childTimeoutMs'] as const satisfies readonly (keyof DeadlockIdentity)[];
