// The one reader of a run document's text (forklab import, judge, report --input, the history store and the
// fleet's collector all read with it): checks that it is a run document this forklab can read (schema
// "forklab.run", schemaVersion 1) against its schema (src/document/run-schema.ts), then what the schema cannot
// say, and names the first problem with its path: "configurations[3].samplesNs[10] is not a non-negative
// number (got -5)".
import type { Configuration } from '../experiments/contract/types.js';
import { ConfigurationSchema, DOCUMENT_SCHEMA, DOCUMENT_VERSION, RunDocumentSchema, type RunDocument } from './run-schema.js';
import { DocumentError, check, fail, isObject, parseJson, preview } from './schema.js';

export { DocumentError, parseJson, preview } from './schema.js';

const exists = (iso: string) => !Number.isNaN(Date.parse(iso));

/** What the schema of a configuration cannot say: a failed one has its failure; stats and columns as long as its samples. */
function consistent(c: Configuration, path: string): void {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (c.state === 'failed' && c.failure === undefined) fail(at('failure'), 'is missing (state is "failed")', undefined, false);
  const n = c.samplesNs.length;
  for (const [name, col] of Object.entries(c.columns ?? {}))
    if (col.length !== n) fail(`${at('columns')}.${name}`, `has ${col.length} values but samplesNs has ${n}`, undefined, false);
  if (c.stats !== null && c.stats.n !== n) fail(at('stats.n'), `is ${String(c.stats.n)} but samplesNs has ${n} values`, undefined, false);
}

/** Checks one configuration object (as measurementToJson writes it); `path` prefixes the messages. */
export function validateConfiguration(v: unknown, path: string): Configuration {
  const c = check(ConfigurationSchema, v, path);
  consistent(c, path);
  return c;
}

/** Checks an already parsed value; returns it typed, or throws DocumentError naming the first problem. */
export function validateRunDocument(value: unknown): RunDocument {
  if (!isObject(value)) fail('the document', 'is not a JSON object', value);
  if (!('schema' in value)) throw new DocumentError(`not a forklab run document: no "schema" field (expected "${DOCUMENT_SCHEMA}")`);
  if (value.schema !== DOCUMENT_SCHEMA) throw new DocumentError(`not a forklab run document: schema is ${preview(value.schema)}, expected "${DOCUMENT_SCHEMA}"`);
  if (!('schemaVersion' in value)) fail('schemaVersion', 'is missing', undefined, false);
  const version = value.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) fail('schemaVersion', 'is not a positive integer', version);
  if (version > DOCUMENT_VERSION)
    throw new DocumentError(`schemaVersion ${version} is newer than this forklab reads (up to ${DOCUMENT_VERSION}): upgrade forklab to read this document`);
  if (version !== DOCUMENT_VERSION) throw new DocumentError(`schemaVersion ${version} is not supported (this forklab reads ${DOCUMENT_VERSION})`);
  const doc = check(RunDocumentSchema, value);
  for (const key of ['startedAt', 'finishedAt'] as const) if (!exists(doc[key])) fail(key, 'is not an ISO 8601 date and time', doc[key]);
  for (const key of ['before', 'after'] as const) {
    const at = doc.load[key]?.at;
    if (at !== undefined && !exists(at)) fail(`load.${key}.at`, 'is not an ISO 8601 date and time', at);
  }
  for (const [i, c] of doc.configurations.entries()) consistent(c, `configurations[${i}]`);
  return doc;
}

/** Parses and checks the text of a run document (a file given to forklab import, say). */
export function parseRunDocument(text: string): RunDocument {
  return validateRunDocument(parseJson(text));
}
