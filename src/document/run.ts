// The versioned JSON document of a run (`--json FILE`, `forklab export`, the history database): its type,
// how a run becomes one, and how its configurations are read back. Declared in run-schema.ts; schemas/run.v1.schema.json, docs/json-schema.md. The store
// and the reports both read it from here.
import type { Configuration, ExperimentRun, Measurement, Scalar, ShownRun } from '../experiments/contract/types.js';
import { FIELDS, findExperiment, type KnownExperiment } from '../experiments/index.js';
import { fieldsProblem, type ConfigurationOfSpec, type FieldsSpec } from '../experiments/contract/fields.js';
import { DocumentError, check } from './schema.js';
import type { LoadSample, MachineRecord } from '../env/machine.js';
import { DOCUMENT_SCHEMA, DOCUMENT_VERSION, type RunDocument } from './run-schema.js';
import { witnessOfLoad, type NoiseWitness } from '../env/witness.js';

export { DOCUMENT_SCHEMA, DOCUMENT_VERSION, type RunDocument } from './run-schema.js';

export function measurementToJson(m: Measurement): Configuration {
  // The keys in this order: the document's text (and so every export) depends on it.
  const o: Record<string, unknown> = { series: m.series, ...m.identity, ...m.observed, repeat: m.repeat, state: m.state };
  if (m.failure !== null) o.failure = m.failure;
  o.info = m.info;
  o.samplesNs = m.samplesNs;
  if (Object.keys(m.columns).length) o.columns = m.columns;
  o.stats = m.stats;
  return o as Configuration;
}

export function buildDocument(args: {
  run: ExperimentRun;
  forklabVersion: string;
  runId: string | null;
  label?: string | null;
  startedAt: Date;
  finishedAt: Date;
  machine: MachineRecord;
  load: { before: LoadSample; after: LoadSample };
  witness?: NoiseWitness | null;
}): RunDocument {
  return {
    schema: DOCUMENT_SCHEMA,
    schemaVersion: DOCUMENT_VERSION,
    forklabVersion: args.forklabVersion,
    experiment: args.run.experiment,
    runId: args.runId,
    ...(args.label ? { label: args.label } : {}),
    startedAt: args.startedAt.toISOString(),
    finishedAt: args.finishedAt.toISOString(),
    durationMs: args.finishedAt.getTime() - args.startedAt.getTime(),
    complete: args.run.complete,
    params: { ...args.run.params },
    machine: args.machine,
    load: args.load,
    warnings: args.run.warnings,
    ...(args.witness ? { witness: args.witness } : {}),
    configurations: args.run.measurements.map(measurementToJson),
    summary: args.run.summary,
  };
}

/** The noise witness of a document: its own, else recomputed from its load samples (stored runs), else null. */
export function documentWitness(doc: RunDocument): NoiseWitness | null {
  if (doc.witness) return doc.witness;
  return witnessOfLoad(doc.load, doc.durationMs, doc.machine.pinnedCpu);
}

/**
 * The configurations of a document of a known experiment, each checked against its fields spec (its
 * configuration.ts) and typed by it; null when the document is of another experiment. A configuration without the
 * fields declared is a DocumentError naming the first problem ("configurations[3].thp is not one of …").
 */
export function configurationsOf<E extends KnownExperiment>(doc: RunDocument, experiment: E): ConfigurationOfSpec<(typeof FIELDS)[E]>[] | null {
  if (doc.experiment !== experiment) return null;
  return doc.configurations.map((c, i) => checkedConfiguration(FIELDS[experiment], experiment, c, `configurations[${i}]`));
}

/** A configuration object with the fields a spec declares (or one of a list of specs: those of one of its kinds). */
export function checkedConfiguration<S extends FieldsSpec | readonly FieldsSpec[]>(spec: S, experiment: string, c: Configuration, path: string): ConfigurationOfSpec<S> {
  const { identity, observed } = splitConfiguration(experiment, c);
  const specs: readonly FieldsSpec[] = isList(spec) ? spec : [spec];
  const declared = (x: Configuration): x is ConfigurationOfSpec<S> =>
    specs.some((s) => fieldsProblem(s.identity, identity) === null && fieldsProblem(s.observed, observed) === null);
  if (declared(c)) return c;
  // The first problem of the kind whose identity it has (else of the first kind), in the house's words.
  const kind = specs.find((s) => fieldsProblem(s.identity, identity) === null) ?? specs[0]!;
  check(kind.identity, identity, path);
  check(kind.observed, observed, path);
  throw new DocumentError(`${path} does not have the fields ${experiment} declares`);
}

const isList = <T>(x: T | readonly T[]): x is readonly T[] => Array.isArray(x);

/** The keys of a configuration object that are not its fields (see measurementToJson). */
export const CONFIGURATION_KEYS = ['series', 'repeat', 'state', 'failure', 'info', 'samplesNs', 'columns', 'stats'] as const;

const RESERVED: ReadonlySet<string> = new Set(CONFIGURATION_KEYS);
const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** The scalar fields of a configuration object: its identity and what was observed, together. */
export function fieldsOf(c: Readonly<Record<string, unknown>>): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(c)) if (!RESERVED.has(k) && isScalar(v)) out[k] = v;
  return out;
}

/**
 * The identity keys of an experiment's configurations, as its module declares them; null for an experiment this
 * forklab does not know (a document from another version), whose every field is then taken as identity.
 */
export function identityKeys(experiment: string): readonly string[] | null {
  return findExperiment(experiment)?.identity ?? null;
}

/**
 * A configuration object of a document split into its identity and what was observed. The document keeps both
 * at the top level (every version so far has), so the experiment's declared identity keys decide.
 */
export function splitConfiguration(experiment: string, c: Readonly<Record<string, unknown>>): { identity: Record<string, Scalar>; observed: Record<string, Scalar> } {
  const keys = identityKeys(experiment);
  const identity: Record<string, Scalar> = {};
  const observed: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(fieldsOf(c))) {
    if (keys === null || keys.includes(k)) identity[k] = v;
    else observed[k] = v;
  }
  return { identity, observed };
}

/** A configuration object of a document (as its reader checked it) as the Measurement it was written from. */
export function measurementOf(experiment: string, c: Configuration): Measurement {
  return {
    series: c.series,
    ...splitConfiguration(experiment, c),
    repeat: c.repeat,
    state: c.state,
    failure: c.failure ?? null,
    info: c.info,
    samplesNs: c.samplesNs,
    columns: c.columns ?? {},
    stats: c.stats,
  };
}

/**
 * The run a document was written from, for an experiment this forklab knows (null otherwise): its measurements,
 * and its summary as the run computed it, or, where the document has none, computed again from the
 * measurements (seed 1). Its warnings are as the document carries them: a code from another version stays.
 */
export function runOfDocument(doc: RunDocument): ShownRun | null {
  const exp = findExperiment(doc.experiment);
  if (!exp) return null;
  const measurements = doc.configurations.map((c) => measurementOf(doc.experiment, c));
  const summary = doc.summary ?? exp.summarize(measurements, doc.params, 1);
  return { experiment: doc.experiment, params: doc.params, measurements, summary, warnings: doc.warnings, complete: doc.complete };
}
