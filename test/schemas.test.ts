// schemas/*.schema.json: generated from the documents' TypeBox definitions (src/cli/schemas.ts), so a change to a
// document's definition without `npm run schemas` fails here; and real documents (a short real run, what judge
// writes of it, the stored runs of the report fixtures, a reproduction holding the run, a status line)
// pass them when checked with an off-the-shelf validator (Ajv), while a damaged one does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { schemaFiles } from '../src/cli/schemas.js';
import { statusLine } from '../src/fleet/frame.js';
import { runCli, sandbox, shortSpawnArgs } from './helpers/cli.js';

const dir = new URL('../schemas/', import.meta.url);
const onDisk = (name: string) => readFileSync(new URL(name, dir), 'utf8');

/** An Ajv with every shipped schema, by its $id; strict: a keyword Ajv does not know fails to compile. */
function validator(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true });
  for (const name of readdirSync(dir)) ajv.addSchema(JSON.parse(onDisk(name)));
  return ajv;
}

function valid(ajv: Ajv, id: string, doc: unknown, what: string): void {
  const v = ajv.getSchema(id);
  assert.ok(v, `no schema ${id}`);
  assert.ok(v(doc), `${what} does not pass ${id}: ${ajv.errorsText(v.errors)}`);
}

test('schemas/ holds exactly what the definitions generate (npm run schemas rewrites it)', () => {
  const files = schemaFiles();
  assert.deepEqual(readdirSync(dir).sort(), Object.keys(files).sort(), 'schemas/ has other files than the definitions make: run npm run schemas');
  for (const [name, text] of Object.entries(files)) assert.equal(onDisk(name), text, `schemas/${name} is stale: run npm run schemas`);
  for (const [name, text] of Object.entries(files)) {
    const s = JSON.parse(text) as { $id: string; properties: { schemaVersion?: { const?: number }; byMachine?: unknown } };
    const [, docName, version] = /^urn:forklab:schema:(.+):(\d+)$/.exec(s.$id) ?? [];
    assert.equal(name, `${docName}.v${version}.schema.json`, `${name}: its $id names it`);
    if (docName !== 'forklab.fleet-status' && docName !== 'forklab.reproduce')
      assert.equal(s.properties.schemaVersion?.const, Number(version), `${name}: versioned with schemaVersion`);
  }
});

test('real documents pass the shipped schemas with Ajv; a damaged one does not', () => {
  const ajv = validator();
  const box = sandbox();
  const file = join(box.dir, 'run.json');
  const run = runCli(box, [...shortSpawnArgs('fork-exit,posix-spawn', '0'), '--json', file]);
  assert.equal(run.code, 0, run.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  valid(ajv, 'urn:forklab:schema:forklab.run:1', doc, 'a short spawn run');
  const judged = runCli(box, ['judge', 'latest', '--json']);
  assert.equal(judged.code, 0, judged.stderr);
  valid(ajv, 'urn:forklab:schema:forklab.verdicts:2', JSON.parse(judged.stdout), 'judge --json of it');

  const stored = new URL('./fixtures/report/', import.meta.url);
  for (const name of readdirSync(stored).filter((f) => f.endsWith('.json')))
    valid(ajv, 'urn:forklab:schema:forklab.run:1', JSON.parse(readFileSync(new URL(name, stored), 'utf8')), `test/fixtures/report/${name}`);
  valid(
    ajv,
    'urn:forklab:schema:forklab.reproduce:2',
    { schema: 'forklab.reproduce', schemaVersion: 2, articles: ['000'], experiments: [], runs: [doc], verdicts: [], figures: [] },
    'a reproduction holding the run',
  );
  const status = statusLine({ state: 'ok', documents: 1, node: 'n1', exitCode: 0 });
  valid(ajv, 'urn:forklab:schema:forklab.fleet-status:1', JSON.parse(status.slice(status.indexOf('{'))), 'a status line');

  const damaged = structuredClone(doc);
  damaged.configurations[0].samplesNs[0] = -5;
  assert.equal(ajv.getSchema('urn:forklab:schema:forklab.run:1')!(damaged), false, 'a negative sample is refused');
  assert.equal(ajv.getSchema('urn:forklab:schema:forklab.run:1')!({ ...doc, schemaVersion: 2 }), false, 'another schemaVersion is refused');
});
