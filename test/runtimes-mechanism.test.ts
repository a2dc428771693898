import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyTrace, describeMechanism, parseStrace } from '../src/experiments/runtimes/mechanism.js';

const TARGET = '/opt/forklab/build/Release/forklab-target-static';
const fixture = (name: string) => readFileSync(new URL(`./fixtures/strace/${name}.txt`, import.meta.url), 'utf8').split('\n');

const cases: [string, string, string, string[]][] = [
  // fixture, mechanism, system call, helper programs executed first
  ['node20-spawn', 'fork', 'clone', []],
  ['node22-spawn', 'fork', 'clone', []],
  ['node24-spawn', 'fork', 'clone', []],
  ['node26-spawn', 'fork', 'clone', []],
  ['node24-spawnSync', 'fork', 'clone', []],
  ['node20-forklab-spawn', 'posix_spawn', 'clone3', []],
  ['node26-forklab-spawn', 'posix_spawn', 'clone3', []],
  ['bun1-spawn', 'vfork', 'vfork', []],
  ['bun1-bun-spawn', 'vfork', 'vfork', []],
  ['deno2-command', 'posix_spawn', 'clone3', []],
  ['deno2-spawn', 'posix_spawn', 'clone3', []],
  // Go's syscall.forkExec: its own clone with CLONE_VM|CLONE_VFORK (not glibc's posix_spawn, the same flags).
  ['go1.19-exec', 'posix_spawn', 'clone', []],
  ['ruby3.1-spawn', 'fork', 'clone', []],
  ['ruby3.1-system', 'fork', 'clone', []],
  ['rust1.95-command', 'posix_spawn', 'clone3', []],
  ['perl-system', 'fork', 'clone', []],
  ['python3.11-run', 'vfork', 'vfork', []],
  ['python3.11-run-keep-fds', 'posix_spawn', 'clone3', []],
  ['python3.13-run', 'posix_spawn', 'clone3', []],
  ['python3.13-run-preexec', 'fork', 'clone', []],
  ['java17-default', 'posix_spawn', 'clone3', ['jspawnhelper']],
  ['java17-vfork', 'vfork', 'vfork', []],
  ['java17-fork', 'fork', 'clone', []],
];

for (const [name, mechanism, syscall, helpers] of cases) {
  test(`strace classification: ${name} is ${mechanism}`, () => {
    const r = classifyTrace(fixture(name), TARGET);
    assert.equal(r.state, 'observed', JSON.stringify(r));
    if (r.state !== 'observed') return;
    assert.equal(r.mechanism, mechanism);
    assert.equal(r.syscall, syscall);
    assert.deepEqual(r.helpers, helpers);
  });
}

test('threads (CLONE_THREAD) never count as the spawn, even when listed first', () => {
  const lines = [
    '100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x1, stack_size=0x2}, 88) = 101',
    '101 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 102',
    `102 execve("${TARGET}", ["x"], 0x7ffc /* 3 vars */) = 0`,
  ];
  const r = classifyTrace(lines, TARGET);
  assert.equal(r.state === 'observed' && r.mechanism, 'fork');
});

test('unfinished and resumed halves are joined; [pid N] prefixes are read', () => {
  const lines = [
    '[pid  7] clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x1, stack_size=0x9000}, 88 <unfinished ...>',
    `[pid  8] execve("${TARGET}", ["t"], 0x1 /* 1 var */ <unfinished ...>`,
    '[pid  7] <... clone3 resumed>) = 8',
    '[pid  8] <... execve resumed>) = 0',
  ];
  const calls = parseStrace(lines);
  assert.deepEqual(
    calls.map((c) => [c.pid, c.name, c.ret]),
    [
      [7, 'clone3', 8],
      [8, 'execve', 0],
    ],
  );
  const r = classifyTrace(lines, TARGET);
  assert.equal(describeMechanism(r), 'posix_spawn (clone3 CLONE_VM|CLONE_VFORK)');
});

test('clone with CLONE_VM but no CLONE_VFORK is its own kind', () => {
  const lines = ['1 clone(child_stack=0x1, flags=CLONE_VM|SIGCHLD) = 2', `2 execve("${TARGET}", [], 0x1) = 0`];
  const r = classifyTrace(lines, TARGET);
  assert.equal(r.state === 'observed' && r.mechanism, 'clone-vm');
});

test('a failed execve of the target, or no creating call, is unknown with a reason', () => {
  const failed = ['1 fork() = 2', `2 execve("${TARGET}", [], 0x1) = -1 ENOENT (No such file or directory)`];
  const a = classifyTrace(failed, TARGET);
  assert.equal(a.state, 'unknown');
  assert.match(describeMechanism(a), /no successful execve/);
  const orphan = [`9 execve("${TARGET}", [], 0x1) = 0`];
  const b = classifyTrace(orphan, TARGET);
  assert.equal(b.state, 'unknown');
  assert.match(describeMechanism(b), /which call created process 9/);
  assert.equal(classifyTrace([], TARGET).state, 'unknown');
});

test('the helper is named in the description', () => {
  assert.equal(describeMechanism(classifyTrace(fixture('java17-default'), TARGET)), 'posix_spawn (clone3 CLONE_VM|CLONE_VFORK) → exec jspawnhelper');
  assert.equal(describeMechanism(classifyTrace(fixture('node20-spawn'), TARGET)), 'fork (clone no CLONE_VM)');
});
