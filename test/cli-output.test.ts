// Nothing a user points forklab at is damaged: output files (atomic only onto regular files and new paths;
// devices, FIFOs and symlinks written through; - for stdout), the history database (read-only, missing
// directories), broken pipes and full disks — each failure one clear message, no stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, lstatSync, openSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_COMMAND, runCli, sandbox } from './helpers/cli.js';

const QUICK = ['spawn', '--methods', 'fork-exit', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '8', '--ci-target', '0'];
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at |SqliteError|Unhandled 'error'/, s);

test('--json /dev/null is written through: the device stays a device', () => {
  const box = sandbox();
  const before = statSync('/dev/null');
  const r = runCli(box, [...QUICK, '--json', '/dev/null']);
  assert.equal(r.code, 0, r.stderr);
  const after = lstatSync('/dev/null');
  assert.ok(after.isCharacterDevice(), '/dev/null is still a character device');
  assert.equal(after.rdev, before.rdev);
});

test('a symlink is followed, the link kept; a regular file is replaced whole, its mode kept', () => {
  const box = sandbox();
  const target = join(box.dir, 'target.json');
  const link = join(box.dir, 'link.json');
  writeFileSync(target, 'old');
  chmodSync(target, 0o600);
  symlinkSync(target, link);
  const r = runCli(box, [...QUICK, '--json', link]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(readlinkSync(link), target);
  assert.equal(JSON.parse(readFileSync(target, 'utf8')).schema, 'forklab.run', 'the document went where the link points');
  assert.equal(statSync(target).mode & 0o777, 0o600, 'the mode of the file it replaced');
  // A dangling link: the file it names is created.
  const dangling = join(box.dir, 'dangling.json');
  symlinkSync(join(box.dir, 'new.json'), dangling);
  assert.equal(runCli(box, [...QUICK, '--json', dangling]).code, 0);
  assert.equal(JSON.parse(readFileSync(join(box.dir, 'new.json'), 'utf8')).experiment, 'spawn');
});

test('a FIFO is written through, not replaced', async () => {
  const box = sandbox();
  const fifo = join(box.dir, 'pipe');
  assert.equal(spawnSync('mkfifo', [fifo], { timeout: 10_000 }).status, 0);
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000, killSignal: 'SIGKILL' });
  let got = '';
  reader.stdout.on('data', (d) => (got += d));
  const done = new Promise((res) => reader.on('close', res));
  const r = runCli(box, [...QUICK, '--json', fifo]);
  await done;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(fifo).isFIFO(), 'still a FIFO');
  assert.equal(JSON.parse(got).schema, 'forklab.run');
});

test('--json - and --json /dev/stdout: the document on stdout, the table on stderr', () => {
  const box = sandbox();
  for (const where of ['-', '/dev/stdout']) {
    const r = runCli(box, [...QUICK, '--json', where]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).schema, 'forklab.run', where);
    assert.match(r.stderr, /THP off: median µs/, `${where}: the table went to stderr`);
  }
});

test('a write that fails after the run: the run is stored and the message says forklab export', () => {
  const box = sandbox();
  const r = runCli(box, [...QUICK, '--json', '/dev/full']);
  assert.equal(r.code, 1, r.stderr);
  noStack(r.stderr);
  assert.match(r.stderr, /--json: could not write \/dev\/full: no space left on the device \(ENOSPC\)/);
  const id = /forklab export ([0-9a-f]{8})/.exec(r.stderr)?.[1];
  assert.ok(id, r.stderr);
  const exported = runCli(box, ['export', id!]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.equal(JSON.parse(exported.stdout).experiment, 'spawn');
});

test('a full disk on stdout is one clear line (exit 1); a closed pipe ends quietly with 141', async () => {
  const box = sandbox();
  assert.equal(runCli(box, [...QUICK]).code, 0);
  const full = openSync('/dev/full', 'w');
  try {
    for (const args of [['history'], ['export', '1'], ['show', '1'], ['report', '1']]) {
      const r = runCli(box, args, { spawnOptions: { stdio: ['ignore', full, 'pipe'] } });
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      // export writes its default document (JSON) with no flag given: the message names no flag
      assert.match(r.stderr, new RegExp(`^forklab ${args[0]}: could not write to standard output: no space left on the device \\(ENOSPC\\)`));
      noStack(r.stderr);
    }
    // A flag the user gave is named.
    const given = runCli(box, ['export', '1', '--json', '-'], { spawnOptions: { stdio: ['ignore', full, 'pipe'] } });
    assert.equal(given.code, 1, given.stderr);
    assert.match(given.stderr, /^forklab export: --json: could not write to standard output: no space left on the device \(ENOSPC\)/);
  } finally {
    closeSync(full);
  }
  for (const args of [['export', '1'], ['history']]) {
    // The reader is gone before forklab writes a byte: what `forklab export 3 | head -c 100` does to a long document.
    const child = spawn(CLI_COMMAND[0], [...CLI_COMMAND.slice(1), ...args], {
      env: box.env,
      cwd: box.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
      killSignal: 'SIGKILL',
    });
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((res) => child.on('close', (c) => res(c)));
    assert.equal(code, 141, `${args[0]}: ${err}`);
    assert.equal(err, '', 'quietly');
  }
});

test('the database: --db in a missing directory creates nothing; a read-only one is refused before any work', () => {
  const box = sandbox();
  const deep = join(box.dir, 'no', 'such', 'dir', 'h.db');
  const r = runCli(box, [...QUICK, '--db', deep]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--db: directory .*no\/such\/dir does not exist/);
  assert.equal(existsSync(join(box.dir, 'no')), false, 'no directory was created');
  assert.equal(r.stdout, '', 'nothing measured');
  // The default location is the one place whose directory forklab creates.
  const home = sandbox();
  assert.equal(runCli(home, [...QUICK], { env: { FORKLAB_DB: '' } }).code, 0);
  assert.ok(existsSync(join(home.home, '.local', 'share', 'forklab', 'forklab.db')));
});

test('a read-only history: spawn and import say --db and --no-store, no SqliteError', { skip: process.getuid?.() !== 0 && 'needs root to run the CLI as another user' }, () => {
  // Run as nobody: a database owned by root, mode 0444, in a directory nobody cannot write.
  const box = sandbox();
  assert.equal(runCli(box, [...QUICK, '--json', join(box.dir, 'run.json')]).code, 0);
  const ro = join(box.dir, 'ro.db');
  copyFileSync(box.db, ro);
  chmodSync(ro, 0o444);
  chmodSync(box.dir, 0o755);
  chmodSync(join(box.dir, 'run.json'), 0o644);
  const nobody = { spawnOptions: { uid: 65534, gid: 65534 } };
  const spawnRo = runCli(box, [...QUICK, '--db', ro], nobody);
  assert.equal(spawnRo.code, 2, spawnRo.stderr);
  assert.match(spawnRo.stderr, /--db: .*ro\.db .*(read-only|cannot write|not writable)/);
  assert.match(spawnRo.stderr, /--no-store/);
  assert.equal(spawnRo.stdout, '', 'nothing measured');
  noStack(spawnRo.stderr);
  const imp = runCli(box, ['import', join(box.dir, 'run.json'), '--db', ro], nobody);
  assert.equal(imp.code, 2, imp.stderr);
  assert.match(imp.stderr, /--db: .*ro\.db/);
  noStack(imp.stderr);
  const noStore = runCli(box, [...QUICK, '--no-store'], nobody);
  assert.equal(noStore.code, 0, noStore.stderr);
  assert.match(noStore.stderr, /not stored \(--no-store\)/);
});
