// exec's configurations: the method, and for an exec the target it runs (what identifies one), and the
// target's size (what was observed), declared once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { NoFields, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const EXEC_FIELDS = defineFields(
  'exec',
  /** fork-exit, getppid and ld-debug run no target; fork-exec runs 'dynamic', 'static' or the user's program (its path). */
  Type.Union([Type.Object({ method: OneOfList(['fork-exit', 'getppid', 'ld-debug']) }), Type.Object({ method: Type.Literal('fork-exec'), target: Type.String() })]),
  /** An exec series carries its target's size in bytes; the others nothing. */
  Type.Union([Type.Object({ fileBytes: Type.Number() }), NoFields()]),
);
export type ExecFields = FieldsOf<typeof EXEC_FIELDS>;
export type ExecIdentity = ExecFields['identity'];
export type ExecMeasurement = MeasurementOf<ExecFields>;

/** The identity keys, in the order a document writes them. */
export const EXEC_IDENTITY = ['method', 'target'] as const;
