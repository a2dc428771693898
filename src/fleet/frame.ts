// Run documents through a log stream: a pod (or a Slurm task, or an ssh session) prints each document as short
// framed lines, because container runtimes split long log lines and kubelets rotate logs, and a log is the one
// channel every engine gives back without a shared disk. Per document:
//
//   forklab-frame/1 begin <seq> run=<runId> node=<node> chunks=<n> bytes=<gzip bytes>
//   forklab-frame/1 data <seq> <i> <base64 of the gzip, at most 1000 characters>      (i = 1..n)
//   forklab-frame/1 end <seq> sha256=<hex of the JSON text>
//
// and once, last, a status line: `forklab-status/1 {"state":"ok",...}`. Anything else on a line before the marker
// (a timestamp prefix) and lines without a marker (the program's other output) are ignored. Decoding never trusts
// a document it cannot verify: a missing chunk, a bad base64 or gzip, a sha256 that differs are each named.

import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type Static, Type } from '@sinclair/typebox';
import { DocumentError, Nullable, OneOf, check, parseJson, schemaId } from '../document/schema.js';

const FRAME_MARK = 'forklab-frame/1';
const STATUS_MARK = 'forklab-status/1';
/** Base64 characters per data line: far below the 16 KiB at which CRI runtimes split a line. */
export const CHUNK_CHARS = 1000;

export interface FrameMeta {
  runId: string | null;
  node: string | null;
}

const word = (s: string | null): string => (s === null || s === '' ? '-' : s.replace(/\s+/g, '_'));

/** The lines (without newlines) that carry one document. */
export function encodeDocument(json: string, seq: number, meta: FrameMeta): string[] {
  const gz = gzipSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64');
  const chunks: string[] = [];
  for (let i = 0; i < gz.length; i += CHUNK_CHARS) chunks.push(gz.slice(i, i + CHUNK_CHARS));
  const sha = createHash('sha256').update(json, 'utf8').digest('hex');
  return [
    `${FRAME_MARK} begin ${seq} run=${word(meta.runId)} node=${word(meta.node)} chunks=${chunks.length} bytes=${Buffer.byteLength(gz, 'base64')}`,
    ...chunks.map((c, i) => `${FRAME_MARK} data ${seq} ${i + 1} ${c}`),
    `${FRAME_MARK} end ${seq} sha256=${sha}`,
  ];
}

export const STATUS_SCHEMA = 'forklab.fleet-status';
export const STATUS_VERSION = 1;

/** What a task reports about itself in one line (and in a pod's termination message), after `forklab-status/1`. */
export const FleetStatusSchema = Type.Object(
  {
    state: OneOf(['ok', 'failed']),
    /** Documents printed before this line. */
    documents: Type.Integer({ minimum: 0 }),
    node: Nullable(Type.String()),
    /** forklab's exit status for the measurement (0 when every experiment finished). */
    exitCode: Type.Number(),
    message: Type.Optional(Type.String()),
  },
  { $id: schemaId(STATUS_SCHEMA, STATUS_VERSION), title: 'forklab fleet status line (forklab-status/1)' },
);
export type FleetStatus = Static<typeof FleetStatusSchema>;

/** A status line's JSON as FleetStatus; throws DocumentError naming the first key that is wrong. */
export function readStatus(json: string): FleetStatus {
  return check(FleetStatusSchema, parseJson(json), '', 'the status');
}

export function statusLine(s: FleetStatus): string {
  return `${STATUS_MARK} ${JSON.stringify(s)}`;
}

/** One document of a stream, decoded or not. */
export type DecodedDocument =
  | { state: 'ok'; seq: number; runId: string | null; node: string | null; json: string; sha256: string }
  | { state: 'truncated'; seq: number; runId: string | null; reason: string }
  | { state: 'corrupt'; seq: number; runId: string | null; reason: string };

export interface DecodedStream {
  documents: DecodedDocument[];
  /** The last status line, if the stream got that far. */
  status: FleetStatus | null;
  /** Lines with a marker that could not be read at all. */
  problems: string[];
}

interface Open {
  seq: number;
  runId: string | null;
  node: string | null;
  chunks: number;
  bytes: number;
  parts: string[];
  broken: string | null;
}

