// The JSON Schemas users validate forklab's documents against (schemas/*.schema.json, shipped in the package):
// generated from the TypeBox definitions the readers check with, never written by hand. `npm run schemas`
// writes them (scripts/gen-schemas.mjs); test/schemas.test.ts fails when they are stale. docs/json-schema.md.
import type { TSchema } from '@sinclair/typebox';
import { ReproduceSchema, FleetSchema, VerdictsByMachineSchema, VerdictsSchema } from '../claims/documents.js';
import { RunDocumentSchema } from '../document/run-schema.js';
import { CollectSchema } from '../fleet/collect.js';
import { FleetStatusSchema } from '../fleet/frame.js';

/** Every document schema, by the name of its file in schemas/ (the document's name and its schemaVersion). */
const SCHEMAS: readonly TSchema[] = [RunDocumentSchema, VerdictsSchema, VerdictsByMachineSchema, ReproduceSchema, FleetSchema, CollectSchema, FleetStatusSchema];

/** A schema as plain JSON: TypeBox's symbol keys dropped (JSON has none), and the $id of a document nested in another. */
function plain(v: unknown, root: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => plain(x, false));
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (root || k !== '$id') out[k] = plain(x, false);
  return out;
}

/** The $id "urn:forklab:schema:NAME:VERSION" as the file name NAME.vVERSION.schema.json. */
export function schemaFile(id: string): string {
  const m = /^urn:forklab:schema:([a-z.-]+):(\d+)$/.exec(id);
  if (!m) throw new Error(`a document schema's $id is not urn:forklab:schema:NAME:VERSION: ${id}`);
  return `${m[1]}.v${m[2]}.schema.json`;
}

/** The text of every schemas/ file, by file name. */
export function schemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of SCHEMAS) {
    const id = String(s.$id);
    out[schemaFile(id)] = `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...(plain(s, true) as object) }, null, 2)}\n`;
  }
  return out;
}
