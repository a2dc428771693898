// The documents judging writes, declared once with TypeBox (src/document/schema.ts): `forklab judge --json`
// (forklab.verdicts, or one per machine in forklab.verdicts-by-machine), `forklab fleet report --json`
// (forklab.fleet) and `forklab reproduce --json` (forklab.reproduce). Each schema holds the keys their readers
// use (the rest of each document is described by its type and is open); the readers check a document against
// it and name the file and the first key that is wrong, as the run document's reader does.
// schemas/*.schema.json are generated from these (scripts/schemas.mjs).
import { Type } from '@sinclair/typebox';
import { RunDocumentSchema } from '../document/run-schema.js';
import { DocumentError, OneOf, check, fail, isObject, parseJson, preview, schemaId } from '../document/schema.js';
import { VERDICT_VALUES } from './evaluate.js';
import { FLEET_SCHEMA, FLEET_VERSION, type FleetDocument } from './fleet.js';
import { VERDICTS_BY_MACHINE_SCHEMA, VERDICTS_SCHEMA, VERDICTS_VERSION, type VerdictsDocument } from './judge.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from './reproduction.js';

const Verdict = () => OneOf(VERDICT_VALUES);

export const VerdictsSchema = Type.Unsafe<VerdictsDocument>(
  Type.Object(
    {
      schema: Type.Literal(VERDICTS_SCHEMA),
      schemaVersion: Type.Literal(VERDICTS_VERSION),
      forklabVersion: Type.String(),
      seed: Type.Number(),
      articles: Type.Array(Type.String()),
      verdicts: Type.Array(
        Type.Object({
          claimId: Type.String(),
          // An article's claim names its article; a source's claim (published beyond the articles) names its source.
          article: Type.Optional(Type.String()),
          source: Type.Optional(Type.String()),
          experiment: Type.String(),
          statement: Type.String(),
          verdict: Verdict(),
          notes: Type.Array(Type.String()),
        }),
      ),
      figures: Type.Array(
        Type.Object({
          figureId: Type.String(),
          article: Type.Optional(Type.String()),
          source: Type.Optional(Type.String()),
          experiment: Type.String(),
          unit: Type.String(),
          detail: Type.String(),
          published: Type.Number(),
        }),
      ),
      runs: Type.Array(Type.Object({ experiment: Type.String(), startedAt: Type.String(), complete: Type.Boolean() })),
    },
    { $id: schemaId(VERDICTS_SCHEMA, VERDICTS_VERSION), title: 'forklab verdicts document (forklab judge --json)' },
  ),
);

export const VERDICTS_BY_MACHINE_VERSION = 1;

export const VerdictsByMachineSchema = Type.Object(
  {
    schema: Type.Literal(VERDICTS_BY_MACHINE_SCHEMA),
    schemaVersion: Type.Literal(VERDICTS_BY_MACHINE_VERSION),
    byMachine: Type.Array(VerdictsSchema),
  },
  { $id: schemaId(VERDICTS_BY_MACHINE_SCHEMA, VERDICTS_BY_MACHINE_VERSION), title: 'forklab verdicts per machine (forklab judge --json, runs of several machines)' },
);

export const FleetSchema = Type.Unsafe<FleetDocument>(
  Type.Object(
    {
      schema: Type.Literal(FLEET_SCHEMA),
      schemaVersion: Type.Literal(FLEET_VERSION),
      forklabVersion: Type.String(),
      createdAt: Type.String(),
      seed: Type.Number(),
      reference: Type.String(),
      differingFields: Type.Array(Type.String()),
      members: Type.Array(Type.Object({ machine: Type.String(), node: Type.String(), record: Type.Object({}), runs: Type.Array(Type.Object({ experiment: Type.String() })) })),
      results: Type.Array(
        Type.Object({
          machine: Type.String(),
          verdicts: Type.Array(Type.Object({ claimId: Type.String(), verdict: Verdict() })),
          headline: Type.Array(Type.Object({ figureId: Type.String() })),
          versusReference: Type.Union([Type.Array(Type.Object({ experiment: Type.String() })), Type.Null()]),
        }),
      ),
    },
    { $id: schemaId(FLEET_SCHEMA, FLEET_VERSION), title: 'forklab fleet document (forklab fleet report --json)' },
  ),
);

/** A reproduction: the keys its renderers read; each run is a stored run's id or a whole run document. */
export const ReproduceSchema = Type.Unsafe<ReproduceDocument>(
  Type.Object(
    {
      schema: Type.Literal(REPRODUCE_SCHEMA),
      schemaVersion: Type.Union([Type.Literal(1), Type.Literal(REPRODUCE_VERSION)]),
      articles: Type.Array(Type.String()),
      experiments: Type.Array(Type.Object({ experiment: Type.String(), state: Type.String() })),
      runs: Type.Array(Type.Union([Type.String(), RunDocumentSchema])),
      verdicts: Type.Array(Type.Object({})),
      figures: Type.Array(Type.Object({})),
    },
    { $id: schemaId(REPRODUCE_SCHEMA, REPRODUCE_VERSION), title: 'forklab reproduction (forklab reproduce --json)' },
  ),
);

/** The document's schema and version, checked against what this forklab reads. */
function header(value: unknown, schemas: readonly string[], version: number, what: string): Record<string, unknown> {
  if (!isObject(value)) fail('the document', 'is not a JSON object', value);
  const names = schemas.map((s) => `"${s}"`).join(' or ');
  if (!('schema' in value)) throw new DocumentError(`not a ${what}: no "schema" field (expected ${names})`);
  if (!schemas.includes(value.schema as string)) throw new DocumentError(`not a ${what}: schema is ${preview(value.schema)}, expected ${names}`);
  if (!('schemaVersion' in value)) fail('schemaVersion', 'is missing', undefined, false);
  if (value.schemaVersion !== version) throw new DocumentError(`schemaVersion ${preview(value.schemaVersion)} is not read by this forklab (it reads ${version})`);
  return value;
}

/** The name of the reader's file in front of the problem. */
function named<T>(where: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof DocumentError) throw new DocumentError(`${where}: ${e.message}`);
    throw e;
  }
}

/**
 * The verdicts documents of `forklab judge --json`'s text: one, or one per machine (forklab.verdicts-by-machine).
 * Throws DocumentError naming `where` and the first key that is wrong.
 */
export function readVerdicts(text: string, where: string): VerdictsDocument[] {
  return named(where, () => {
    const value = parseJson(text);
    const byMachine = isObject(value) && value.schema === VERDICTS_BY_MACHINE_SCHEMA;
    const d = header(value, [VERDICTS_SCHEMA, VERDICTS_BY_MACHINE_SCHEMA], byMachine ? VERDICTS_BY_MACHINE_VERSION : VERDICTS_VERSION, 'forklab verdicts document');
    if (!byMachine) return [check(VerdictsSchema, d)];
    // Each machine's document is a verdicts document of its own: its header is named as such.
    if (Array.isArray(d.byMachine)) for (const [i, m] of d.byMachine.entries()) header(m, [VERDICTS_SCHEMA], VERDICTS_VERSION, `forklab verdicts document (byMachine[${i}])`);
    return check(VerdictsByMachineSchema, d).byMachine;
  });
}

/** The forklab.fleet document of `forklab fleet report --json`'s text; throws DocumentError naming `where` and the first key that is wrong. */
export function readFleet(text: string, where: string): FleetDocument {
  return named(where, () => check(FleetSchema, header(parseJson(text), [FLEET_SCHEMA], FLEET_VERSION, 'forklab fleet document')));
}
