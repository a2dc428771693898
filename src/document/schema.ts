// Checking a document against its schema. Every document forklab reads (run, verdicts, reproduction, fleet) is
// declared once with TypeBox (@sinclair/typebox): a TypeBox schema is a JSON Schema, so the same definition
// gives the TypeScript type (Static), the check when a document is read, and schemas/*.schema.json for users
// (scripts/schemas.mjs, docs/json-schema.md). This file turns TypeBox's first error into the house's message:
// the path of the value and what is wrong with it, "configurations[3].samplesNs[10] is not a non-negative
// number (got -5)".
import { type Static, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { ForklabError } from '../errors.js';

/** A document that cannot be read; the message names the problem and where it is. */
export class DocumentError extends ForklabError {
  constructor(message: string) {
    super('document', message);
    this.name = 'DocumentError';
  }
}

/** A value, short, as an error message quotes it. */
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

/** Throws DocumentError: "PATH PROBLEM (got VALUE)". */
export function fail(path: string, problem: string, v?: unknown, showValue = true): never {
  throw new DocumentError(`${path} ${problem}${showValue ? ` (got ${preview(v)})` : ''}`);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

// The patterns the documents use, each with what a value that does not match it is not.
export const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const ISO_8601_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$';
const PATTERN_PROBLEMS: Readonly<Record<string, string>> = {
  [UUID_PATTERN]: 'is not a lower-case UUID',
  [ISO_8601_PATTERN]: 'is not an ISO 8601 date and time',
};

/** A document schema's $id: its name and the schemaVersion it describes ("urn:forklab:schema:forklab.run:1"). */
export const schemaId = (name: string, version: number): string => `urn:forklab:schema:${name}:${version}`;

// The building blocks the document schemas share.
/** A value or null. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** A date and time as ISO 8601 text with its offset ("2026-01-01T00:00:00.000Z"). */
export const IsoDate = () => Type.String({ pattern: ISO_8601_PATTERN });
/** A field's value in a configuration: a string, a finite number, a boolean or null. */
export const Scalar = () => Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
/** One of these strings. */
export function OneOf<const T extends string[]>(values: readonly [...T]): TUnion<{ [K in keyof T]: TLiteral<T[K]> }> {
  return Type.Union(values.map((v) => Type.Literal(v))) as TUnion<{ [K in keyof T]: TLiteral<T[K]> }>;
}

const NOUNS: Readonly<Record<string, string>> = {
  string: 'string',
  number: 'finite number',
  integer: 'integer',
  boolean: 'boolean',
  null: 'null',
  object: 'object',
  array: 'array',
};
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v);
const accepts = (s: TSchema, v: unknown): boolean =>
  s.type === typeOf(v) || (s.type === 'number' && typeof v === 'number') || (s.const !== undefined && typeof s.const === typeof v);

/** What is wrong with the value of one error, and whether the message shows the value. */
function problem(e: ValueError): { path: string; value: unknown; text: string; show: boolean } {
  const s = e.schema;
  const at = (text: string, show = true) => ({ path: e.path, value: e.value, text, show });
  if (e.type === ValueErrorType.ObjectRequiredProperty || e.value === undefined) return at('is missing', false);
  if (Array.isArray(s.anyOf)) {
    const variants = s.anyOf as TSchema[];
    if (variants.every((x) => x.const !== undefined)) {
      const values = variants.map((x) => String(x.const));
      return at(values.length === 2 ? `is not "${values[0]}" or "${values[1]}"` : `is not one of ${values.join(', ')}`);
    }
    // A value of the one kind the union allows beside null, wrong all the same: what is wrong with it (or inside it).
    const inner = variants.findIndex((x) => x.type !== 'null' && accepts(x, e.value));
    const first = inner >= 0 ? e.errors[inner]?.First() : undefined;
    if (first) return problem(first);
    const nouns = variants.map((x) => NOUNS[String(x.type)] ?? String(x.type));
    const list = nouns.length > 1 ? `${nouns.slice(0, -1).join(', ')} or ${nouns.at(-1)}` : String(nouns[0]);
    return at(`is not ${/^[aeiou]/.test(list) ? 'an' : 'a'} ${list}`);
  }
  if (s.const !== undefined) return at(`is not ${JSON.stringify(s.const)}`);
  switch (s.type) {
    case 'string':
      if (typeof e.value !== 'string') return at('is not a string');
      if (typeof s.minLength === 'number' && e.value.length < s.minLength) return at('is empty', false);
      if (typeof s.pattern === 'string') return at(PATTERN_PROBLEMS[s.pattern] ?? `does not match ${s.pattern}`);
      return at('is not a string');
    case 'number':
      return at(s.minimum === 0 ? 'is not a non-negative number' : 'is not a finite number');
    case 'integer':
      if (typeof e.value !== 'number' || !Number.isFinite(e.value)) return at('is not a finite number');
      return at(s.minimum === 0 ? 'is not a non-negative integer' : s.minimum === 1 ? 'is not a positive integer' : 'is not an integer');
    case 'boolean':
      return at('is not true or false');
    case 'array':
      if (Array.isArray(e.value) && Array.isArray(s.items)) return at(`does not have ${s.items.length} ${s.items[0]?.type === 'number' ? 'numbers' : 'values'}`);
      return at('is not an array');
    case 'object':
      return at('is not an object');
    default:
      return at('is not what the schema allows');
  }
}

/** A JSON pointer ("/configurations/3/samplesNs/10") as the house writes a path ("configurations[3].samplesNs[10]"), after `prefix`. */
function pathOf(pointer: string, root: unknown, prefix: string): string {
  let out = prefix;
  let at: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += Array.isArray(at) ? `[${key}]` : out === '' ? key : `.${key}`;
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return out;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/**
 * The value typed by its schema; else throws DocumentError naming the first problem with its path (after
 * `prefix`), or the value itself as `whole` when it is the problem.
 */
export function check<S extends TSchema>(schema: S, value: unknown, prefix = '', whole = 'the document'): Static<S> {
  let c = compiled.get(schema) as TypeCheck<S> | undefined;
  if (c === undefined) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  if (c.Check(value)) return value;
  const first = c.Errors(value).First();
  if (first === undefined) throw new DocumentError(`${prefix || whole} does not match its schema`);
  const p = problem(first);
  return fail(pathOf(p.path, value, prefix) || whole, p.text, p.value, p.show);
}
