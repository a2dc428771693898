// The one reader of a run document's text (forklab import, judge, report --input, the history store and the
// fleet's collector all read with it): checks that it is a run document this forklab can read (schema
// "forklab.run", schemaVersion 1), field by field, and names the first problem with its path: "configurations[3].samplesNs[10] is not a
// non-negative number (got -5)". Hand-written: no schema library.
import { ForklabError } from '../errors.js';
import { CONFIGURATION_KEYS, DOCUMENT_SCHEMA, DOCUMENT_VERSION, type RunDocument } from './run.js';

/** A document that cannot be read; the message names the problem and where it is. The field checks below serve every document's reader. */
export class DocumentError extends ForklabError {
  constructor(message: string) {
    super('document', message);
    this.name = 'DocumentError';
  }
}

type Obj = Record<string, unknown>;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function preview(v: unknown): string {
  if (v === undefined) return 'nothing';
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

export function fail(path: string, problem: string, v?: unknown, showValue = true): never {
  throw new DocumentError(`${path} ${problem}${showValue ? ` (got ${preview(v)})` : ''}`);
}

export const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function object(v: unknown, path: string): Obj {
  if (!isObject(v)) fail(path, v === undefined ? 'is missing' : 'is not an object', v, v !== undefined);
  return v;
}

export function present(o: Obj, key: string, path: string): unknown {
  if (!(key in o)) fail(join(path, key), 'is missing', undefined, false);
  return o[key];
}

export function string(o: Obj, key: string, path: string, nonEmpty = false): string {
  const v = present(o, key, path);
  if (typeof v !== 'string') fail(join(path, key), 'is not a string', v);
  if (nonEmpty && v === '') fail(join(path, key), 'is empty', v, false);
  return v;
}

function stringOrNull(o: Obj, key: string, path: string): string | null {
  const v = present(o, key, path);
  if (v !== null && typeof v !== 'string') fail(join(path, key), 'is not a string or null', v);
  return v;
}

function finite(v: unknown, path: string, what = 'a finite number'): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, `is not ${what}`, v);
  return v;
}

export function number(o: Obj, key: string, path: string): number {
  return finite(present(o, key, path), join(path, key));
}

function numberOrNull(o: Obj, key: string, path: string): number | null {
  const v = present(o, key, path);
  return v === null ? null : finite(v, join(path, key), 'a finite number or null');
}

export function boolean(o: Obj, key: string, path: string): boolean {
  const v = present(o, key, path);
  if (typeof v !== 'boolean') fail(join(path, key), 'is not true or false', v);
  return v;
}

export function array(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, v === undefined ? 'is missing' : 'is not an array', v, v !== undefined);
  return v;
}

function numberArray(v: unknown, path: string, check: (x: unknown, p: string) => void): number[] {
  const a = array(v, path);
  for (let i = 0; i < a.length; i++) check(a[i], `${path}[${i}]`);
  return a as number[];
}

const nonNegative = (x: unknown, p: string) => {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) fail(p, 'is not a non-negative number', x);
};
const anyFinite = (x: unknown, p: string) => void finite(x, p);

export function isoDate(o: Obj, key: string, path: string): string {
  const s = string(o, key, path);
  if (!ISO_8601.test(s) || Number.isNaN(Date.parse(s))) fail(join(path, key), 'is not an ISO 8601 date and time', s);
  return s;
}

function scalar(v: unknown, path: string): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number' && Number.isFinite(v)) return;
  fail(path, 'is not a string, finite number, boolean or null', v);
}

function scalarRecord(v: unknown, path: string): void {
  const o = object(v, path);
  for (const [k, x] of Object.entries(o)) scalar(x, join(path, k));
}

