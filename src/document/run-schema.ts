// The run document (`--json FILE`, `forklab export`, the history database), declared once with TypeBox: the
// schema its reader checks (src/document/validate.ts), the type the code reads (RunDocument) and
// schemas/run.schema.json (scripts/schemas.mjs). What JSON Schema cannot say (a failed configuration has a
// failure, stats.n and every column as long as samplesNs, a date that exists) the reader checks after it.
import { type Static, Type } from '@sinclair/typebox';
import type { MachineRecord, LoadSample } from '../env/machine.js';
import type { NoiseWitness } from '../env/witness.js';
import type { Configuration } from '../experiments/contract/types.js';
import { IsoDate, Nullable, OneOf, Scalar, UUID_PATTERN, schemaId } from './schema.js';

export const DOCUMENT_SCHEMA = 'forklab.run';
export const DOCUMENT_VERSION = 1;

const FiniteNumbers = () => Type.Array(Type.Number());
const Triple = () => Type.Tuple([Type.Number(), Type.Number(), Type.Number()]);
const Pressure = () => Nullable(Type.Object({ someAvg10: Type.Number(), someAvg60: Type.Number(), someAvg300: Type.Number(), someTotalUs: Type.Number() }));

/**
 * The machine record: the fields every reader relies on. Its other fields (probe, emulation, placement, the
 * isolation facts) are described in src/env/machine.ts; they are optional and not checked.
 */
export const MachineSchema = Type.Unsafe<MachineRecord>(
  Type.Object({
    hostname: Type.String(),
    kernel: Type.String(),
    kernelVersion: Type.String(),
    arch: Type.String(),
    cpuModel: Nullable(Type.String()),
    cpuCount: Type.Number(),
    cpusAllowed: Nullable(FiniteNumbers()),
    memTotalKb: Nullable(Type.Number()),
    memAvailableKb: Nullable(Type.Number()),
    swapTotalKb: Nullable(Type.Number()),
    thpEnabled: Nullable(Type.String()),
    thpDefrag: Nullable(Type.String()),
    hugePageSizeKb: Nullable(Type.Number()),
    pageSizeBytes: Type.Number(),
    glibcVersion: Nullable(Type.String()),
    compilerVersion: Nullable(Type.String()),
    nodeVersion: Type.String(),
    cgroupMemoryLimitBytes: Nullable(Type.Number()),
    vmMaxMapCount: Nullable(Type.Number()),
    overcommitMemory: Nullable(Type.Number()),
    virtualization: Nullable(Type.String()),
    pinnedCpu: Nullable(Type.Number()),
    loadAverage: Triple(),
    cpuPressure: Pressure(),
    clockSource: Nullable(Type.String()),
    cpuGovernor: Nullable(Type.String()),
    collectedAt: Type.String(),
    notes: Type.Array(Type.String()),
  }),
);

/** A load sample (its optional counters, src/env/machine.ts, are not checked). */
export const LoadSampleSchema = Type.Unsafe<LoadSample>(Type.Object({ at: IsoDate(), loadAverage: Triple(), cpuPressure: Pressure() }));

const StatsSchema = Type.Object({
  n: Type.Number(),
  minNs: Type.Number(),
  medianNs: Type.Number(),
  meanNs: Type.Number(),
  p90Ns: Type.Number(),
  p99Ns: Type.Number(),
  maxNs: Type.Number(),
  stdevNs: Type.Number(),
  // JSON has no Infinity: a cv of Infinity is written as null.
  cv: Nullable(Type.Number()),
  ciLowNs: Type.Number(),
  ciHighNs: Type.Number(),
  ciConfidence: Type.Number(),
});

/**
 * One configuration (src/document/run.ts measurementToJson writes it): the keys every configuration has, and
 * beside them the experiment's fields, each a scalar.
 */
export const ConfigurationSchema = Type.Unsafe<Configuration>(
  Type.Object(
    {
      series: Type.String({ minLength: 1 }),
      repeat: Type.Integer({ minimum: 0 }),
      state: OneOf(['ok', 'failed']),
      failure: Type.Optional(Type.String()),
      info: Type.Record(Type.String(), Scalar()),
      samplesNs: Type.Array(Type.Number({ minimum: 0 })),
      columns: Type.Optional(Type.Record(Type.String(), FiniteNumbers())),
      // An 'ok' configuration may carry fields only (no samples, stats null): pagetables' phase rows, say.
      stats: Nullable(StatsSchema),
    },
    { additionalProperties: Scalar() },
  ),
);

export const RunDocumentSchema = Type.Object(
  {
    schema: Type.Literal(DOCUMENT_SCHEMA),
    schemaVersion: Type.Literal(DOCUMENT_VERSION),
    forklabVersion: Type.String(),
    experiment: Type.String({ minLength: 1 }),
    /** The run's id in the history database, when it was stored. */
    runId: Nullable(Type.String({ pattern: UUID_PATTERN })),
    /** The user's --label (absent when none was given). */
    label: Type.Optional(Type.String({ minLength: 1 })),
    startedAt: IsoDate(),
    finishedAt: IsoDate(),
    durationMs: Type.Number({ minimum: 0 }),
    complete: Type.Boolean(),
    params: Type.Record(Type.String(), Type.Unknown()),
    machine: MachineSchema,
    /** `after` is null for a run that never finished (killed). */
    load: Type.Object({ before: LoadSampleSchema, after: Nullable(LoadSampleSchema) }),
    warnings: Type.Array(Type.Object({ code: Type.String(), message: Type.String() })),
    /** What the machine did during the run (docs/json-schema.md); absent in older documents: see documentWitness(). */
    witness: Type.Optional(Nullable(Type.Unsafe<NoiseWitness>(Type.Object({})))),
    /** Every measured series: its identity and observed fields at the top level, then raw samples and statistics. */
    configurations: Type.Array(ConfigurationSchema),
    /** The experiment's derived figures; absent (undefined is not written to JSON) reads as none. */
    summary: Type.Optional(Type.Unknown()),
  },
  { $id: schemaId(DOCUMENT_SCHEMA, DOCUMENT_VERSION), title: 'forklab run document' },
);

export type RunDocument = Static<typeof RunDocumentSchema>;
