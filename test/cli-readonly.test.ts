// A history that cannot be written is still read: history, show and report open it from a copy instead of failing
// with SQLITE_CANTOPEN; a command that stores runs there is refused naming the cause; a read-only or missing HOME
// gets one line naming the cause (EROFS, ENOENT) with --db and --no-store. The read-only file system is a bind
// mount made read-only in a mount namespace of the test's own (unshare -rm); where that is not allowed the tests
// that need it are skipped (chmod does not stop root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Store } from '../src/store/db.js';
import { whyNoDirectory } from '../src/store/migrations.js';
import { parseRunDocument } from '../src/document/validate.js';
import { CLI_COMMAND, sandbox, shortSpawnArgs } from './helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/report/', import.meta.url));
const box = sandbox();
const ro = join(box.dir, 'ro');
mkdirSync(ro);
const db = join(ro, 'history.db');
{
  const s = Store.open(db);
  for (const n of ['spawn', 'cow']) s.importDocument(parseRunDocument(readFileSync(join(FIXTURES, `${n}.json`), 'utf8')));
  s.close();
}
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs forklab ARGS with `ro` mounted read-only (only for this child); null when this system does not allow it. */
function readOnlyCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cli = [...CLI_COMMAND, ...args].map(q).join(' ');
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', `mount --bind ${q(ro)} ${q(ro)} && mount -o remount,bind,ro ${q(ro)} || exit 99; exec ${cli}`], {
    encoding: 'utf8',
    env: { ...box.env, ...env },
    cwd: box.dir,
    timeout: 120_000,
    killSignal: 'SIGKILL',
  });
  if (r.error || r.status === 99) return null;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const canMount = readOnlyCli(['--version']) !== null;
const skip = canMount ? false : 'unshare -rm with a read-only bind mount is not allowed here';

test('history, show and report read a history on a read-only file system', { skip }, () => {
  const before = readdirSync(ro).sort();
  const history = readOnlyCli(['history', '--db', db])!;
  assert.equal(history.code, 0, history.stderr);
  // "2 runs in PATH": a long temporary directory (TMPDIR) moves the path to a line of its own (lines wrap at 100
  // columns, continuations indented), so the lines are joined first.
  assert.match(history.stdout.replace(/\n +/g, ' '), /2 runs in /);
  const show = readOnlyCli(['show', '1', '--db', db])!;
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^run 1 /);
  const report = readOnlyCli(['report', '2', '--db', db])!;
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /^## forklab cow/);
  assert.deepEqual(readdirSync(ro).sort(), before, 'nothing written beside the history');
});

test('storing into a read-only history is refused before any work, naming the cause and --no-store', { skip }, () => {
  const r = readOnlyCli(shortSpawnArgs('posix-spawn', '0', '--db', db))!;
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /read-only file system/);
  assert.match(r.stderr, /--no-store/);
});

test('a read-only or missing HOME: one line naming the cause, --db and --no-store', { skip }, () => {
  for (const home of [ro, join(ro, 'missing')]) {
    const r = readOnlyCli(shortSpawnArgs('posix-spawn', '0'), { HOME: home, FORKLAB_DB: '' })!;
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /\(EROFS\)/);
    if (home !== ro) assert.match(lines[0]!, /missing does not exist \(ENOENT\)/);
    assert.match(lines[0]!, /--db PATH/);
    assert.match(lines[0]!, /--no-store/);
  }
});

test('why a directory cannot be made names the missing ancestor and the errno', () => {
  const missing = join(box.dir, 'no-such-home');
  assert.equal(whyNoDirectory(join(missing, '.local', 'share', 'forklab'), Object.assign(new Error('x'), { code: 'ENOENT' })), `${missing} does not exist (ENOENT)`);
});
