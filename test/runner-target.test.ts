// --target PROGRAM [ARGS…]: the user's program is found and checked before any measurement, gets its arguments,
// the environment and /dev/null as its streams, and is recorded in the document.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTarget } from '../src/runner/target.js';
import { runCli, sandbox, shortSpawnArgs } from './helpers/cli.js';

const box = sandbox({ ...process.env, FORKLAB_TARGET_MARK: 'from-the-environment' });
const tmp = box.dir;
after(() => rmSync(tmp, { recursive: true, force: true }));
const db = box.db;
const cli = (...args: string[]) => runCli(box, args);

const script = join(tmp, 'tool.sh');
writeFileSync(script, '#!/bin/sh\necho "this must not reach the probe protocol"\necho "$FORKLAB_TARGET_MARK $*" > "$0.seen"\nexit 0\n');
chmodSync(script, 0o755);
const plain = join(tmp, 'not-executable');
writeFileSync(plain, 'data');

test('resolveTarget: a path, a name in PATH; missing, a directory and a non-executable file named as --target problems', () => {
  assert.deepEqual(resolveTarget(script, ['a']), { path: script, args: ['a'] });
  const bin = join(tmp, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'mytool'), '#!/bin/sh\n');
  chmodSync(join(bin, 'mytool'), 0o755);
  assert.equal(resolveTarget('mytool', [], { PATH: `/nonexistent:${bin}` }).path, join(bin, 'mytool'));
  assert.throws(() => resolveTarget('mytool', [], { PATH: '/nonexistent' }), /--target: mytool: not found in PATH/);
  assert.throws(() => resolveTarget(join(tmp, 'nope')), /--target: .*nope: no such file/);
  assert.throws(() => resolveTarget(tmp), /--target: .* is not a regular file/);
  assert.throws(() => resolveTarget(plain), /--target: .*not-executable is not executable/);
});

test('a missing or non-executable --target is a clear error before any measurement: nothing runs, nothing is stored', () => {
  for (const [args, why] of [
    [['spawn', '--target', join(tmp, 'missing')], /forklab spawn: --target: .*missing: no such file/],
    [['spawn', '--target', plain], /forklab spawn: --target: .* is not executable/],
    [['exec', '--target', 'no-such-program-anywhere'], /forklab exec: --target: no-such-program-anywhere: not found in PATH/],
    [['spawn', '--', '--version'], /--target: "--version": arguments only go with --target PROGRAM/],
  ] as [string[], RegExp][]) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why);
    assert.equal(r.stdout, '');
    assert.doesNotMatch(r.stderr, /\[1\//, 'no step was started');
  }
  assert.equal(existsSync(db), false, 'no run was stored (the database was not even created)');
});

test('spawn --target: the program runs with its arguments and the environment, its output kept away; recorded in the document', () => {
  const out = join(tmp, 'spawn.json');
  // --wide: the heading below whole. It holds the temporary directory's path, which at 100 columns wraps the line
  // when long (TMPDIR), anywhere between words, and is cut when longer than a line.
  const r = cli(...shortSpawnArgs('posix-spawn,vfork-exec', '0', '--target', script, '--wide', '--json', out, '--', 'one', 'two words'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(`${script}.seen`, 'utf8'), 'from-the-environment one two words\n');
  assert.doesNotMatch(r.stdout + r.stderr, /must not reach/);
  assert.match(r.stdout, new RegExp(`target: ${script} one 'two words'`));
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(doc.params.target, script);
  assert.deepEqual(doc.params.targetArgs, ['one', 'two words']);
  assert.equal(doc.configurations.length, 2);
  for (const c of doc.configurations) {
    assert.equal(c.target, script, 'the program identifies the configuration (a comparison never mixes it with the built-in target)');
    assert.equal(c.samplesNs.length, 12);
  }
});

test("exec --target: the program in the dynamic target's place, beside fork+_exit and the static program", () => {
  const out = join(tmp, 'exec.json');
  // --wide: the table whole. At 100 columns the measured figures decide where its 'what' cell wraps: a p90 or an
  // interval bound of 100 ms or more (a loaded machine) takes the columns that keep the row below on one line.
  const r = cli('exec', '--target', script, '--iterations', '20', '--repeats', '1', '--wide', '--json', out, '--', 'x');
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  assert.deepEqual(doc.configurations.map((c: { series: string }) => c.series).sort(), ['exec-static', 'exec-target', 'fork-exit', 'getppid']);
  assert.equal(doc.summary.target.path, script);
  assert.ok(doc.summary.target.series.medianNs > 0);
  assert.match(r.stdout, /exec-target +fork \+ execve \+ run \+ waitpid, your program +20 /);
});

test('a program that exits non-zero fails its configurations, saying why', () => {
  const failing = join(tmp, 'fails.sh');
  writeFileSync(failing, '#!/bin/sh\nexit 3\n');
  chmodSync(failing, 0o755);
  const r = cli('spawn', '--target', failing, '--methods', 'posix-spawn', '--rss', '0', '--thp', 'off', '--repeats', '1', '--iterations', '5');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /exited with status 3/);
});
