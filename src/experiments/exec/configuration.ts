// exec's configurations: the method, and for an exec the target it runs (what identifies one), and the
// target's size (what was observed), declared once; its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';

/** fork-exit, getppid and ld-debug run no target; fork-exec runs 'dynamic', 'static' or the user's program (its path). */
export type ExecIdentity = { method: 'fork-exit' | 'getppid' | 'ld-debug' } | { method: 'fork-exec'; target: string };
/** An exec series carries its target's size in bytes; the others nothing. */
export type ExecObserved = { fileBytes: number } | Record<string, never>;
export type ExecFields = Fields<ExecIdentity, ExecObserved>;
export type ExecMeasurement = MeasurementOf<ExecFields>;

/** The identity keys, in the order a document writes them. */
export const EXEC_IDENTITY = ['method', 'target'] as const;

/** An exec run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const execMeasurements = (ms: readonly Measurement[]): readonly ExecMeasurement[] => ms as readonly ExecMeasurement[];
