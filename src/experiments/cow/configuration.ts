// cow's configurations: what identifies one (region size, THP mode, pages) and what its probe observed (the
// huge pages the region got), declared once; its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';

export const COW_THP_MODES = ['off', 'on', 'default'] as const;
export type CowThp = (typeof COW_THP_MODES)[number];

/** One THP mode of one region size; pages: absent in runs stored before it was recorded (then sizeMb × 256). */
export type CowIdentity = { sizeMb: number; thp: CowThp; pages?: number };
/** The parent's AnonHugePages of the region as the probe read it (null: not read). */
export type CowObserved = { hugePagesKb: number | null };
export type CowFields = Fields<CowIdentity, CowObserved>;
export type CowMeasurement = MeasurementOf<CowFields>;

/** The identity keys, in the order a document writes them. */
export const COW_IDENTITY = ['sizeMb', 'thp', 'pages'] as const satisfies readonly (keyof CowIdentity)[];

/** A cow run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const cowMeasurements = (ms: readonly Measurement[]): readonly CowMeasurement[] => ms as readonly CowMeasurement[];
