// What the history database hands in and out (a run's row, its start and finish, the filters and open options)
// and how samples, configurations and documents are encoded for it; whether a run's recorder is gone. The
// database itself: db.ts.
import type { SqlDatabase } from './sqlite.js';
import { createHash } from 'node:crypto';
import type { LoadSample, MachineRecord } from '../env/machine.js';
import type { Configuration, StoredWarning } from '../experiments/contract/types.js';
import { CONFIGURATION_KEYS, DOCUMENT_SCHEMA, DOCUMENT_VERSION, type RunDocument } from '../document/run.js';
import { processIdentity } from '../env/process.js';
import { StoreError, type MeasurementRecord, type RunRecord, type RunStatus } from './migrations.js';

export interface RunRow {
  id: number;
  uuid: string;
  experiment: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  hostname: string;
  forklabVersion: string;
  /** Measurements stored (one per series per probe process), failed ones included. */
  measurements: number;
  imported: boolean;
  /** The user's --label for the run (stored in the runs.note column), or null. */
  label: string | null;
}

/** Which runs `forklab history` lists: every filter optional; limit keeps the most recent N. */
export interface RunFilter {
  experiment?: string;
  label?: string;
  /** Runs started at or after this instant. */
  since?: Date;
  limit?: number;
}

export interface RunStart {
  experiment: string;
  params: Record<string, unknown>;
  machine: MachineRecord;
  loadBefore: LoadSample;
  forklabVersion: string;
  startedAt: Date;
  label?: string | null;
}

export interface RunFinish {
  complete: boolean;
  summary: unknown;
  warnings: StoredWarning[];
  loadAfter: LoadSample;
  finishedAt: Date;
}

export interface OpenOptions {
  /** Create the database (and its directory) when missing; default true. False → StoreError kind 'missing'. */
  create?: boolean;
  /** Busy timeout in ms; default 10 000. */
  busyTimeoutMs?: number;
  /** Create the directory of a missing database (default true). False → StoreError when it does not exist. */
  createDirectory?: boolean;
  /** Refuse (StoreError kind 'readonly') a database this process could not write to; default false. */
  requireWritable?: boolean;
}

export function encodeSamples(xs: readonly number[]): Buffer {
  const b = Buffer.alloc(xs.length * 8);
  for (let i = 0; i < xs.length; i++) b.writeDoubleLE(xs[i]!, i * 8);
  return b;
}

function decodeSamples(stored: Uint8Array, n: number, where: string): number[] {
  const b = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (b.length !== n * 8) throw new StoreError(`${where}: the stored samples are damaged (${b.length} bytes for ${n} samples)`);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = b.readDoubleLE(i * 8);
  return out;
}

