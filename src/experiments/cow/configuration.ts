// cow's configurations: what identifies one (region size, THP mode, pages) and what its probe observed (the
// huge pages the region got), declared once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const COW_THP_MODES = ['off', 'on', 'default'] as const;
export type CowThp = (typeof COW_THP_MODES)[number];

export const COW_FIELDS = defineFields(
  'cow',
  /** One THP mode of one region size; pages: absent in runs stored before it was recorded (then sizeMb × 256). */
  Type.Object({ sizeMb: Type.Number(), thp: OneOfList(COW_THP_MODES), pages: Type.Optional(Type.Number()) }),
  /** The parent's AnonHugePages of the region as the probe read it (null: not read). */
  Type.Object({ hugePagesKb: Nullable(Type.Number()) }),
);
export type CowFields = FieldsOf<typeof COW_FIELDS>;
export type CowIdentity = CowFields['identity'];
export type CowMeasurement = MeasurementOf<CowFields>;

/** The identity keys, in the order a document writes them. */
export const COW_IDENTITY = ['sizeMb', 'thp', 'pages'] as const satisfies readonly (keyof CowIdentity)[];