// What the machine record must hold: each field's type ('?' = may be null).
const MACHINE_FIELDS: Record<string, 'string' | 'string?' | 'number' | 'number?' | 'numbers?' | 'object?' | 'triple' | 'strings'> = {
  hostname: 'string',
  kernel: 'string',
  kernelVersion: 'string',
  arch: 'string',
  cpuModel: 'string?',
  cpuCount: 'number',
  cpusAllowed: 'numbers?',
  memTotalKb: 'number?',
  memAvailableKb: 'number?',
  swapTotalKb: 'number?',
  thpEnabled: 'string?',
  thpDefrag: 'string?',
  hugePageSizeKb: 'number?',
  pageSizeBytes: 'number',
  glibcVersion: 'string?',
  compilerVersion: 'string?',
  nodeVersion: 'string',
  cgroupMemoryLimitBytes: 'number?',
  vmMaxMapCount: 'number?',
  overcommitMemory: 'number?',
  virtualization: 'string?',
  pinnedCpu: 'number?',
  loadAverage: 'triple',
  cpuPressure: 'object?',
  clockSource: 'string?',
  cpuGovernor: 'string?',
  collectedAt: 'string',
  notes: 'strings',
};

function triple(v: unknown, path: string): void {
  const a = numberArray(v, path, anyFinite);
  if (a.length !== 3) fail(path, 'does not have 3 numbers', v);
}

function pressure(v: unknown, path: string): void {
  if (v === null) return;
  const o = object(v, path);
  for (const k of ['someAvg10', 'someAvg60', 'someAvg300', 'someTotalUs']) number(o, k, path);
}

function machine(v: unknown, path: string): void {
  const o = object(v, path);
  for (const [key, type] of Object.entries(MACHINE_FIELDS)) {
    const p = join(path, key);
    switch (type) {
      case 'string':
        string(o, key, path);
        break;
      case 'string?':
        stringOrNull(o, key, path);
        break;
      case 'number':
        number(o, key, path);
        break;
      case 'number?':
        numberOrNull(o, key, path);
        break;
      case 'numbers?':
        if (present(o, key, path) !== null) numberArray(o[key], p, anyFinite);
        break;
      case 'object?':
        pressure(present(o, key, path), p);
        break;
      case 'triple':
        triple(present(o, key, path), p);
        break;
      case 'strings':
        for (const [i, s] of array(present(o, key, path), p).entries()) if (typeof s !== 'string') fail(`${p}[${i}]`, 'is not a string', s);
        break;
    }
  }
}

/** A load sample; `after` may be null for a run that never finished (killed). */
function loadSample(v: unknown, path: string, nullable: boolean): void {
  if (v === null && nullable) return;
  const o = object(v, path);
  isoDate(o, 'at', path);
  triple(present(o, 'loadAverage', path), join(path, 'loadAverage'));
  pressure(present(o, 'cpuPressure', path), join(path, 'cpuPressure'));
}

const STATS_KEYS = ['n', 'minNs', 'medianNs', 'meanNs', 'p90Ns', 'p99Ns', 'maxNs', 'stdevNs', 'ciLowNs', 'ciHighNs', 'ciConfidence'];

/** Checks one configuration object (as measurementToJson writes it); `path` prefixes the messages. */
export function validateConfiguration(v: unknown, path: string): void {
  const o = object(v, path);
  string(o, 'series', path, true);
  const repeat = present(o, 'repeat', path);
  if (typeof repeat !== 'number' || !Number.isSafeInteger(repeat) || repeat < 0) fail(join(path, 'repeat'), 'is not a non-negative integer', repeat);
  const state = present(o, 'state', path);
  if (state !== 'ok' && state !== 'failed') fail(join(path, 'state'), 'is not "ok" or "failed"', state);
  if ('failure' in o && typeof o.failure !== 'string') fail(join(path, 'failure'), 'is not a string', o.failure);
  if (state === 'failed' && !('failure' in o)) fail(join(path, 'failure'), 'is missing (state is "failed")', undefined, false);
  scalarRecord(present(o, 'info', path), join(path, 'info'));
  const samples = numberArray(present(o, 'samplesNs', path), join(path, 'samplesNs'), nonNegative);
  if ('columns' in o) {
    const cols = object(o.columns, join(path, 'columns'));
    for (const [name, col] of Object.entries(cols)) {
      const p = `${join(path, 'columns')}.${name}`;
      const c = numberArray(col, p, anyFinite);
      if (c.length !== samples.length) fail(p, `has ${c.length} values but samplesNs has ${samples.length}`, undefined, false);
    }
  }
  const stats = present(o, 'stats', path);
  const sp = join(path, 'stats');
  // An 'ok' configuration may carry fields only (no samples, stats null): pagetables' phase rows, say.
  if (stats !== null) {
    const s = object(stats, sp);
    for (const k of STATS_KEYS) number(s, k, sp);
    if (s.cv !== null) number(s, 'cv', sp); // JSON has no Infinity: a cv of Infinity is written as null
    if (s.n !== samples.length) fail(join(sp, 'n'), `is ${String(s.n)} but samplesNs has ${samples.length} values`, undefined, false);
  }
  for (const [k, x] of Object.entries(o)) if (!(CONFIGURATION_KEYS as readonly string[]).includes(k)) scalar(x, join(path, k));
}

