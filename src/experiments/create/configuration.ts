// create's configurations: the method of each series (the thread's and the fork's) and what its probe observed
// (the thread's default stack), declared once; its measure writes them, a stored run reads them.
import type { Fields, MeasurementOf } from '../types.js';

export type CreateMethod = 'pthread-create-join' | 'fork-waitpid';
export type CreateIdentity = { method: CreateMethod };
/** The thread series carries the probe's default thread stack (null: not reported); the fork series nothing. */
export type CreateObserved = { threadStackKb: number | null } | Record<string, never>;
export type CreateFields = Fields<CreateIdentity, CreateObserved>;
export type CreateMeasurement = MeasurementOf<CreateFields>;

/** The identity keys, in the order a document writes them. */
export const CREATE_IDENTITY = ['method'] as const satisfies readonly (keyof CreateIdentity)[];

/** Each series' identity. */
export const CREATE_FIELDS: Readonly<Record<'thread' | 'fork', CreateIdentity>> = {
  thread: { method: 'pthread-create-join' },
  fork: { method: 'fork-waitpid' },
};
