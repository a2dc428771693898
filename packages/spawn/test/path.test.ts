// The command is looked up as Node's child does it (libuv's child calls execvp, Node's documentation of
// child_process.spawn: "the command is searched for in options.env.PATH, else process.env.PATH"): every PATH entry
// in turn, the next one after ENOENT, EACCES, ENOTDIR, ESTALE, ENODEV or ETIMEDOUT, EACCES when one was not
// executable, any other error at once; a name longer than NAME_MAX fails with ENAMETOOLONG, thrown. Side by side
// with child_process, async and sync, and forklab served each call.
import { sideBySide } from './helpers/reference.js';
import assert from 'node:assert/strict';
import * as childProcess from 'node:child_process';
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../test/helpers/tmp.js';
import './helpers/addon.js';
import * as forklab from '../src/index.js';

const test = sideBySide(import.meta.url);

const LIMIT = { timeout: 30_000, killSignal: 'SIGKILL' } as const;
const tmp = realpathSync(tempDir('forklab-spawn-path-'));

function dir(name: string, files: Record<string, string | null> = {}): string {
  const d = join(tmp, name);
  mkdirSync(d, { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    if (text === null) mkdirSync(join(d, f), { recursive: true });
    else {
      writeFileSync(join(d, f), text);
      chmodSync(join(d, f), 0o755);
    }
  }
  return d;
}

const missingInterpreter = dir('no-interp', { tool: '#!/nonexistent/interpreter\necho never\n' });
const isDirectory = dir('is-dir', { tool: null });
const notExecutable = dir('not-exec', { tool: '#!/bin/sh\necho not\n' });
chmodSync(join(notExecutable, 'tool'), 0o644);
writeFileSync(join(tmp, 'a-file'), 'x');
const throughFile = join(tmp, 'a-file'); // tool under it: ENOTDIR
const good = dir('good', { tool: '#!/bin/sh\necho "good $*"\n' });
const loop = dir('loop');
symlinkSync(join(loop, 'tool'), join(loop, 'tool'));

/** How an async spawn ends: thrown, or its events and output. */
async function outcome(spawn: typeof childProcess.spawn, file: string, args: string[], options: childProcess.SpawnOptions): Promise<string> {
  let c: childProcess.ChildProcess;
  try {
    c = spawn(file, args, { ...options, ...LIMIT });
  } catch (e) {
    const x = e as NodeJS.ErrnoException;
    return `threw ${x.code} ${x.syscall} ${x.message}`;
  }
  const out: Buffer[] = [];
  c.stdout?.on('data', (d: Buffer) => out.push(d));
  const events: string[] = [];
  c.on('error', (e: NodeJS.ErrnoException) => events.push(`error ${e.code} ${e.syscall} ${e.path}`));
  await new Promise((r) => c.on('close', (code, sig) => r(events.push(`close ${code} ${sig}`))));
  return `${events.join('; ')}; stdout ${JSON.stringify(Buffer.concat(out).toString())}`;
}

function syncOutcome(spawnSync: typeof childProcess.spawnSync, file: string, args: string[], options: childProcess.SpawnSyncOptions): string {
  const r = spawnSync(file, args, { ...options, ...LIMIT, encoding: 'utf8' });
  const e = r.error as NodeJS.ErrnoException | undefined;
  return JSON.stringify({ status: r.status, signal: r.signal, stdout: r.stdout, error: e && [e.code, e.syscall, e.message] });
}

const served = (fn: forklab.FunctionName) => forklab.registerStats().byFunction[fn]?.served ?? 0;

/** The same lookup through both, async and sync: the same outcome, and forklab served it. */
async function same(file: string, path: string | undefined, options: childProcess.SpawnOptions = {}): Promise<[string, string]> {
  const env = path === undefined ? {} : { PATH: path };
  const o = { env, ...options };
  const theirs = await outcome(childProcess.spawn, file, ['x'], o);
  const before = served('spawn');
  const ours = await outcome(forklab.spawn, file, ['x'], o);
  assert.equal(ours, theirs, `spawn ${file} in ${path}`);
  assert.equal(served('spawn'), before + 1, 'forklab served the spawn');
  const theirsSync = syncOutcome(childProcess.spawnSync, file, ['x'], o);
  const beforeSync = served('spawnSync');
  const oursSync = syncOutcome(forklab.spawnSync, file, ['x'], o);
  assert.equal(oursSync, theirsSync, `spawnSync ${file} in ${path}`);
  assert.equal(served('spawnSync'), beforeSync + 1, 'forklab served the spawnSync');
  return [ours, oursSync];
}

test('the next PATH entry after a missing #! interpreter (ENOENT), a directory, a file that is not executable (EACCES), a file as a directory (ENOTDIR)', async () => {
  const [async, sync] = await same('tool', [missingInterpreter, isDirectory, notExecutable, throughFile, good].join(':'));
  assert.match(async, /close 0 null; stdout "good x\\n"/);
  assert.match(sync, /"stdout":"good x\\n"/);
});

test('nothing runs: EACCES when a candidate was denied, else the last error (ENOENT, ENOTDIR)', async () => {
  assert.match((await same('tool', [missingInterpreter, notExecutable].join(':')))[0], /error EACCES spawn tool tool/);
  assert.match((await same('tool', [isDirectory, missingInterpreter].join(':')))[0], /error EACCES/);
  assert.match((await same('tool', missingInterpreter))[0], /error ENOENT spawn tool tool/);
  assert.match((await same('tool', [missingInterpreter, throughFile].join(':')))[0], /threw ENOTDIR spawn/);
  assert.match((await same('no-such-tool-anywhere', `${tmp}:/nonexistent`))[0], /error ENOENT/);
});

test('any other error ends the search at once: ELOOP before a good entry', async () => {
  assert.match((await same('tool', [loop, good].join(':')))[0], /threw ELOOP spawn/);
});

test('a name longer than NAME_MAX: ENAMETOOLONG, thrown as child_process throws it', async () => {
  const long = 'x'.repeat(300);
  assert.match((await same(long, '/usr/bin:/bin'))[0], /threw ENAMETOOLONG spawn/);
  assert.match((await same(long, `/nonexistent:${good}`))[0], /threw ENAMETOOLONG spawn/);
});

test('empty and relative PATH entries are the child’s cwd; no PATH at all is /bin:/usr/bin', async () => {
  const work = dir('work', { tool: '#!/bin/sh\necho "cwd $*"\n' });
  dir('work/sub', { tool: '#!/bin/sh\necho "sub $*"\n' });
  assert.match((await same('tool', `:${good}`, { cwd: work }))[0], /stdout "cwd x\\n"/);
  assert.match((await same('tool', `sub:${good}`, { cwd: work }))[0], /stdout "sub x\\n"/);
  assert.match((await same('sh', undefined, { env: {} }))[0], /close (0|2) null/);
  assert.match((await same('tool', undefined, { env: {} }))[0], /error ENOENT/);
});

test('a cwd the child cannot enter: its error, whatever PATH holds', async () => {
  assert.match((await same('tool', good, { cwd: throughFile }))[0], /threw ENOTDIR spawn/);
  assert.match((await same('no-such-tool', good, { cwd: throughFile }))[0], /threw ENOTDIR spawn/);
  // found in an entry before the last: the failed chdir is not taken for that candidate's error (the campaign,
  // seed 20261209: forklab went on along PATH and reported the last entry's ENOENT)
  assert.match((await same('tool', `${good}:/nonexistent`, { cwd: throughFile }))[0], /threw ENOTDIR spawn/);
  assert.match((await same('no-such-tool', good, { cwd: join(tmp, 'missing-dir') }))[0], /error ENOENT/);
});

test('a script without #! runs through /bin/sh, found in PATH or named with a slash', async () => {
  const plain = dir('plain', { script: 'echo "plain $*"\n' });
  assert.match((await same('script', plain))[0], /stdout "plain x\\n"/);
  assert.match((await same(join(plain, 'script'), undefined))[0], /stdout "plain x\\n"/);
});