/** A UUID derived from a document's content, for documents written without a history (runId null). */
export function contentUuid(doc: RunDocument): string {
  const h = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A stored run and its measurements as the run document it was (export writes it; compare and report read it). */
export function documentOf(r: RunRecord, rows: readonly MeasurementRecord[]): RunDocument {
  const runId = r.id;
  const configurations = rows.map((m) => {
    const o: Record<string, unknown> = { series: m.series, ...(JSON.parse(m.fields) as object), repeat: m.repeat_index, state: m.state };
    if (m.failure !== null) o.failure = m.failure;
    o.info = JSON.parse(m.info);
    o.samplesNs = decodeSamples(m.samples, m.sample_count, `run ${runId}, measurement ${m.seq}`);
    if (m.columns !== null) o.columns = JSON.parse(m.columns);
    o.stats = m.stats === null ? null : JSON.parse(m.stats);
    return o as Configuration; // what the run's document held: checked by its reader when it was stored
  });
  const finishedAt = r.finished_at ?? rows.at(-1)?.added_at ?? r.started_at;
  return {
    schema: DOCUMENT_SCHEMA,
    schemaVersion: DOCUMENT_VERSION,
    forklabVersion: r.forklab_version,
    experiment: r.experiment,
    runId: r.uuid,
    ...(r.note !== null ? { label: r.note } : {}),
    startedAt: r.started_at,
    finishedAt,
    durationMs: r.duration_ms ?? Date.parse(finishedAt) - Date.parse(r.started_at),
    complete: r.status === 'complete',
    params: JSON.parse(r.params) as Record<string, unknown>,
    machine: JSON.parse(r.machine) as MachineRecord,
    // A run that never finished has no final load sample: null (see docs/history.md).
    load: { before: JSON.parse(r.load_before) as LoadSample, after: (r.load_after === null ? null : JSON.parse(r.load_after)) as LoadSample },
    warnings: JSON.parse(r.warnings) as StoredWarning[],
    configurations,
    summary: r.summary === null ? null : JSON.parse(r.summary),
  };
}

/** The WHERE clause, its arguments and the LIMIT clause of a run filter (runs r). */
export function runFilterSql(filter: RunFilter): { where: string; args: (string | number)[]; limit: string } {
  const conds: [string, string | number][] = [];
  if (filter.experiment !== undefined) conds.push(['r.experiment = ?', filter.experiment]);
  if (filter.label !== undefined) conds.push(['r.note = ?', filter.label]);
  if (filter.since !== undefined) conds.push(['r.started_at >= ?', filter.since.toISOString()]);
  return {
    where: conds.length ? `WHERE ${conds.map(([c]) => c).join(' AND ')}` : '',
    args: conds.map(([, a]) => a),
    limit: filter.limit === undefined ? '' : `ORDER BY r.started_at DESC, r.id DESC LIMIT ${Math.max(0, Math.floor(filter.limit))}`,
  };
}

/** A runs row as listRuns selects it: with its measurement count and the machine record's hostname. */
export type ListedRunRecord = RunRecord & { n: number; machine_host: string | null };

export function runRowOf(r: ListedRunRecord): RunRow {
  return {
    id: r.id,
    uuid: r.uuid,
    experiment: r.experiment,
    status: r.status,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    durationMs: r.duration_ms,
    hostname: r.machine_host ?? r.hostname, // the machine record's; the same as the recorder's unless imported
    forklabVersion: r.forklab_version,
    measurements: r.n,
    imported: r.imported_at !== null,
    label: r.note,
  };
}

/**
 * What `latest` is: the reproduction when the latest thing made was a `forklab reproduce` (stored after the last run
 * started), else the most recently started run; null in an empty history.
 */
export function latestMade(db: SqlDatabase): { kind: 'run' | 'reproduction'; id: number } | null {
  const run = db.prepare('SELECT id, started_at FROM runs ORDER BY started_at DESC, id DESC LIMIT 1').get() as { id: number; started_at: string } | undefined;
  const repro = db.prepare('SELECT id, finished_at FROM reproductions ORDER BY finished_at DESC, id DESC LIMIT 1').get() as { id: number; finished_at: string } | undefined;
  if (repro && (!run || Date.parse(repro.finished_at) >= Date.parse(run.started_at))) return { kind: 'reproduction', id: repro.id };
  return run ? { kind: 'run', id: run.id } : null;
}

/**
 * A run id from what a user typed: an id, a uuid or its first characters, latest (when the latest thing made is
 * a run), latest~N (N runs before the latest run) or latest:EXPERIMENT (the latest run of one experiment).
 */
export function resolveRunRef(db: SqlDatabase, path: string, ref: string): number {
  const s = ref.trim().toLowerCase();
  const ofExperiment = /^latest:([a-z][a-z0-9-]*)$/.exec(s);
  if (ofExperiment) {
    const r = db.prepare('SELECT id FROM runs WHERE experiment = ? ORDER BY started_at DESC, id DESC LIMIT 1').get(ofExperiment[1]!) as { id: number } | undefined;
    if (!r) throw new StoreError(`no run of experiment ${ofExperiment[1]} in ${path} (forklab history lists them)`);
    return r.id;
  }
  if (s === 'latest') {
    const made = latestMade(db);
    if (made?.kind === 'reproduction')
      throw new StoreError(
        `the latest thing made here is reproduction R${made.id} (forklab reproduce), not a run; give latest:EXPERIMENT (latest:spawn) or a run id for a run, R${made.id} for the reproduction`,
      );
  }
  const latest = /^latest(?:~(\d+))?$/.exec(s);
  if (latest) {
    const back = Number(latest[1] ?? 0);
    const r = db.prepare('SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET ?').get(back) as { id: number } | undefined;
    if (!r) throw new StoreError(`no run ${ref.trim()} in ${path} (forklab history lists them)`);
    return r.id;
  }
  if (/^\d+$/.test(s) && Number.isSafeInteger(Number(s))) {
    const r = db.prepare('SELECT id FROM runs WHERE id = ?').get(Number(s)) as { id: number } | undefined;
    if (r) return r.id;
    if (s.length < 4) throw new StoreError(`no run ${s} in ${path} (forklab history lists them)`);
  }
  if (!/^[0-9a-f-]+$/.test(s))
    throw new StoreError(`"${ref}" is not a run: give a run id (forklab history lists them), a uuid or its first characters, latest, latest~N or latest:EXPERIMENT`);
  const hits = db.prepare("SELECT id, uuid FROM runs WHERE uuid LIKE ? || '%' ORDER BY id LIMIT 6").all(s) as { id: number; uuid: string }[];
  if (hits.length === 1) return hits[0]!.id;
  if (hits.length === 0) throw new StoreError(`no run ${ref.trim()} in ${path} (forklab history lists them)`);
  const list = hits
    .slice(0, 5)
    .map((h) => `${h.id} (${h.uuid.slice(0, 13)})`)
    .join(', ');
  throw new StoreError(`"${ref.trim()}" matches several runs: ${list}${hits.length > 5 ? ', ...' : ''}; give more characters of the uuid, or the run id`);
}

/** Stores a run's configurations after its last stored one (seq goes on), each with its fields beside the keys every configuration has. */
export function insertConfigurations(db: SqlDatabase, runId: number, configs: readonly Configuration[], addedAt: string): void {
  const next = db.prepare('SELECT coalesce(max(seq), -1) + 1 AS seq FROM measurements WHERE run_id = ?').get(runId) as { seq: number };
  const insert = db.prepare(
    `INSERT INTO measurements (run_id, seq, series, fields, repeat_index, state, failure, info, sample_count, samples, columns, stats, added_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let seq = next.seq;
  for (const c of configs) {
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) if (!(CONFIGURATION_KEYS as readonly string[]).includes(k)) fields[k] = v;
    const samples = c.samplesNs;
    insert.run(
      runId,
      seq++,
      c.series,
      JSON.stringify(fields),
      c.repeat,
      c.state,
      c.failure ?? null,
      JSON.stringify(c.info),
      samples.length,
      encodeSamples(samples),
      'columns' in c ? JSON.stringify(c.columns) : null,
      c.stats === null ? null : JSON.stringify(c.stats),
      addedAt,
    );
  }
}

/** Is the process that recorded this 'running' row gone (killed, crashed, or its pid reused since)? Another host's: cannot tell, so no. */
export function recorderGone(r: RunRecord, here: { host: string; bootId: string | null }): boolean {
  if (r.hostname !== here.host || r.pid === null) return false;
  if (r.boot_id !== null && here.bootId !== null && r.boot_id !== here.bootId) return true;
  const now = processIdentity(r.pid);
  if (now === null) return true;
  if (r.proc_start !== null && now.startTicks !== null && r.proc_start !== now.startTicks) return true;
  if (r.cmdline !== null && now.cmdline !== null && r.cmdline !== now.cmdline) return true;
  return false;
}
