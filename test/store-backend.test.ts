// The SQLite interface under the history: node:sqlite where Node has it, better-sqlite3 elsewhere, and both
// behaving alike (values, blobs, transactions, error codes) wherever both can be loaded.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openSqlite, type SqliteBackend, sqliteBackend, sqliteCode } from '../src/store/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'forklab-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const hasNodeSqlite = Boolean(process.getBuiltinModule?.('node:sqlite'));

function loads(backend: SqliteBackend): boolean {
  try {
    openSqlite(':memory:', {}, backend).close();
    return true;
  } catch {
    return false;
  }
}

test('the history uses node:sqlite where this Node has it, better-sqlite3 only where it has not', () => {
  assert.equal(sqliteBackend({}), hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
  assert.equal(sqliteBackend({ FORKLAB_SQLITE: 'better-sqlite3' }), 'better-sqlite3');
  assert.ok(loads(sqliteBackend({})), `the default engine (${sqliteBackend({})}) loads on Node ${process.version}`);
});

for (const backend of ['node:sqlite', 'better-sqlite3'] as const) {
  test(`${backend}: values, blobs, transactions and error codes`, (t) => {
    if (!loads(backend)) {
      t.skip(`${backend} cannot be loaded on Node ${process.version} (${backend === 'node:sqlite' ? 'Node 22.13 or newer has it' : 'built only for the Node that installed it'})`);
      return;
    }
    const path = join(dir, `${backend.replace(':', '-')}.db`);
    const db = openSqlite(path, {}, backend);
    assert.equal(db.backend, backend);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, x REAL, b BLOB)');
    assert.equal(db.pragma('journal_mode = WAL'), 'wal');
    const bytes = Buffer.alloc(16);
    bytes.writeDoubleLE(1.5, 0);
    bytes.writeDoubleLE(2 ** 52, 8);
    const info = db.prepare('INSERT INTO t (name, x, b) VALUES (?, ?, ?)').run('a', 0.25, bytes);
    assert.deepEqual(info, { changes: 1, lastInsertRowid: 1 });
    const row = db.prepare('SELECT name, x, b FROM t WHERE id = ?').get(1) as { name: string; x: number; b: Uint8Array };
    assert.equal(row.name, 'a');
    assert.equal(row.x, 0.25);
    assert.deepEqual(Buffer.from(row.b), bytes);
    assert.equal(db.prepare('SELECT * FROM t WHERE id = ?').get(9), undefined);

    // A throw rolls the transaction back; a nested one is a savepoint that rolls back alone.
    assert.throws(
      () =>
        db.transaction(() => {
          db.prepare("INSERT INTO t (name) VALUES ('gone')").run();
          throw new Error('boom');
        }, 'immediate'),
      /boom/,
    );
    db.transaction(() => {
      db.prepare("INSERT INTO t (name) VALUES ('kept')").run();
      assert.throws(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO t (name) VALUES ('inner')").run();
          throw new Error('inner');
        }),
      );
    });
    const names = (db.prepare('SELECT name FROM t ORDER BY id').all() as { name: string }[]).map((r) => r.name);
    assert.deepEqual(names, ['a', 'kept']);

    try {
      db.exec('INSERT INTO t (id) VALUES (1)');
      assert.fail('a duplicate key is refused');
    } catch (e) {
      assert.match(sqliteCode(e) ?? '', /^SQLITE_CONSTRAINT/);
    }
    db.close();
    assert.equal(db.isOpen, false);

    const ro = openSqlite(path, { readonly: true }, backend);
    try {
      ro.exec("INSERT INTO t (name) VALUES ('no')");
      assert.fail('a read-only connection cannot write');
    } catch (e) {
      assert.match(sqliteCode(e) ?? '', /^SQLITE_READONLY/);
    }
    ro.close();
    assert.throws(
      () => openSqlite(join(dir, 'missing.db'), { readonly: true }, backend),
      (e: unknown) => /^SQLITE_CANTOPEN/.test(sqliteCode(e) ?? ''),
    );
  });
}
