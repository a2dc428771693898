// The versioned JSON document of a run (`--json FILE`, `forklab export`): schema in docs/json-schema.md.
import { mkdtempSync, renameSync, writeFileSync, rmSync, statSync, accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ExperimentRun, Measurement, Warning } from '../experiments/types.js';
import type { LoadSample, MachineRecord } from '../env/machine.js';
import { witnessOfLoad, type NoiseWitness } from '../env/witness.js';

export const DOCUMENT_SCHEMA = 'forklab.run';
export const DOCUMENT_VERSION = 1;

export interface RunDocument {
  schema: typeof DOCUMENT_SCHEMA;
  schemaVersion: typeof DOCUMENT_VERSION;
  forklabVersion: string;
  experiment: string;
  runId: string | null;
  /** The user's --label (absent when none was given). */
  label?: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  complete: boolean;
  params: Record<string, unknown>;
  machine: MachineRecord;
  load: { before: LoadSample; after: LoadSample };
  warnings: Warning[];
  /** What the machine did during the run (docs/json-schema.md); absent in older documents: see documentWitness(). */
  witness?: NoiseWitness | null;
  /** Every measured series: its identifying fields at the top level, then raw samples and statistics. */
  configurations: Record<string, unknown>[];
  summary: unknown;
}

export function measurementToJson(m: Measurement): Record<string, unknown> {
  const o: Record<string, unknown> = { series: m.series, ...m.fields, repeat: m.repeat, state: m.state };
  if (m.failure !== null) o.failure = m.failure;
  o.info = m.info;
  o.samplesNs = m.samplesNs;
  if (Object.keys(m.columns).length) o.columns = m.columns;
  o.stats = m.stats;
  return o;
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
    params: args.run.params,
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
  return witnessOfLoad(doc.load as { before: LoadSample; after: LoadSample | null }, doc.durationMs, doc.machine.pinnedCpu);
}

/** Throws a plain Error naming the problem when FILE cannot be written (checked before any work). */
export function checkWritable(file: string): void {
  const dir = dirname(resolve(file));
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new Error(`directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new Error(`directory ${dir} is not writable`);
  }
  try {
    if (statSync(file).isDirectory()) throw new Error(`${file} is a directory`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Writes to a temporary file beside FILE, then renames: FILE is either the old or the whole new content. */
export function writeFileAtomic(file: string, text: string): void {
  const dir = mkdtempSync(join(dirname(resolve(file)), '.forklab-'));
  const tmp = join(dir, 'out');
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, resolve(file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
