// The run history: round trip of a run, schema versions and foreign files refused untouched, stale runs
// marked incomplete (also after SIGKILL), run references.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqlite } from '../src/store/sqlite.js';
import { Store, StoreError } from '../src/store/db.js';
import { FORKLAB_APPLICATION_ID, LATEST_SCHEMA, MIGRATIONS, migrate } from '../src/store/migrations.js';
import { resolveDbPath } from '../src/store/location.js';
import { buildDocument } from '../src/document/run.js';
import type { Warning } from '../src/experiments/contract/types.js';
import { START, batch, failed, fakeLoad, measurement, samples } from './fixtures/store/fake.js';

const WRITER = fileURLToPath(new URL('./fixtures/store/writer.ts', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'forklab-store-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const spawned: number[] = [];
const freshPath = () => join(tmp, `db${n++}`, 'forklab.db');

function raw(path: string) {
  return openSqlite(path);
}

test('a run round-trips: start, measurements in batches, finish → the same document, samples identical', () => {
  const path = freshPath();
  const store = Store.open(path);
  const startedAt = new Date('2026-01-02T03:04:05.000Z');
  const id = store.startRun({ ...START, startedAt });
  assert.equal(store.listRuns()[0]!.status, 'running');
  const first = [...batch(1, 0, 0), failed('fork-exec', { method: 'fork-exec', rssMb: 512, thp: 'off', hugePagesKb: null, stopReason: null }, 0)];
  // cow-like: fractional ns per page, extra columns; big values keep every digit
  const frac = measurement('first-write', { sizeMb: 64, thp: 'on', pages: 16384 }, 0, [12.345678901234, 0, 9.75, 2 ** 52 + 1], {
    minflt: [1, 2, 3, 4],
    passNs: [202_000_000, 0, 159_744_000, 2 ** 52 + 1],
  });
  store.addMeasurements(id, first);
  // pagetables-like: a configuration of fields only (no samples, no stats)
  const phase = { ...measurement('phase', { layout: 'dense', phase: 'before', parentVmPteKb: 12, settleMs: null }, 1, [1]), samplesNs: [], stats: null };
  store.addMeasurements(id, [frac, ...batch(2, 128, 1), phase]);
  const finishedAt = new Date('2026-01-02T03:09:05.500Z');
  const summary = { cells: [{ medianNs: 1.5, note: 'anything' }], slopes: [] };
  const warnings: Warning[] = [{ code: 'noise', message: 'noisy' }];
  store.finishRun(id, { complete: true, summary, warnings, loadAfter: fakeLoad('2026-01-02T03:09:05.500Z'), finishedAt });

  const all = [...first, frac, ...batch(2, 128, 1), phase];
  const expected = buildDocument({
    run: { experiment: START.experiment, params: START.params, measurements: all, summary, warnings, complete: true },
    forklabVersion: START.forklabVersion,
    runId: store.uuidOf(id),
    startedAt,
    finishedAt,
    machine: START.machine,
    load: { before: START.loadBefore, after: fakeLoad('2026-01-02T03:09:05.500Z') },
  });
  const doc = store.getDocument(id);
  assert.deepEqual(doc, JSON.parse(JSON.stringify(expected)));
  assert.deepEqual(doc.configurations[3]!.samplesNs, [12.345678901234, 0, 9.75, 2 ** 52 + 1]);
  assert.equal(doc.durationMs, 300_500);

  const rows = store.listRuns();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.status, 'complete');
  assert.equal(rows[0]!.measurements, all.length);
  assert.equal(rows[0]!.hostname, 'testhost');
  assert.throws(() => store.finishRun(id, { complete: true, summary, warnings, loadAfter: fakeLoad(), finishedAt }), /run 1 is complete/);
  assert.throws(() => store.addMeasurements(id, batch(3, 0, 2)), /run 1 is complete: cannot add measurements/);
  assert.throws(() => store.getDocument(42), /no run 42 in .*forklab\.db \(forklab history lists them\)/);
  store.close();
});

test('measurements that could not be exported again are refused, naming the problem', () => {
  const store = Store.open(freshPath());
  const id = store.startRun(START);
  const bad = { ...measurement('fork-exec', { method: 'fork-exec' }, 0, [100, 200, 300]), samplesNs: [100, 200, NaN] };
  assert.throws(() => store.addMeasurements(id, [bad]), /run 1: cannot record measurement 0 \(fork-exec\)\.samplesNs\[2\] is not a non-negative number/);
  assert.equal(store.getDocument(id).configurations.length, 0);
  store.close();
});

test('run references: id, uuid, uuid prefix, latest, latest~N, with clear errors', () => {
  const store = Store.open(freshPath());
  const a = store.startRun({ ...START, startedAt: new Date('2026-01-01T00:00:00Z') });
  const b = store.startRun({ ...START, startedAt: new Date('2026-01-03T00:00:00Z') });
  const c = store.startRun({ ...START, startedAt: new Date('2026-01-02T00:00:00Z') });
  assert.equal(store.resolveRun(String(a)), a);
  assert.equal(store.resolveRun(store.uuidOf(c)), c);
  assert.equal(store.resolveRun(store.uuidOf(c).slice(0, 8).toUpperCase()), c);
  assert.equal(store.resolveRun('latest'), b, 'latest = most recently started');
  assert.equal(store.resolveRun('latest~1'), c);
  assert.equal(store.resolveRun('latest~2'), a);
  assert.throws(() => store.resolveRun('latest~3'), /no run latest~3 in/);
  assert.throws(
    () => store.resolveRun('42'),
    (e: Error) => e instanceof StoreError && /^no run 42 in .* \(forklab history lists them\)$/.test(e.message),
  );
  assert.throws(() => store.resolveRun('my-run!'), /"my-run!" is not a run: give a run id/);
  const doc = store.getDocument(a);
  store.importDocument({ ...doc, runId: 'abcd0000-0000-4000-8000-000000000001' });
  store.importDocument({ ...doc, runId: 'abcd1111-0000-4000-8000-000000000002' });
  assert.throws(() => store.resolveRun('abcd'), /"abcd" matches several runs: 4 \(abcd0000-0000\), 5 \(abcd1111-0000\); give more characters/);
  assert.equal(store.resolveRun('abcd1'), 5);
  store.close();
});

test('default location: --db, then $FORKLAB_DB, then $XDG_DATA_HOME, then ~/.local/share', () => {
  assert.equal(resolveDbPath('/x/a.db', { FORKLAB_DB: '/y/b.db' }, '/home/u'), '/x/a.db');
  assert.equal(resolveDbPath(undefined, { FORKLAB_DB: '/y/b.db', XDG_DATA_HOME: '/d' }, '/home/u'), '/y/b.db');
  assert.equal(resolveDbPath(undefined, { XDG_DATA_HOME: '/d' }, '/home/u'), '/d/forklab/forklab.db');
  assert.equal(resolveDbPath(undefined, { XDG_DATA_HOME: 'relative' }, '/home/u'), '/home/u/.local/share/forklab/forklab.db');
  assert.equal(resolveDbPath(undefined, { FORKLAB_DB: '' }, '/home/u'), '/home/u/.local/share/forklab/forklab.db');
  // opening creates the directory
  const path = join(tmp, 'deep', 'er', 'forklab.db');
  Store.open(path).close();
  assert.ok(existsSync(path));
});

test('migrations: an empty database made by hand, and every older schema, migrate to the latest', () => {
  const hand = freshPath();
  mkdirSync(join(hand, '..'), { recursive: true });
  const db = raw(hand);
  db.pragma('user_version = 0');
  db.close();
  Store.open(hand).close();
  const check = raw(hand);
  assert.equal(check.pragma('user_version'), LATEST_SCHEMA);
  assert.equal(check.pragma('application_id'), FORKLAB_APPLICATION_ID);
  assert.equal(check.pragma('journal_mode'), 'wal');
  const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  assert.deepEqual(
    tables.map((t) => t.name),
    ['drift_estimate_runs', 'drift_estimates', 'id_marks', 'measurements', 'reproduction_runs', 'reproductions', 'runs'],
  );
  check.close();
  assert.equal(MIGRATIONS.at(-1)!.version, LATEST_SCHEMA);
  for (let v = 1; v < LATEST_SCHEMA; v++) {
    const p = freshPath();
    mkdirSync(join(p, '..'), { recursive: true });
    const old = raw(p);
    migrate(old, v);
    old.close();
    Store.open(p).close();
    const again = raw(p);
    assert.equal(again.pragma('user_version'), LATEST_SCHEMA, `from schema ${v}`);
    again.close();
  }
});

function snapshot(path: string) {
  const st = statSync(path);
  return { bytes: readFileSync(path), mtimeMs: st.mtimeMs, size: st.size };
}

test('a database from a newer forklab is refused and left untouched', () => {
  const path = freshPath();
  const s = Store.open(path);
  s.startRun(START);
  s.close();
  const db = raw(path);
  db.pragma('journal_mode = DELETE'); // everything in the main file, no -wal
  db.pragma('user_version = 99');
  db.close();
  const before = snapshot(path);
  assert.throws(
    () => Store.open(path),
    (e: Error) => e instanceof StoreError && e.message.includes(path) && e.message.includes(`created by a newer forklab (schema 99); this one knows up to ${LATEST_SCHEMA}`),
  );
  assert.deepEqual(snapshot(path), before);
  assert.equal(existsSync(`${path}-wal`), false, 'not switched to WAL');
});

test('a newer database with un-checkpointed WAL frames: refused, and neither file is written', () => {
  const path = freshPath();
  Store.open(path).close();
  const db = raw(path);
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('user_version = 99');
  db.prepare("UPDATE runs SET note = 'x'").run();
  // A copy of the database and its WAL, with no connection open: the last writable connection to close
  // would checkpoint the WAL into the main file.
  const copy = join(tmp, 'newer-wal.db');
  copyFileSync(path, copy);
  copyFileSync(`${path}-wal`, `${copy}-wal`);
  db.close();
  const before = [snapshot(copy), snapshot(`${copy}-wal`)];
  assert.throws(() => Store.open(copy), /created by a newer forklab \(schema 99\)/);
  assert.deepEqual([snapshot(copy), snapshot(`${copy}-wal`)], before);
});

test('files that are not forklab databases are refused with a message naming them, and left as they were', () => {
  const dir = join(tmp, 'foreign');
  mkdirSync(dir, { recursive: true });
  const text = join(dir, 'notes.db');
  writeFileSync(text, 'these are my notes, not a database\n'.repeat(10));
  const before = snapshot(text);
  assert.throws(
    () => Store.open(text),
    (e: Error) => e instanceof StoreError && e.message.startsWith(`${text} is not a SQLite database`),
  );
  assert.deepEqual(snapshot(text), before);

  const other = join(dir, 'other.db');
  const db = raw(other);
  db.exec('CREATE TABLE songs (title TEXT)');
  db.close();
  const otherBefore = snapshot(other);
  assert.throws(() => Store.open(other), /other\.db is a SQLite database but not a forklab history/);
  assert.deepEqual(snapshot(other), otherBefore);

  assert.throws(() => Store.open(dir), /foreign is a directory, not a forklab database/);
  assert.throws(
    () => Store.open(join(dir, 'missing.db'), { create: false }),
    (e: Error) => e instanceof StoreError && e.kind === 'missing',
  );
  assert.equal(existsSync(join(dir, 'missing.db')), false);
});

function childRun(path: string, mode: 'hang' | 'exit'): { child: ChildProcess; ready: Promise<number>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, path, mode], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, killSignal: 'SIGKILL' });
  spawned.push(child.pid!);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /ready (\d+)\n/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`writer exited (${code}) before it was ready: ${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited };
}

test('markStale: a run whose process has gone is marked incomplete, its measurements kept', async () => {
  const path = freshPath();
  Store.open(path).close();
  const w = childRun(path, 'exit');
  const id = await w.ready;
  assert.equal(await w.exited, 0);
  const store = Store.open(path); // open marks stale runs
  const row = store.listRuns().find((r) => r.id === id)!;
  assert.equal(row.status, 'incomplete');
  assert.equal(row.measurements, 2);
  const doc = store.getDocument(id);
  assert.equal(doc.complete, false);
  assert.equal(doc.summary, null);
  assert.equal(doc.load.after, null);
  assert.ok(doc.warnings.some((x) => x.code === 'run-killed'));
  assert.equal(store.markStale(), 0, 'marked once');
  store.close();
});

test('markStale: a live recorder is left alone; a reused pid, another boot or another host is told apart', async () => {
  const path = freshPath();
  const store = Store.open(path);
  const mine = store.startRun(START);
  const reused = store.startRun(START);
  const rebooted = store.startRun(START);
  const elsewhere = store.startRun(START);
  const sleeper = spawn('sleep', ['30'], { stdio: 'ignore', timeout: 60_000, killSignal: 'SIGKILL' });
  spawned.push(sleeper.pid!);
  const gone = new Promise((resolve) => sleeper.on('exit', resolve));
  try {
    const db = raw(path);
    db.prepare('UPDATE runs SET pid = ? WHERE id = ?').run(sleeper.pid ?? null, reused); // alive, but not the recorder
    db.prepare("UPDATE runs SET boot_id = 'another-boot' WHERE id = ?").run(rebooted);
    db.prepare("UPDATE runs SET hostname = 'elsewhere', pid = 999999999 WHERE id = ?").run(elsewhere);
    db.close();
    assert.equal(store.markStale(), 2);
    Store.open(path).close(); // a second opener changes nothing more
    const status = new Map(store.listRuns().map((r) => [r.id, r.status]));
    assert.equal(status.get(mine), 'running', 'this process is alive and is the recorder');
    assert.equal(status.get(reused), 'incomplete');
    assert.equal(status.get(rebooted), 'incomplete');
    assert.equal(status.get(elsewhere), 'running', "another host's process cannot be checked");
  } finally {
    sleeper.kill('SIGKILL');
    await gone;
    store.close();
  }
});

test('a run whose process is SIGKILLed keeps what it stored and reads back as incomplete', async () => {
  const path = freshPath();
  const w = childRun(path, 'hang');
  const id = await w.ready;
  const seen = Store.open(path);
  assert.equal(seen.listRuns()[0]!.status, 'running', 'still running while its process lives');
  seen.close();
  w.child.kill('SIGKILL');
  assert.equal(await w.exited, null);
  const store = Store.open(path);
  const row = store.listRuns().find((r) => r.id === id)!;
  assert.equal(row.status, 'incomplete');
  const doc = store.getDocument(id);
  assert.equal(doc.configurations.length, 2);
  assert.deepEqual(doc.configurations[0]!.samplesNs, samples(10, 40, 100_000));
  assert.deepEqual(doc.configurations[1]!.samplesNs, samples(11, 40, 100_000));
  store.close();
  // The database is consistent after the kill.
  const db = raw(path);
  assert.equal(db.pragma('integrity_check'), 'ok');
  db.close();
});

test('no process is left behind', () => {
  // Every child this file started (writers, sleep) is gone: no /proc entry, or one that is not our child.
  assert.ok(spawned.length >= 3);
  for (const pid of spawned) {
    let stat = '';
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    assert.notEqual(Number(f[1]), process.pid, `child ${pid} is still there (state ${f[0]})`);
  }
});