/** Checks an already parsed value; returns it typed, or throws DocumentError naming the first problem. */
export function validateRunDocument(value: unknown): RunDocument {
  if (!isObject(value)) fail('the document', 'is not a JSON object', value);
  const d = value;
  if (!('schema' in d)) throw new DocumentError(`not a forklab run document: no "schema" field (expected "${DOCUMENT_SCHEMA}")`);
  if (d.schema !== DOCUMENT_SCHEMA) throw new DocumentError(`not a forklab run document: schema is ${preview(d.schema)}, expected "${DOCUMENT_SCHEMA}"`);
  const version = present(d, 'schemaVersion', '');
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) fail('schemaVersion', 'is not a positive integer', version);
  if (version > DOCUMENT_VERSION)
    throw new DocumentError(`schemaVersion ${version} is newer than this forklab reads (up to ${DOCUMENT_VERSION}): upgrade forklab to read this document`);
  if (version !== DOCUMENT_VERSION) throw new DocumentError(`schemaVersion ${version} is not supported (this forklab reads ${DOCUMENT_VERSION})`);
  string(d, 'forklabVersion', '');
  string(d, 'experiment', '', true);
  const runId = stringOrNull(d, 'runId', '');
  if (runId !== null && !UUID.test(runId)) fail('runId', 'is not a lower-case UUID', runId);
  if ('label' in d && d.label !== undefined) string(d, 'label', '', true);
  isoDate(d, 'startedAt', '');
  isoDate(d, 'finishedAt', '');
  const duration = number(d, 'durationMs', '');
  if (duration < 0) fail('durationMs', 'is negative', duration);
  boolean(d, 'complete', '');
  object(present(d, 'params', ''), 'params');
  machine(present(d, 'machine', ''), 'machine');
  const load = object(present(d, 'load', ''), 'load');
  loadSample(present(load, 'before', 'load'), 'load.before', false);
  loadSample(present(load, 'after', 'load'), 'load.after', true);
  const warnings = array(present(d, 'warnings', ''), 'warnings');
  warnings.forEach((w, i) => {
    const o = object(w, `warnings[${i}]`);
    string(o, 'code', `warnings[${i}]`);
    string(o, 'message', `warnings[${i}]`);
  });
  const configs = array(present(d, 'configurations', ''), 'configurations');
  for (const [i, c] of configs.entries()) validateConfiguration(c, `configurations[${i}]`);
  // summary may be absent (undefined is not written to JSON): read as null.
  return d as unknown as RunDocument;
}

/** The JSON value of a document's text; throws DocumentError for an empty file or text that is not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') throw new DocumentError('the file is empty');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DocumentError(`not valid JSON (a truncated or damaged file?): ${(e as Error).message}`);
  }
}

/** Parses and checks the text of a run document (a file given to forklab import, say). */
export function parseRunDocument(text: string): RunDocument {
  return validateRunDocument(parseJson(text));
}
