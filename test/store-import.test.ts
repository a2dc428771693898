// Export → import gives the same run; damaged, foreign, newer or ill-typed documents are refused with a
// message naming the problem, and the database is left as it was. Also the commands, end to end.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../src/store/sqlite.js';
import { Store } from '../src/store/db.js';
import { DocumentError, parseRunDocument } from '../src/document/validate.js';
import { runCli, sandbox } from './helpers/cli.js';
import { START, batch, failed, fakeDocument, fakeLoad, measurement } from './fixtures/store/fake.js';

const tmp = mkdtempSync(join(tmpdir(), 'forklab-store-import-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(tmp, `h${n++}.db`);

const box = sandbox();
const cli = (...args: string[]) => runCli(box, args);

/** A finished run with several batches, a failed probe and extra columns, in a new database. */
function recordedRun(path: string): number {
  const store = Store.open(path);
  const id = store.startRun(START);
  store.addMeasurements(id, batch(1, 0, 0));
  store.addMeasurements(id, [...batch(2, 128, 0), failed('fork-exec', { method: 'fork-exec', rssMb: 1024, thp: 'off', hugePagesKb: null, stopReason: null }, 0)]);
  store.addMeasurements(id, [measurement('first-write', { sizeMb: 16, thp: 'on', pages: 4096 }, 1, [7.25, 8.5, 1e-3], { minflt: [4096, 8, 8] })]);
  store.finishRun(id, {
    complete: true,
    summary: { cells: [1, 2] },
    warnings: [{ code: 'w', message: 'm' }],
    loadAfter: fakeLoad(),
    finishedAt: new Date('2026-01-02T03:07:00.000Z'),
  });
  store.close();
  return id;
}

function counts(path: string): { runs: number; measurements: number } {
  const db = openSqlite(path, { readonly: true });
  try {
    const runs = (db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
    const measurements = (db.prepare('SELECT count(*) AS n FROM measurements').get() as { n: number }).n;
    return { runs, measurements };
  } finally {
    db.close();
  }
}

test('export → import into a fresh database: the same document, figures and raw samples', () => {
  const a = fresh();
  const id = recordedRun(a);
  const sa = Store.open(a);
  const doc = sa.getDocument(id);
  sa.close();
  const text = JSON.stringify(doc, null, 1);
  const b = fresh();
  const sb = Store.open(b);
  const newId = sb.importDocument(parseRunDocument(text));
  const back = sb.getDocument(newId);
  assert.deepEqual(back, doc);
  assert.equal(back.runId, doc.runId, 'the uuid is kept');
  assert.equal(sb.listRuns()[0]!.imported, true);
  // The same run again: refused, nothing changes.
  const before = counts(b);
  assert.throws(() => sb.importDocument(parseRunDocument(text)), new RegExp(`run ${doc.runId} is already in .* as run ${newId}; nothing was imported`));
  assert.deepEqual(counts(b), before);
  sb.close();
});

test('a --json document written outside the history (runId null) imports once, under a uuid from its content', () => {
  const doc = fakeDocument(batch(4, 0, 0));
  assert.equal(doc.runId, null);
  const path = fresh();
  const s = Store.open(path);
  const id = s.importDocument(parseRunDocument(JSON.stringify(doc)));
  assert.match(s.uuidOf(id), /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.throws(() => s.importDocument(parseRunDocument(JSON.stringify(doc))), /is already in/);
  assert.deepEqual(s.getDocument(id).configurations, doc.configurations);
  s.close();
});

test('bad documents are refused with a message naming the problem; the database is unchanged', () => {
  const path = fresh();
  const id = recordedRun(path);
  const s = Store.open(path);
  const good = JSON.stringify(s.getDocument(id), null, 1);
  const before = counts(path);
  // biome-ignore lint/suspicious/noExplicitAny: the test edits an arbitrary parsed document
  const edit = (f: (d: any) => void) => {
    const d = JSON.parse(good);
    d.runId = '00000000-0000-4000-8000-000000000000';
    f(d);
    return JSON.stringify(d);
  };
  const pkg = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const cases: [string, string, RegExp][] = [
    ['truncated', good.slice(0, Math.floor(good.length / 2)), /^not valid JSON \(a truncated or damaged file\?\)/],
    ['empty', '', /the file is empty/],
    ['foreign JSON', pkg, /^not a forklab run document: no "schema" field \(expected "forklab.run"\)/],
    ['an array', '[1,2]', /the document is not a JSON object/],
    ['other schema', edit((d) => (d.schema = 'someone.else')), /schema is "someone.else", expected "forklab.run"/],
    ['newer', edit((d) => (d.schemaVersion = 2)), /schemaVersion 2 is newer than this forklab reads \(up to 1\)/],
    ['bad sample', edit((d) => (d.configurations[1].samplesNs[10] = -5)), /^configurations\[1\]\.samplesNs\[10\] is not a non-negative number \(got -5\)$/],
    ['text sample', edit((d) => (d.configurations[0].samplesNs[3] = '12')), /configurations\[0\]\.samplesNs\[3\] is not a non-negative number \(got "12"\)/],
    ['missing field', edit((d) => delete d.machine.kernel), /^machine\.kernel is missing$/],
    ['wrong type', edit((d) => (d.complete = 'yes')), /^complete is not true or false \(got "yes"\)/],
    ['bad date', edit((d) => (d.startedAt = 'yesterday')), /^startedAt is not an ISO 8601 date/],
    ['bad state', edit((d) => (d.configurations[2].state = 'fine')), /configurations\[2\]\.state is not "ok" or "failed"/],
    ['stats count', edit((d) => d.configurations[0].samplesNs.pop()), /configurations\[0\]\.stats\.n is 40 but samplesNs has 39 values/],
    ['column length', edit((d) => d.configurations[5].columns.minflt.push(1)), /configurations\[5\]\.columns\.minflt has 4 values but samplesNs has 3/],
    ['object field', edit((d) => (d.configurations[0].rssMb = { mb: 1 })), /configurations\[0\]\.rssMb is not a string, finite number, boolean or null/],
    ['bad run id', edit((d) => (d.runId = 'run-7')), /^runId is not a lower-case UUID/],
  ];
  for (const [what, text, why] of cases) {
    assert.throws(
      () => s.importDocument(parseRunDocument(text)),
      (e: Error) => e instanceof DocumentError && why.test(e.message),
      `${what}: expected ${why}`,
    );
    assert.deepEqual(counts(path), before, `${what}: database unchanged`);
  }
  // importDocument checks documents given to it directly, too.
  const direct = JSON.parse(edit((d) => (d.configurations[1].samplesNs[10] = Number.POSITIVE_INFINITY)));
  assert.throws(() => s.importDocument(direct), /configurations\[1\]\.samplesNs\[10\]/);
  assert.deepEqual(counts(path), before);
  s.close();
});

test('forklab export | import, history, show: exit codes and messages', () => {
  const a = fresh();
  recordedRun(a);
  const exp = cli('export', '1', '--db', a);
  assert.equal(exp.code, 0, exp.stderr);
  const file = join(tmp, 'run.json');
  writeFileSync(file, exp.stdout);
  const b = fresh();
  const imp = cli('import', file, '--db', b);
  assert.equal(imp.code, 0, imp.stderr);
  assert.equal(imp.stdout, '1\n', 'prints the new id');
  assert.equal(cli('export', 'latest', '--db', b).stdout, exp.stdout, 'identical document');

  const again = cli('import', file, '--db', b);
  assert.equal(again.code, 2, again.stderr);
  assert.match(again.stderr, /forklab import: run [0-9a-f-]+ is already in .* as run 1; nothing was imported/);

  const bad = join(tmp, 'bad.json');
  writeFileSync(bad, exp.stdout.slice(0, 500));
  const before = counts(b);
  const r = cli('import', bad, '--db', b);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.json: not valid JSON .*; nothing was imported/);
  assert.equal(r.stdout, '');
  assert.deepEqual(counts(b), before);
  const c = fresh();
  assert.equal(cli('import', bad, '--db', c).code, 2);
  assert.equal(cli('history', '--db', c, '--json').stdout, '[]\n', 'a refused import creates no database');

  const hist = cli('history', '--db', b, '--json');
  assert.equal(hist.code, 0);
  const rows = JSON.parse(hist.stdout);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].measurements, 6);
  const table = cli('history', '--db', b);
  assert.match(table.stdout, /^id +uuid +experiment +status +started +duration +host +measurements$/m);
  assert.match(table.stdout, /^ 1 {2}[0-9a-f]{8} {2}spawn +complete /m);

  const shown = cli('show', '1', '--db', b);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /machine: testhost, kernel 6\.1\.0-test/);
  assert.match(shown.stdout, /fork-exec \(rss 1024 MB, thp off\) +0 +0 +— +1/, 'a failed configuration is shown as such');
  // The run is a spawn run: its identity is method, rssMb and thp, so the cow-like sizeMb and pages are observed.
  assert.match(shown.stdout, /first-write \(thp on\) +1 +3 /);
  assert.deepEqual(JSON.parse(cli('show', '1', '--db', b, '--json').stdout), JSON.parse(exp.stdout));

  const missing = cli('show', '42', '--db', b);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^forklab show: no run 42 in .*h\d+\.db \(forklab history lists them\)\n$/);
  const noDb = cli('show', '1', '--db', join(tmp, 'nothing-here.db'));
  assert.equal(noDb.code, 2);
  assert.match(noDb.stderr, /no forklab database at .*nothing-here\.db/);
  assert.equal(cli('show', '--db', b).code, 2, 'missing argument is a usage error');
});
