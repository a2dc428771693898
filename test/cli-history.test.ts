// History at scale: labels and filters, rm (removes a run and its samples, nothing else), export as CSV and
// Markdown, compare --fail-above for CI and its refusal of runs of different experiments.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../src/store/sqlite.js';
import { Store } from '../src/store/db.js';
import { parseSince } from '../src/cli/history.js';
import { samplesCsv } from '../src/report/export.js';
import { fakeDocument, measurement, samples } from './fixtures/store/fake.js';
import type { Measurement } from '../src/experiments/contract/types.js';
import { runCli, sandbox } from './helpers/cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'forklab-history-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let dbs = 0;

const box = sandbox();
const cli = (db: string, ...args: string[]) => runCli(box, [...args, '--db', db], { spawnOptions: { stdio: ['ignore', 'pipe', 'pipe'] } });

function spawnRun(seed: number, scale = 1): Measurement[] {
  return [0, 512].flatMap((rssMb) =>
    [0, 1].map((repeat) =>
      measurement(
        'fork-exec',
        { method: 'fork-exec', rssMb, thp: 'off', hugePagesKb: 0 },
        repeat,
        samples(seed * 100 + rssMb + repeat, 50, (100_000 + rssMb * 100) * (rssMb ? scale : 1), 0.05),
      ),
    ),
  );
}

/** A database with runs: 1 spawn "baseline" (Jan 2), 2 spawn "patched" (Jan 5), 3 cow (Jan 6), 4 spawn "baseline" (Jan 7). */
function fixtureDb(): string {
  const db = join(tmp, `h${dbs++}.db`);
  const s = Store.open(db);
  const add = (ms: Measurement[], day: number, label: string | null, experiment = 'spawn') => {
    const d = fakeDocument(ms, { experiment });
    d.startedAt = `2026-01-0${day}T10:00:00.000Z`;
    d.finishedAt = `2026-01-0${day}T10:01:00.000Z`;
    if (label) d.label = label;
    return s.importDocument(d);
  };
  add(spawnRun(1), 2, 'baseline');
  add(spawnRun(2, 2), 5, 'patched');
  add([measurement('first-write', { thp: 'off' }, 0, samples(9, 30, 5000))], 6, null, 'cow');
  add(spawnRun(4), 7, 'baseline');
  s.close();
  return db;
}

test('history filters: --experiment, --label, --since, --limit (the most recent N, listed oldest first)', () => {
  const db = fixtureDb();
  const ids = (...args: string[]) => (JSON.parse(cli(db, 'history', '--json', ...args).stdout) as { id: number }[]).map((r) => r.id);
  assert.deepEqual(ids(), [1, 2, 3, 4]);
  assert.deepEqual(ids('--experiment', 'spawn'), [1, 2, 4]);
  assert.deepEqual(ids('--label', 'baseline'), [1, 4]);
  assert.deepEqual(ids('--since', '2026-01-05T00:00:00Z'), [2, 3, 4]);
  assert.deepEqual(ids('--limit', '2'), [3, 4]);
  assert.deepEqual(ids('--experiment', 'spawn', '--limit', '2'), [2, 4]);
  const table = cli(db, 'history', '--label', 'patched');
  assert.match(table.stdout, /^ *2 .* spawn +patched +complete/m);
  assert.match(table.stdout, /1 run selected/);
  const bad = cli(db, 'history', '--since', 'last tuesday');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since: expected a date/);
  assert.match(cli(db, 'history', '--limit', '0').stderr, /--limit: expected a whole number/);
});

test('--since takes a date, a date and time, or an age', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  assert.equal(parseSince('7d', now).toISOString(), '2026-03-03T12:00:00.000Z');
  assert.equal(parseSince('12h', now).toISOString(), '2026-03-10T00:00:00.000Z');
  assert.equal(parseSince('2026-03-01T08:30:00Z').toISOString(), '2026-03-01T08:30:00.000Z');
  assert.equal(parseSince('2026-03-01').getDate(), 1);
});

