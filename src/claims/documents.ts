// The readers of the documents judging writes: `forklab judge --json` (forklab.verdicts, or one per machine in
// forklab.verdicts-by-machine) and `forklab fleet report --json` (forklab.fleet). Each checks the document's schema,
// version and the keys its readers use, and names the file and the first key that is wrong, as the run
// document's reader (src/document/validate.ts) does, with the same checks.
import { DocumentError, array, boolean, fail, isObject, number, object, parseJson, present, preview, string } from '../document/validate.js';
import { VERDICT_VALUES } from './evaluate.js';
import { FLEET_SCHEMA, FLEET_VERSION, type FleetDocument } from './fleet.js';
import { VERDICTS_BY_MACHINE_SCHEMA, VERDICTS_SCHEMA, VERDICTS_VERSION, type VerdictsDocument } from './judge.js';

type Obj = Record<string, unknown>;

/** The document's schema and version, checked against what this forklab reads. */
function header(value: unknown, schemas: readonly string[], version: number, what: string): Obj {
  if (!isObject(value)) fail('the document', 'is not a JSON object', value);
  const names = schemas.map((s) => `"${s}"`).join(' or ');
  if (!('schema' in value)) throw new DocumentError(`not a ${what}: no "schema" field (expected ${names})`);
  if (!schemas.includes(value.schema as string)) throw new DocumentError(`not a ${what}: schema is ${preview(value.schema)}, expected ${names}`);
  const v = present(value, 'schemaVersion', '');
  if (v !== version) throw new DocumentError(`schemaVersion ${preview(v)} is not read by this forklab (it reads ${version})`);
  return value;
}

/** Each element of an array key, checked as an object. */
function objects(o: Obj, key: string, path: string, check: (x: Obj, p: string) => void): void {
  const p = path === '' ? key : `${path}.${key}`;
  for (const [i, x] of array(present(o, key, path), p).entries()) check(object(x, `${p}[${i}]`), `${p}[${i}]`);
}

function strings(o: Obj, key: string, path: string): void {
  const p = path === '' ? key : `${path}.${key}`;
  for (const [i, s] of array(present(o, key, path), p).entries()) if (typeof s !== 'string') fail(`${p}[${i}]`, 'is not a string', s);
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

function verdicts(d: Obj, path: string): VerdictsDocument {
  string(d, 'forklabVersion', path);
  number(d, 'seed', path);
  strings(d, 'articles', path);
  objects(d, 'verdicts', path, (v, p) => {
    for (const k of ['claimId', 'article', 'experiment', 'statement']) string(v, k, p);
    const verdict = present(v, 'verdict', p);
    if (!VERDICT_VALUES.includes(verdict as never)) fail(`${p}.verdict`, `is not one of ${VERDICT_VALUES.join(', ')}`, verdict);
    strings(v, 'notes', p);
  });
  objects(d, 'figures', path, (f, p) => {
    for (const k of ['figureId', 'article', 'experiment', 'unit', 'detail']) string(f, k, p);
    number(f, 'published', p);
  });
  objects(d, 'runs', path, (r, p) => {
    string(r, 'experiment', p);
    string(r, 'startedAt', p);
    boolean(r, 'complete', p);
  });
  return d as unknown as VerdictsDocument;
}

/**
 * The verdicts documents of `forklab judge --json`'s text: one, or one per machine (forklab.verdicts-by-machine).
 * Throws DocumentError naming `where` and the first key that is wrong.
 */
export function readVerdicts(text: string, where: string): VerdictsDocument[] {
  return named(where, () => {
    const value = parseJson(text);
    const d = header(
      value,
      [VERDICTS_SCHEMA, VERDICTS_BY_MACHINE_SCHEMA],
      isObject(value) && value.schema === VERDICTS_BY_MACHINE_SCHEMA ? 1 : VERDICTS_VERSION,
      'forklab verdicts document',
    );
    if (d.schema === VERDICTS_SCHEMA) return [verdicts(d, '')];
    const out: VerdictsDocument[] = [];
    objects(d, 'byMachine', '', (m, p) => out.push(verdicts(header(m, [VERDICTS_SCHEMA], VERDICTS_VERSION, `forklab verdicts document (${p})`), p)));
    return out;
  });
}

/** The forklab.fleet document of `forklab fleet report --json`'s text; throws DocumentError naming `where` and the first key that is wrong. */
export function readFleet(text: string, where: string): FleetDocument {
  return named(where, () => {
    const d = header(parseJson(text), [FLEET_SCHEMA], FLEET_VERSION, 'forklab fleet document');
    string(d, 'forklabVersion', '');
    string(d, 'createdAt', '');
    number(d, 'seed', '');
    string(d, 'reference', '');
    strings(d, 'differingFields', '');
    objects(d, 'members', '', (m, p) => {
      string(m, 'machine', p);
      string(m, 'node', p);
      object(present(m, 'record', p), `${p}.record`);
      objects(m, 'runs', p, (r, q) => string(r, 'experiment', q));
    });
    objects(d, 'results', '', (r, p) => {
      string(r, 'machine', p);
      objects(r, 'verdicts', p, (v, q) => {
        string(v, 'claimId', q);
        const verdict = present(v, 'verdict', q);
        if (!VERDICT_VALUES.includes(verdict as never)) fail(`${q}.verdict`, `is not one of ${VERDICT_VALUES.join(', ')}`, verdict);
      });
      objects(r, 'headline', p, (h, q) => string(h, 'figureId', q));
      const vs = present(r, 'versusReference', p);
      if (vs !== null) objects(r, 'versusReference', p, (x, q) => string(x, 'experiment', q));
    });
    return d as unknown as FleetDocument;
  });
}
