// `forklab fleet collect`: from logs (pods', Slurm tasks', ssh sessions') to verified run documents on disk,
// one directory per machine, each document carrying where it ran (machine.placement). What could not be
// verified is named per source and never written.

import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunDocument } from '../document/run.js';
import type { Placement } from '../env/machine.js';
import { Type } from '@sinclair/typebox';
import { DocumentError, parseRunDocument } from '../document/validate.js';
import { Nullable, OneOf, check, isObject, parseJson, preview, schemaId } from '../document/schema.js';
import { FleetStatusSchema, decodeStream, type FleetStatus } from './frame.js';
import { CONTAINER_NAME, type KubeSource } from './kube.js';

/** One log and what its engine says of where it ran. */
export interface LogStream {
  source: string;
  engine: Placement['engine'];
  node: string | null;
  pool: string | null;
  labels: Record<string, string>;
  /** Kubernetes: the pod's phase and termination message; null elsewhere. */
  phase: string | null;
  terminationMessage: string | null;
  text: string;
  /** Why the log could not be read (it is then empty). */
  logError?: string;
}

/** What became of one source. */
export interface SourceOutcome {
  source: string;
  node: string | null;
  pool: string | null;
  /** complete: the status line says ok and every document it counts arrived intact. */
  state: 'complete' | 'partial' | 'failed' | 'no-output';
  documents: number;
  written: string[];
  duplicates: number;
  /** Each document not taken, and why (truncated, corrupt, not a run document); the pod's own message. */
  problems: string[];
  status: FleetStatus | null;
}

export interface Collected {
  outcomes: SourceOutcome[];
  /** Every verified document, once, with its placement. */
  documents: { doc: RunDocument; file: string }[];
}

export const COLLECT_SCHEMA = 'forklab.fleet-collect';
export const COLLECT_VERSION = 1;

/** `forklab fleet collect --json`: where the documents went, what the history took, and what became of each source. */
export interface CollectDocument {
  schema: typeof COLLECT_SCHEMA;
  schemaVersion: typeof COLLECT_VERSION;
  out: string;
  /** Null when nothing was imported (--no-import, or no document). */
  import: { imported: number; already: number } | null;
  sources: SourceOutcome[];
}

export function collectDocument(c: Collected, out: string, imp: CollectDocument['import']): CollectDocument {
  return { schema: COLLECT_SCHEMA, schemaVersion: COLLECT_VERSION, out, import: imp, sources: c.outcomes };
}

/** The keys of `fleet collect --json` its readers use; the rest is described by CollectDocument. */
export const CollectSchema = Type.Unsafe<CollectDocument>(
  Type.Object(
    {
      schema: Type.Literal(COLLECT_SCHEMA),
      schemaVersion: Type.Literal(COLLECT_VERSION),
      out: Type.String(),
      import: Nullable(Type.Object({ imported: Type.Number(), already: Type.Number() })),
      sources: Type.Array(
        Type.Object({
          source: Type.String(),
          state: OneOf(['complete', 'partial', 'failed', 'no-output']),
          documents: Type.Number(),
          written: Type.Array(Type.String()),
          problems: Type.Array(Type.String()),
          status: Nullable(FleetStatusSchema),
        }),
      ),
    },
    { $id: schemaId(COLLECT_SCHEMA, COLLECT_VERSION), title: 'forklab fleet collect document (forklab fleet collect --json)' },
  ),
);

/** The collect document of `fleet collect --json`'s text; throws DocumentError naming `where` and the first key that is wrong. */
export function readCollect(text: string, where: string): CollectDocument {
  try {
    const d = parseJson(text);
    if (!isObject(d) || d.schema !== COLLECT_SCHEMA)
      throw new DocumentError(`not a forklab fleet collect document: schema is ${preview(isObject(d) ? d.schema : d)}, expected "${COLLECT_SCHEMA}"`);
    if (d.schemaVersion !== COLLECT_VERSION) throw new DocumentError(`schemaVersion is not ${COLLECT_VERSION} (got ${preview(d.schemaVersion)})`);
    return check(CollectSchema, d);
  } catch (e) {
    if (e instanceof DocumentError) throw new DocumentError(`${where}: ${e.message}`);
    throw e;
  }
}

/** A name safe as one path segment. */
const machineDir = (name: string): string => name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_';