test('rm removes the runs named and their samples, and nothing else; without a terminal it needs --yes', () => {
  const db = fixtureDb();
  const count = (sql: string) => {
    const d = openSqlite(db, { readonly: true });
    try {
      return (d.prepare(sql).get() as { n: number }).n;
    } finally {
      d.close();
    }
  };
  const before = { runs: count('SELECT count(*) AS n FROM runs'), ms: count('SELECT count(*) AS n FROM measurements') };
  const ofRun2 = count('SELECT count(*) AS n FROM measurements WHERE run_id = 2');
  const refused = cli(db, 'rm', '2');
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /would remove 1 run:\n {2}run 2 .*patched.*\nnot a terminal, so nothing was removed: add --yes/);
  assert.equal(count('SELECT count(*) AS n FROM runs'), before.runs, 'nothing removed without --yes');
  const missing = cli(db, 'rm', '2', '99', '--yes');
  assert.equal(missing.code, 2, 'one unknown run: nothing is removed');
  assert.equal(count('SELECT count(*) AS n FROM runs'), before.runs);
  const r = cli(db, 'rm', '2', '--yes');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`removed 1 run \\(${ofRun2} measurements\\)`));
  assert.equal(count('SELECT count(*) AS n FROM runs WHERE id = 2'), 0);
  assert.equal(count('SELECT count(*) AS n FROM measurements WHERE run_id = 2'), 0);
  assert.equal(count('SELECT count(*) AS n FROM runs'), before.runs - 1, 'the other runs stay');
  assert.equal(count('SELECT count(*) AS n FROM measurements'), before.ms - ofRun2, 'their samples stay');
  const s = Store.open(db);
  try {
    assert.equal(s.getDocument(4).configurations.length, 4, 'another run reads back whole');
  } finally {
    s.close();
  }
});

test('a run still being recorded by a live process cannot be removed', () => {
  const db = join(tmp, `live${dbs++}.db`);
  const s = Store.open(db);
  try {
    const id = s.startRun({
      experiment: 'spawn',
      params: {},
      machine: fakeDocument([]).machine,
      loadBefore: fakeDocument([]).load.before,
      forklabVersion: '0.1.0',
      startedAt: new Date(),
    });
    assert.throws(() => s.removeRuns([id]), /still being recorded/);
    assert.equal(s.listRuns().length, 1);
  } finally {
    s.close();
  }
});

test('export --csv: one row per sample with the configuration fields, repeat, iteration and ns', () => {
  const db = fixtureDb();
  const r = cli(db, 'export', '1', '--csv');
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.equal(lines[0], 'series,method,rssMb,thp,hugePagesKb,repeat,state,iteration,ns');
  assert.equal(lines.length, 1 + 4 * 50);
  assert.match(lines[1]!, /^fork-exec,fork-exec,0,off,0,0,ok,0,\d+$/);
  assert.match(lines.at(-1)!, /^fork-exec,fork-exec,512,off,0,1,ok,49,\d+$/);
  const s = Store.open(db);
  const doc = s.getDocument(1);
  s.close();
  assert.equal(Number(lines[1]!.split(',').at(-1)), (doc.configurations[0]!.samplesNs as number[])[0]);
  // Fields with commas or quotes, and per-iteration columns
  const odd = fakeDocument([measurement('first-write', { note: 'a, "b"' }, 0, [10, 20], { minflt: [1, 2] })]);
  assert.deepEqual(samplesCsv(odd).trimEnd().split('\n'), [
    'series,note,repeat,state,iteration,ns,minflt',
    'first-write,"a, ""b""",0,ok,0,10,1',
    'first-write,"a, ""b""",0,ok,1,20,2',
  ]);
});

test('export --markdown: a row per configuration with units in the header', () => {
  const db = fixtureDb();
  const r = cli(db, 'export', '2', '--markdown');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^\*\*spawn\*\* \(patched\)/);
  assert.match(r.stdout, /\| configuration \| repeats \| samples \| median µs \[95 % CI\] \| mean ± σ µs \| min µs \| max µs \| median ÷ fastest \|/);
  assert.match(r.stdout, /\| fork-exec \(rss 512 MB, thp off\) \| 2 \| 100 \| \d+ \[\d+–\d+\] \|/);
  const both = cli(db, 'export', '2', '--markdown', '--csv');
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--csv: --markdown already writes to standard output; give one of them a file/);
});

