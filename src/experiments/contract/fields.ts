// An experiment's fields, declared once as a runtime spec (TypeBox, as the documents are: src/document/schema.ts):
// the schema of what identifies a configuration and that of what was observed about it. The types its run writes
// and its summary reads derive from it (FieldsOf), its run writes them through it (measurementsFrom,
// shared/measure.ts, takes no field the spec does not declare), and measurements read back from a document are
// checked against it before they are read as typed (measurementsOf).
import { type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ForklabError } from '../../errors.js';
import type { Configuration, FieldValues, Fields, Measurement } from './types.js';

/** A TypeBox schema whose values have the type T. */
export type SchemaOf<T> = TSchema & { static: T };

/** An experiment's fields as a runtime spec: whose they are, and the schemas of its identity and of what was observed. */
export interface FieldsSpec<I extends FieldValues = FieldValues, O extends FieldValues = FieldValues> {
  readonly experiment: string;
  readonly identity: SchemaOf<I>;
  readonly observed: SchemaOf<O>;
}

/** The spec of an experiment's fields (each schema an object, or a union of objects for series that carry different fields). */
export function defineFields<I extends FieldValues, O extends FieldValues>(experiment: string, identity: SchemaOf<I>, observed: SchemaOf<O>): FieldsSpec<I, O> {
  return { experiment, identity, observed };
}

/** The fields a spec declares, with their types (a union of specs: the fields of either). */
export type FieldsOf<S> = S extends FieldsSpec<infer I, infer O> ? Fields<I, O> : never;

/** A measurement that carries the fields a spec declares (a union of specs: those of one of them). */
export type Carrying<S> = S extends FieldsSpec<infer I, infer O> ? Measurement & { identity: I; observed: O } : never;

/** A configuration of a document with the fields a spec declares (a list of specs: those of one of its kinds). */
export type ConfigurationOfSpec<S> = S extends readonly (infer K)[] ? ConfigurationOfKind<K> : ConfigurationOfKind<S>;
type ConfigurationOfKind<S> = S extends FieldsSpec<infer I, infer O> ? Configuration & I & O : never;

// The building blocks of the specs.
/** A value or null. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** One of these strings (the list an experiment keeps of its methods, modes…). */
export const OneOfList = <T extends string>(values: readonly T[]): SchemaOf<T> => Type.Unsafe<T>(Type.Union(values.map((v) => Type.Literal(v))));
/** Any field value: a string, a number, a boolean or null. */
export const AnyScalar = () => Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
/** No field at all (a series that carries none of the others' observed fields). */
export const NoFields = () => Type.Record(Type.String(), Type.Never());

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (c === undefined) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c;
}

/** Whether fields are as a schema declares them (the first problem: its path and TypeBox's words), null when they are. */
export function fieldsProblem(schema: TSchema, fields: unknown): string | null {
  const c = checker(schema);
  if (c.Check(fields)) return null;
  const e = c.Errors(fields).First();
  return e === undefined ? 'does not match' : `${e.path || '/'}: ${e.message}`;
}

/** Whether a measurement carries the fields a spec declares, with their types. */
export function carries<S extends FieldsSpec>(spec: S, m: Measurement): m is Carrying<S> {
  return fieldsProblem(spec.identity, m.identity) === null && fieldsProblem(spec.observed, m.observed) === null;
}

/**
 * The measurements of a run typed by its experiment's spec (or specs, for an experiment whose measurements are of
 * several kinds), each checked: a measurement that does not carry the fields declared is an error naming it.
 */
export function measurementsOf<S extends FieldsSpec>(spec: S | readonly S[], ms: readonly Measurement[]): Carrying<S>[] {
  const specs = isList(spec) ? spec : [spec];
  const declared = (m: Measurement): m is Carrying<S> => specs.some((s) => carries(s, m));
  const out: Carrying<S>[] = [];
  for (const m of ms) {
    if (declared(m)) out.push(m);
    else {
      const first = specs[0]!;
      const problem = fieldsProblem(first.identity, m.identity) ?? fieldsProblem(first.observed, m.observed);
      throw new ForklabError(
        'document',
        `a ${first.experiment} measurement (series ${m.series}, repeat ${m.repeat}) does not carry the fields ${first.experiment} declares: ${problem ?? 'of none of its kinds'}`,
      );
    }
  }
  return out;
}

const isList = <T>(x: T | readonly T[]): x is readonly T[] => Array.isArray(x);
