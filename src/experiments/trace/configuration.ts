// trace's configurations, declared once: one per creating process and mechanism, identified by the process (pid,
// program) and its median RSS, with the runtime it ran observed (trace/summary.ts's traceMeasurements writes them;
// its per-call columns are TRACE_COLUMNS there).
import type { Fields, MeasurementOf } from '../types.js';
import type { Runtime } from './model.js';

/** rssMb: the creator's median RSS in whole MB (null: never read). */
export type TraceIdentity = { pid: number; program: string; rssMb: number | null };
export type TraceObserved = { runtime: Runtime };
export type TraceFields = Fields<TraceIdentity, TraceObserved>;
export type TraceMeasurement = MeasurementOf<TraceFields>;