test("export --markdown speaks in the experiment's unit: ns per page for a cow run, as show does", () => {
  const db = fixtureDb();
  const md = cli(db, 'export', '3', '--markdown');
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /\| median ns\/page \[95 % CI\] \| mean ± σ ns\/page \| min ns\/page \| max ns\/page \|/);
  assert.doesNotMatch(md.stdout, /µs/);
  // samples(9, 30, 5000): medians near 5000 ns, written as ns (thousands separated), not as 5.00 µs
  assert.match(md.stdout, /\| first-write \(thp off\) \| 1 \| 30 \| [45],\d{3} \[/);
  assert.match(cli(db, 'show', '3').stdout, /median ns\/page \[95 % CI\]/);
});

test('export writes several formats at once when each has its own file', () => {
  const db = fixtureDb();
  const csv = join(tmp, 'both.csv');
  const md = join(tmp, 'both.md');
  const r = cli(db, 'export', '2', '--csv', csv, '--markdown', md);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '', 'nothing on standard output: the run document is the default only when no format is asked for');
  assert.match(r.stderr, /forklab export: wrote .*both\.md\nforklab export: wrote .*both\.csv\n/);
  assert.match(readFileSync(csv, 'utf8'), /^series,method,rssMb,thp,/);
  assert.match(readFileSync(md, 'utf8'), /^\*\*spawn\*\* \(patched\)/);
});

test('compare A B --html FILE and --markdown FILE: the report of both runs, the table still printed', () => {
  const db = fixtureDb();
  const html = join(tmp, 'cmp.html');
  const md = join(tmp, 'cmp.md');
  const r = cli(db, 'compare', '1', '2', '--html', html, '--markdown', md);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /B\/A \[95 % CI\]/, 'the terminal table, as without the flags');
  assert.match(readFileSync(html, 'utf8'), /<title>forklab spawn: run 1 against run 2<\/title>/);
  assert.match(readFileSync(md, 'utf8'), /^## forklab spawn: run 1 against run 2\n/);
  assert.match(readFileSync(md, 'utf8'), /\| configuration \| run 1 µs \| run 2 µs \|/);
  const clash = cli(db, 'compare', '1', '2', '--html', '--markdown');
  assert.equal(clash.code, 2);
  assert.match(clash.stderr, /--markdown: --html already writes to standard output/);
});

test('compare --fail-above: exit 1 naming the figures when a significant difference is larger; 0 otherwise', () => {
  const db = fixtureDb();
  const worse = cli(db, 'compare', '1', '2', '--fail-above', '10');
  assert.equal(worse.code, 1, worse.stderr);
  assert.match(worse.stderr, /1 figure differ by more than 10 % \(--fail-above\):\n {2}fork-exec \(rss 512 MB, thp off\): B is \d+\.\d % slower/);
  assert.doesNotMatch(worse.stderr, /rss 0 MB/, 'the unchanged figure is not named');
  const loose = cli(db, 'compare', '1', '2', '--fail-above', '500');
  assert.equal(loose.code, 0, loose.stderr);
  assert.match(loose.stderr, /no marked difference is larger than 500 %/);
  const same = cli(db, 'compare', '1', '4', '--fail-above', '1');
  assert.equal(same.code, 0, `${same.stdout}\n${same.stderr}`);
  assert.match(cli(db, 'compare', '1', '2', '--fail-above', 'lots').stderr, /--fail-above: expected a percentage/);
});

test('compare refuses two runs of different experiments, naming them', () => {
  const db = fixtureDb();
  const r = cli(db, 'compare', '1', '3');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /run 1 is an experiment spawn run and run 3 an experiment cow run: only runs of one experiment can be compared/);
  assert.equal(r.stdout, '');
});
