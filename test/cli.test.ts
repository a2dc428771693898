// The command line: errors name the flag and do no work; --json writes the versioned document; Ctrl-C
// stops the run, prints what finished and leaves no probe behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenOf } from './helpers/procs.js';

const ENTRY = fileURLToPath(new URL('./fixtures/cli-entry.ts', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'forklab-cli-'));
const env = { ...process.env, FORKLAB_DB: join(tmp, 'history.db'), NO_COLOR: '1' };

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, ...args], { encoding: 'utf8', env, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('bad input: exit 2, a message naming the flag, nothing measured', () => {
  const cases: [string[], RegExp][] = [
    [['spawn', '--methods', 'fork-exec,teleport'], /--methods: unknown value "teleport"/],
    [['spawn', '--thp', 'maybe'], /--thp: unknown value "maybe"/],
    [['spawn', '--rss', '-1'], /--rss: must be at least 0/],
    [['spawn', '--rss', 'lots'], /--rss: expected a whole number/],
    [['spawn', '--iterations', '0'], /--iterations: must be at least 1/],
    [['spawn', '--rss', '4000000'], /--rss: 4000000 MB does not fit/],
    [['spawn', '--pin', '4000'], /--pin: CPU 4000 is not one this process may run on/],
    [['spawn', '--json', join(tmp, 'no', 'such', 'dir', 'out.json')], /--json: directory .* does not exist/],
    [['spawn', '--label', ' '], /--label: is empty/],
    [['cow', '--label', 'a\nb'], /--label: contains a line break/],
  ];
  for (const [args, why] of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why, args.join(' '));
    assert.equal(r.stdout, '', 'no table for bad input');
  }
});

test('a missing probe: exit 1, the problem, then a hint of what to do; no stack trace', () => {
  const empty = mkdtempSync(join(tmpdir(), 'forklab-noprobe-'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', ENTRY, 'spawn', '--rss', '0', '--iterations', '5'], {
    encoding: 'utf8',
    env: { ...env, FORKLAB_NATIVE_DIR: empty },
    timeout: 120_000,
  });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^forklab spawn: the C probe is not built \(.*forklab-probe is missing\)\n  hint: run `npm rebuild forklab`/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stdout, '');
});

test('a damaged history database: one message with its hint, exit 2, no stack trace', () => {
  const bad = join(tmp, 'not-a-db.db');
  writeFileSync(bad, 'this is not sqlite, just text that is long enough to have a header of sorts............');
  const r = cli('history', '--db', bad);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^forklab history: .*not a SQLite database/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('an unknown command or option is a usage error', () => {
  assert.equal(cli('spwan').code, 2);
  const r = cli('spawn', '--frobnicate');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option '--frobnicate'/);
});

test('--help explains every flag with its default', () => {
  const r = cli('spawn', '--help');
  assert.equal(r.code, 0);
  for (const flag of ['--methods', '--rss', '--thp', '--iterations', '--repeats', '--warmup', '--ci-target', '--budget-ms', '--pin', '--json'])
    assert.ok(r.stdout.includes(flag), flag);
  const flat = r.stdout.replace(/\s+/g, ' ');
  assert.match(flat, /\(default: 0, 128, 512, 1024 MB\)/);
  assert.match(flat, /\(default: 400 ms\)/);
  assert.match(flat, /\(default: 2 %\)/);
  assert.doesNotMatch(flat, /default: "/, 'defaults are numbers with units, not quoted strings');
  const top = cli('--help');
  assert.match(top.stdout, /spawn/);
});

test('--db is explained in the same words by every command that takes it', () => {
  const texts = new Set<string>();
  for (const cmd of ['spawn', 'cow', 'exec', 'history', 'show', 'compare', 'export', 'import', 'report', 'reproduce']) {
    const flat = cli(cmd, '--help').stdout.replace(/\s+/g, ' ');
    const m = /--db <path> (.*?\.db\))/.exec(flat);
    assert.ok(m, `${cmd} --help has --db`);
    texts.add(m[1]!);
  }
  assert.equal(texts.size, 1, [...texts].join('\n'));
  assert.match([...texts][0]!, /\$FORKLAB_DB/);
});

test('--json writes one versioned document with raw samples per configuration; a failed run never clobbers it', () => {
  const out = join(tmp, 'spawn.json');
  const r = cli('spawn', '--methods', 'fork-exit,posix-spawn', '--rss', '0,32', '--thp', 'off', '--repeats', '1', '--iterations', '12', '--ci-target', '0', '--json', out, '--label', 'json test');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /THP off: median µs/);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(doc.label, 'json test', 'the --label is in the document');
  const listed = JSON.parse(cli('history', '--json', '--label', 'json test').stdout) as { uuid: string; label: string }[];
  assert.deepEqual(listed.map((x) => x.uuid), [doc.runId], 'and in the history, selected by history --label');
  assert.equal(doc.schema, 'forklab.run');
  assert.equal(doc.schemaVersion, 1);
  assert.equal(doc.experiment, 'spawn');
  assert.equal(doc.complete, true);
  assert.equal(typeof doc.machine.kernel, 'string');
  assert.ok(doc.load.before && doc.load.after);
  assert.equal(doc.configurations.length, 4);
  for (const c of doc.configurations) {
    for (const k of ['method', 'rssMb', 'thp', 'repeat', 'hugePagesKb', 'samplesNs', 'stats']) assert.ok(k in c, k);
    assert.equal(c.samplesNs.length, 12);
    assert.ok(c.stats.medianNs > 0 && c.stats.ciLowNs <= c.stats.medianNs);
  }
  // Bad input afterwards: the existing file stays exactly as it was.
  const before = readFileSync(out, 'utf8');
  assert.equal(cli('spawn', '--methods', 'nope', '--json', out).code, 2);
  assert.equal(readFileSync(out, 'utf8'), before);
  assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('.forklab-')), [], 'no temporary files left');
});

test('Ctrl-C stops the run, kills every probe, prints what finished', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, 'spawn', '--methods', 'fork-exec', '--rss', '0,64,128', '--thp', 'off', '--repeats', '50', '--iterations', '300', '--ci-target', '0', '--budget-ms', '0'], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // Wait until at least one probe has run, then interrupt.
  const probePids = new Set<number>();
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 50));
    for (const p of childrenOf(child.pid!)) probePids.add(p);
    if (probePids.size >= 2) break;
  }
  assert.ok(probePids.size >= 1, 'a probe was started');
  child.kill('SIGINT');
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /interrupted/);
  assert.match(stdout, /THP off: median µs/, 'the finished configurations are printed');
  for (const p of probePids) assert.equal(existsSync(`/proc/${p}`) && !/\) Z/.test(readFileSync(`/proc/${p}/stat`, 'utf8')), false, `probe ${p} still alive`);
});

test('a --json path that is a directory is refused', () => {
  const r = cli('spawn', '--json', tmp);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--json: .* is a directory/);
  writeFileSync(join(tmp, 'marker'), 'x');
});