const field = (w: string | undefined, key: string): string | null => {
  if (!w?.startsWith(`${key}=`)) return null;
  const v = w.slice(key.length + 1);
  return v === '-' ? null : v;
};

function finish(o: Open, sha: string): DecodedDocument {
  const base = { seq: o.seq, runId: o.runId };
  if (o.broken !== null) return { state: 'corrupt', ...base, reason: o.broken };
  if (o.parts.length !== o.chunks) return { state: 'truncated', ...base, reason: `${o.parts.length} of ${o.chunks} chunks before its end line` };
  const b64 = o.parts.join('');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return { state: 'corrupt', ...base, reason: 'a chunk is not base64' };
  const gz = Buffer.from(b64, 'base64');
  if (gz.length !== o.bytes) return { state: 'corrupt', ...base, reason: `${gz.length} bytes of gzip, the header says ${o.bytes}` };
  let json: string;
  try {
    json = gunzipSync(gz).toString('utf8');
  } catch (e) {
    return { state: 'corrupt', ...base, reason: `gzip: ${(e as Error).message}` };
  }
  const got = createHash('sha256').update(json, 'utf8').digest('hex');
  if (got !== sha) return { state: 'corrupt', ...base, reason: `sha256 ${got.slice(0, 12)}… differs from the trailer's ${sha.slice(0, 12)}…` };
  return { state: 'ok', ...base, node: o.node, json, sha256: sha };
}

/** Reassembles and verifies every framed document of a log. */
export function decodeStream(text: string): DecodedStream {
  const documents: DecodedDocument[] = [];
  const problems: string[] = [];
  let status: FleetStatus | null = null;
  let open: Open | null = null;
  const cut = (why: string) => {
    if (open === null) return;
    documents.push({ state: 'truncated', seq: open.seq, runId: open.runId, reason: why });
    open = null;
  };
  for (const [n, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    const st = line.indexOf(STATUS_MARK);
    if (st >= 0) {
      try {
        status = readStatus(line.slice(st + STATUS_MARK.length));
      } catch (e) {
        if (!(e instanceof DocumentError)) throw e;
        problems.push(
          `line ${n + 1}: ${/^not valid JSON|^the file is empty/.test(e.message) ? 'a status line that is not JSON' : `a status line that cannot be read: ${e.message}`}`,
        );
      }
      continue;
    }
    const at = line.indexOf(FRAME_MARK);
    if (at < 0) continue;
    const w = line
      .slice(at + FRAME_MARK.length)
      .trim()
      .split(' ');
    const seq = Number(w[1]);
    if (!Number.isSafeInteger(seq)) {
      problems.push(`line ${n + 1}: a frame line without a document number`);
      continue;
    }
    const cur: Open | null = open;
    if (w[0] === 'begin') {
      cut(`no end line before document ${seq} began`);
      const chunks = Number(field(w[4], 'chunks'));
      const bytes = Number(field(w[5], 'bytes'));
      open = { seq, runId: field(w[2], 'run'), node: field(w[3], 'node'), chunks, bytes, parts: [], broken: null };
      if (!Number.isSafeInteger(chunks) || !Number.isSafeInteger(bytes)) open.broken = 'its begin line has no chunk or byte count';
    } else if (w[0] === 'data') {
      if (cur === null || cur.seq !== seq) {
        problems.push(`line ${n + 1}: a chunk of document ${seq}, which has no begin line here`);
        continue;
      }
      const i = Number(w[2]);
      if (i !== cur.parts.length + 1) cur.broken ??= `chunk ${cur.parts.length + 1} is missing (got ${w[2]})`;
      cur.parts.push(w[3] ?? '');
    } else if (w[0] === 'end') {
      if (cur === null || cur.seq !== seq) {
        problems.push(`line ${n + 1}: the end of document ${seq}, which has no begin line here`);
        continue;
      }
      documents.push(finish(cur, field(w[2], 'sha256') ?? ''));
      open = null;
    } else {
      problems.push(`line ${n + 1}: unknown frame kind ${JSON.stringify(w[0])}`);
    }
  }
  cut('the log ends inside it');
  return { documents, status, problems };
}