/** Decodes, verifies, de-duplicates and writes every document of the streams into OUT/<machine>/. */
export function collectStreams(streams: readonly LogStream[], outDir: string): Collected {
  const seen = new Map<string, string>();
  const documents: Collected['documents'] = [];
  const outcomes: SourceOutcome[] = [];
  for (const s of streams) {
    const dec = decodeStream(s.text);
    const problems = s.logError === undefined ? [...dec.problems] : [`the log could not be read: ${s.logError}`];
    const written: string[] = [];
    let duplicates = 0;
    let taken = 0;
    for (const d of dec.documents) {
      if (d.state !== 'ok') {
        problems.push(`document ${d.seq}${d.runId ? ` (run ${d.runId.slice(0, 8)})` : ''} ${d.state}: ${d.reason}`);
        continue;
      }
      let doc: RunDocument;
      try {
        doc = parseRunDocument(d.json);
      } catch (e) {
        if (!(e instanceof DocumentError)) throw e;
        problems.push(`document ${d.seq}: ${e.message}`);
        continue;
      }
      const key = doc.runId ?? d.sha256;
      const first = seen.get(key);
      if (first !== undefined) {
        duplicates++;
        problems.push(`document ${d.seq}: run ${key.slice(0, 8)} again (first from ${first}); kept once`);
        continue;
      }
      seen.set(key, s.source);
      taken++;
      const node = s.node ?? d.node ?? doc.machine.hostname;
      doc.machine.placement = { engine: s.engine, node, pool: s.pool, labels: s.labels, source: s.source };
      const dir = join(outDir, machineDir(node));
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${doc.experiment}-${key.slice(0, 8)}.json`);
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, `${JSON.stringify(doc)}\n`);
      renameSync(tmp, file);
      written.push(file);
      documents.push({ doc, file });
    }
    if (s.terminationMessage && (s.phase === 'Failed' || dec.status === null)) problems.push(`termination message: ${s.terminationMessage.trim().slice(0, 300)}`);
    const st = dec.status;
    const intact = dec.documents.every((d) => d.state === 'ok');
    let state: SourceOutcome['state'];
    if (s.phase === 'Failed' || st?.state === 'failed') state = 'failed';
    else if (dec.documents.length === 0 && st === null) state = 'no-output';
    else if (st?.state === 'ok' && intact && dec.documents.length === st.documents && problems.length === duplicates) state = 'complete';
    else state = 'partial';
    if (st === null && dec.documents.length > 0) problems.push('no status line: the log ends before the task finished (rotated, cut, or still running)');
    else if (st !== null && st.documents !== dec.documents.length) problems.push(`the status line counts ${st.documents} documents, the log has ${dec.documents.length}`);
    outcomes.push({ source: s.source, node: s.node ?? st?.node ?? null, pool: s.pool, state, documents: taken, written, duplicates, problems, status: st });
  }
  return { outcomes, documents };
}

/** The pods of a job, each with its log and its node's labels. */
export async function kubernetesStreams(src: KubeSource, namespace: string, selector: string): Promise<LogStream[]> {
  const pods = await src.pods(namespace, selector);
  const nodes = new Map<string, Record<string, string>>();
  const out: LogStream[] = [];
  for (const p of pods) {
    if (p.node !== null && !nodes.has(p.node)) nodes.set(p.node, (await src.node(p.node))?.labels ?? {});
    let text = '';
    let logError: string | undefined;
    // A pod that never started has no log; that is its outcome, not an error of collect.
    if (p.phase !== 'Pending')
      text = await src.log(namespace, p.name, CONTAINER_NAME).catch((e: Error) => {
        logError = e.message;
        return '';
      });
    out.push({
      ...(logError !== undefined ? { logError } : {}),
      source: `pod/${p.name}`,
      engine: 'kubernetes',
      node: p.node,
      pool: p.pool,
      labels: p.node === null ? {} : (nodes.get(p.node) ?? {}),
      phase: p.phase,
      terminationMessage: p.terminationMessage,
      text,
    });
  }
  return out;
}

/** The line fleet slurm's script prints first: "forklab slurm job 12 task 3 on c01 partition compute". */
function slurmLabels(text: string): Record<string, string> {
  const m = /^forklab slurm job (\S+) task (\S+) on (\S+) partition (\S+)$/m.exec(text);
  if (!m) return {};
  const out: Record<string, string> = { 'slurm.job': m[1]!, 'slurm.task': m[2]!, 'slurm.node': m[3]!, 'slurm.partition': m[4]! };
  for (const k of Object.keys(out)) if (out[k] === '?') delete out[k];
  return out;
}

/** Log files of a directory (Slurm's --output files, ssh sessions' captured stdout): *.log, *.out, *.frames. */
export function directoryStreams(dir: string, engine: Placement['engine'], pool: string | null): LogStream[] {
  return readdirSync(dir)
    .filter((f) => /\.(log|out|frames)$/.test(f) && statSync(join(dir, f)).isFile())
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      const labels = engine === 'slurm' ? slurmLabels(text) : {};
      // A Slurm task's pool is its partition unless --pool says otherwise.
      return {
        source: join(dir, f),
        engine,
        node: labels['slurm.node'] ?? null,
        pool: pool ?? labels['slurm.partition'] ?? null,
        labels,
        phase: null,
        terminationMessage: null,
        text,
      };
    });
}
