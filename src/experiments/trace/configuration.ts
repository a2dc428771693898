// trace's configurations, declared once: one per creating process and mechanism, identified by the process (pid,
// program) and its median RSS, with the runtime it ran observed (trace/summary.ts's traceMeasurements writes them;
// its per-call columns are TRACE_COLUMNS there).
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';
import { RUNTIMES } from './model.js';

export const TRACE_FIELDS = defineFields(
  'trace',
  /** program: what the creator ran (null: its exec was not seen); rssMb: its median RSS in whole MB (null: never read). */
  Type.Object({ pid: Type.Number(), program: Nullable(Type.String()), rssMb: Nullable(Type.Number()) }),
  Type.Object({ runtime: OneOfList(RUNTIMES) }),
);
export type TraceFields = FieldsOf<typeof TRACE_FIELDS>;
export type TraceIdentity = TraceFields['identity'];
export type TraceMeasurement = MeasurementOf<TraceFields>;
