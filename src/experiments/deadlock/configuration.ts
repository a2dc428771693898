// deadlock's configurations: the variant and its two waits (what identifies one) and what became of the child
// (what was observed), declared once; its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf, Scalar } from '../types.js';

export const VARIANTS = ['without-atfork', 'with-atfork', 'plain-lock'] as const;
export type Variant = (typeof VARIANTS)[number];

/** holdMs, childTimeoutMs: absent in runs stored before they were part of the identity. */
export type DeadlockIdentity = { variant: Variant; holdMs?: number; childTimeoutMs?: number };
/** What the child did, from the probe's columns; null where the probe failed or did not say (absent: runs stored before it was kept). */
export type DeadlockObserved = {
  childAcquired: boolean | null;
  childHung?: boolean | null;
  childKilled: boolean | null;
  childReported: boolean | null;
  /** The errno name the child reported ('0', 'ETIMEDOUT', …). */
  childResult: string | null;
  childWaitNs?: number | null;
  forkWaitNs?: number | null;
  childPid?: number | null;
  probePid?: Scalar;
};
export type DeadlockFields = Fields<DeadlockIdentity, DeadlockObserved>;
export type DeadlockMeasurement = MeasurementOf<DeadlockFields>;

/** The identity keys, in the order a document writes them. */
export const DEADLOCK_IDENTITY = ['variant', 'holdMs', 'childTimeoutMs'] as const satisfies readonly (keyof DeadlockIdentity)[];

/** A deadlock run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const deadlockMeasurements = (ms: readonly Measurement[]): readonly DeadlockMeasurement[] => ms as readonly DeadlockMeasurement[];
