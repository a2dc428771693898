// create's configurations: the method of each series (the thread's and the fork's) and what its probe observed
// (the thread's default stack), declared once; its measure writes them, a stored run reads them.
import { Type } from '@sinclair/typebox';
import { NoFields, Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const CREATE_METHODS = ['pthread-create-join', 'fork-waitpid'] as const;
export type CreateMethod = (typeof CREATE_METHODS)[number];
export const CREATE_FIELDS = defineFields(
  'create',
  Type.Object({ method: OneOfList(CREATE_METHODS) }),
  /** The thread series carries the probe's default thread stack (null: not reported); the fork series nothing. */
  Type.Union([Type.Object({ threadStackKb: Nullable(Type.Number()) }), NoFields()]),
);
export type CreateFields = FieldsOf<typeof CREATE_FIELDS>;
export type CreateIdentity = CreateFields['identity'];
export type CreateMeasurement = MeasurementOf<CreateFields>;

/** The identity keys, in the order a document writes them. */
export const CREATE_IDENTITY = ['method'] as const satisfies readonly (keyof CreateIdentity)[];

/** Each series' identity. */
export const CREATE_SERIES_IDENTITY: Readonly<Record<'thread' | 'fork', CreateIdentity>> = {
  thread: { method: 'pthread-create-join' },
  fork: { method: 'fork-waitpid' },
};
