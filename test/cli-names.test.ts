// Names: a reproduction (R1) and a run document file are read wherever a run is (judge, show, export, compare,
// report); run numbers are never given again after forklab rm (a note that says "run 11" keeps meaning that run);
// compare refuses a run with itself; report --json writes judge's verdicts; `forklab list` points at history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store } from '../src/store/db.js';
import { openSqlite } from '../src/store/sqlite.js';
import { migrate } from '../src/store/migrations.js';
import { parseRunDocument } from '../src/document/validate.js';
import { judgeDocuments } from '../src/claims/judge.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION } from '../src/claims/reproduction.js';
import type { RunDocument } from '../src/document/run.js';
import { runCli, sandbox } from './helpers/cli.js';
import { tempDir } from './helpers/tmp.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/report/', import.meta.url));
const fixture = (name: string): RunDocument => parseRunDocument(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

test('a run number is never given again: after rm of the newest run the next run gets one more', () => {
  const db = join(tempDir('forklab-names-'), 'h.db');
  const s = Store.open(db);
  try {
    const docs = ['spawn', 'spawn-b', 'cow'].map(fixture);
    assert.deepEqual(
      docs.map((d) => s.importDocument({ ...d, runId: null })),
      [1, 2, 3],
    );
    s.removeRuns([3]);
    assert.equal(s.importDocument({ ...fixture('vma'), runId: null }), 4, 'not 3 again');
    s.removeRuns([4, 2]);
    assert.equal(s.importDocument({ ...fixture('exec'), runId: null }), 5);
  } finally {
    s.close();
  }
});

test('a history made before the mark keeps its numbers: migrating marks the highest run there', () => {
  const db = join(tempDir('forklab-names-'), 'old.db');
  const raw = openSqlite(db);
  migrate(raw, 3);
  raw.close();
  const s = Store.open(db);
  try {
    assert.equal(s.importDocument(fixture('spawn')), 1);
    assert.equal(s.importDocument(fixture('cow')), 2);
    s.removeRuns([2]);
    assert.equal(s.importDocument(fixture('vma')), 3);
  } finally {
    s.close();
  }
});

/** A history with runs 1 (spawn), 2 (spawn-b), 3 (create) and reproduction R1 resting on runs 1 and 3. */
function historyWithReproduction() {
  const box = sandbox();
  const s = Store.open(box.db);
  try {
    const ids = ['spawn', 'spawn-b', 'create'].map((n) => s.importDocument(fixture(n)));
    const runs = [ids[0]!, ids[2]!].map((id) => s.getDocument(id));
    const judged = judgeDocuments(runs, { seed: 1, drift: { withinRun: true } });
    const now = new Date().toISOString();
    s.addReproduction({
      startedAt: now,
      finishedAt: now,
      preset: 'quick',
      label: null,
      hostname: 'test',
      runUuids: runs.map((d) => d.runId!),
      document: {
        schema: REPRODUCE_SCHEMA,
        schemaVersion: REPRODUCE_VERSION,
        forklabVersion: '0.1.0',
        preset: 'quick',
        startedAt: now,
        finishedAt: now,
        articles: judged.articles,
        experiments: runs.map((d) => ({ experiment: d.experiment, state: 'ran' })),
        runs: runs.map((d) => d.runId!),
        seed: 1,
        verdicts: judged.verdicts,
        figures: judged.figures,
      },
    });
  } finally {
    s.close();
  }
  return box;
}
const box = historyWithReproduction();
const cli = (...args: string[]) => runCli(box, args, { limitMs: 120_000 });

test('judge, show, export and report take R1: the reproduction and the runs it rests on', () => {
  const judged = cli('judge', 'R1');
  assert.equal(judged.code, 0, judged.stderr);
  assert.match(judged.stdout, /judged from 2 runs without measuring/);
  const csv = cli('export', 'R1', '--csv');
  assert.equal(csv.code, 0, csv.stderr);
  const rows = csv.stdout.trim().split('\n');
  assert.match(rows[0]!, /^run,experiment,series,/);
  assert.deepEqual(new Set(rows.slice(1).map((r) => r.split(',')[1])), new Set(['spawn', 'create']), 'every run’s rows');
  const header = rows[0]!.split(',');
  assert.equal(new Set(header).size, header.length, 'no column twice');
  const md = cli('export', 'R1', '--markdown');
  assert.equal(md.code, 0, md.stderr);
  assert.equal((md.stdout.match(/^### /gm) ?? []).length, 2);
  const json = cli('export', 'R1');
  assert.equal(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.schema, REPRODUCE_SCHEMA);
  assert.equal(doc.runs.length, 2);
  assert.equal(typeof doc.runs[0], 'object', 'the runs whole');
  const file = join(box.dir, 'r1.json');
  writeFileSync(file, json.stdout);
  const again = cli('judge', file);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(cli('show', 'R1').code, 0);
  const report = cli('report', 'R1', '--markdown');
  assert.equal(report.code, 0, report.stderr);
});

test('a run document file is read wherever a run is: show, export, compare, report, judge', () => {
  const file = join(box.dir, 'run3.json');
  const exported = cli('export', '3', '--json', file);
  assert.equal(exported.code, 0, exported.stderr);
  const show = cli('show', file);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /create\s+complete/);
  const md = cli('export', file, '--markdown');
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /\| configuration \|/);
  const report = cli('report', file);
  assert.equal(report.code, 0, report.stderr);
  const spawnFile = join(box.dir, 'run2.json');
  assert.equal(cli('export', '2', '--json', spawnFile).code, 0);
  // --wide: the B line whole. At 100 columns a long temporary directory (TMPDIR) moves the file's path to the next
  // line, and cuts it when it is longer than a line.
  const cmp = cli('compare', '1', spawnFile, '--wide');
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /^B: \S*run2\.json/m);
});

test('compare refuses a run with itself, by number or as its file: one line, exit 2', () => {
  const file = join(box.dir, 'run1.json');
  assert.equal(cli('export', '1', '--json', file).code, 0);
  for (const args of [
    ['compare', '1', '1'],
    ['compare', '1', file],
  ]) {
    const r = cli(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /are the same run/);
  }
});

test('report RUN --json writes what judge --json writes; forklab list points at history', () => {
  const out = join(box.dir, 'verdicts.json');
  const r = cli('report', '3', '--json', out);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(doc.schema, 'forklab.verdicts');
  assert.ok(doc.verdicts.length > 0);
  const both = cli('report', '3', '--json', out, '--html', join(box.dir, 'x.html'));
  assert.equal(both.code, 2);
  const list = cli('list');
  assert.equal(list.code, 2);
  assert.match(list.stderr, /forklab history lists the runs/);
});
