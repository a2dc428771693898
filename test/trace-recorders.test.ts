// The call-site machinery on made data: the environment the recorders get (appended, prepended, quoted), their
// records read back (a torn last line counted), the join with strace's creations (by pid, by thread and time,
// what is left on either side), frames classified and placed through a source map, strace -k's frames, and the
// change each kind of call site gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeOption, readRecords, recordingEnv, type RecordedCall } from '../src/experiments/trace/recorder.js';
import { joinRecords } from '../src/experiments/trace/join.js';
import type { Creation } from '../src/experiments/trace/model.js';
import { FrameReader, packageOfPath } from '../src/experiments/trace/stack.js';
import { parseStrace } from '../src/experiments/trace/strace.js';
import { nativeFrame } from '../src/experiments/trace/callsites.js';
import type { CallSite } from '../src/experiments/trace/site.js';
import { changeFor } from '../src/experiments/trace/change.js';
import { tempDir } from './helpers/tmp.js';

test('the environment: NODE_OPTIONS gets the recorder appended, PYTHONPATH gets it prepended, nothing else changes', () => {
  const r = { nodeRequire: '/t/rec/node/record.cjs', pythonPath: '/t/rec/python' };
  const env = recordingEnv({ NODE_OPTIONS: '--max-old-space-size=300', PYTHONPATH: '/mine:/theirs', HOME: '/h' }, r);
  assert.equal(env.NODE_OPTIONS, '--max-old-space-size=300 --require=/t/rec/node/record.cjs');
  assert.equal(env.PYTHONPATH, '/t/rec/python:/mine:/theirs');
  assert.equal(env.HOME, '/h');
  const bare = recordingEnv({}, r);
  assert.equal(bare.NODE_OPTIONS, '--require=/t/rec/node/record.cjs');
  assert.equal(bare.PYTHONPATH, '/t/rec/python');
  assert.equal(nodeOption('--require', '/a b/"c"'), '--require="/a b/\\"c\\""', 'a path with a space or a quote is quoted as NODE_OPTIONS reads it');
});

test('records read back: starts and calls, frames and @forklab/spawn, a torn last line counted and skipped', () => {
  const dir = tempDir('forklab-test-rec-');
  writeFileSync(
    join(dir, 'node-10.jsonl'),
    [
      JSON.stringify({ k: 'start', rt: 'node', pid: 10, ppid: 1, tid: 0, v: 'v20', loadUs: 900, sourceMaps: false }),
      JSON.stringify({
        k: 'call',
        fn: 'spawn',
        cmd: 'git',
        argv: ['status'],
        child: 11,
        pid: 10,
        tid: 0,
        t0: 5,
        t1: 5.001,
        frames: [['file:///p/a.mjs', 3, 7, 'f', 'am', ['file:///p/a.js', 9, 2]]],
        forklab: { handle: true, fallback: ['uid'] },
        costUs: 12.5,
      }),
      '{"k":"call","fn":"spa',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'unrelated.txt'), 'x');
  const r = readRecords(dir);
  assert.equal(r.unreadLines, 1);
  assert.equal(r.starts.length, 1);
  const [c] = r.calls;
  assert.equal(c!.child, 11);
  assert.deepEqual(c!.frames[0], { file: 'file:///p/a.mjs', line: 3, column: 7, fn: 'f', generated: { file: 'file:///p/a.js', line: 9, column: 2 }, async: true });
  assert.deepEqual(c!.forklab, { handle: true, fallback: ['uid'] });
});

const creation = (o: Partial<Creation> & { pid: number; child: number; startS: number }): Creation => ({
  tid: o.pid,
  mechanism: 'fork',
  flags: [],
  syscall: 'clone',
  durationS: 0.001,
  program: '/usr/bin/node',
  helper: null,
  exec: { path: '/bin/true', argv: ['true'], atS: o.startS + 0.001 },
  toExecS: 0.001,
  stack: null,
  ...o,
});
const call = (o: Partial<RecordedCall> & { pid: number; t0: number }): RecordedCall => ({
  runtime: 'node',
  fn: 'spawn',
  command: '/bin/true',
  argv: [],
  thread: 0,
  child: null,
  t1: null,
  frames: [],
  error: null,
  forklab: null,
  costUs: 1,
  ...o,
});

test('the join: by the child’s pid, else by thread and time; what is left on either side is counted', () => {
  const creations = [
    creation({ pid: 10, child: 11, startS: 100.0005 }),
    creation({ pid: 10, child: 12, startS: 100.0105 }), // execSync: no pid, inside its call's window
    creation({ pid: 10, child: 13, startS: 100.5 }), // a native addon's: no recorded call
    creation({ pid: 20, child: 21, startS: 200.001, tid: 22, program: '/usr/bin/python3' }), // Python, thread 22
    creation({ pid: 20, child: 23, startS: 200.3, tid: 22, program: '/usr/bin/python3' }),
    creation({ pid: 20, child: 24, startS: 150, tid: 20, program: '/usr/bin/bash' }), // before the exec to python: not python's
  ];
  const calls = [
    call({ pid: 10, t0: 100, t1: 100.001, child: 11 }),
    call({ pid: 10, t0: 100.01, t1: 100.011, fn: 'execSync' }),
    call({ pid: 10, t0: 101, t1: 101.001, fn: 'spawn' }), // refused before any clone
    call({ runtime: 'python', fn: 'subprocess.Popen', pid: 20, thread: 22, t0: 200 }),
    call({ runtime: 'python', fn: 'subprocess.Popen', pid: 20, thread: 22, t0: 200.2 }),
    call({ runtime: 'python', fn: 'os.exec', pid: 20, thread: 22, t0: 201 }),
  ];
  const j = joinRecords(calls, creations);
  assert.deepEqual(
    j.calls.map((x) => [x.call.fn, x.creation?.child ?? null, x.by]),
    [
      ['spawn', 11, 'pid'],
      ['execSync', 12, 'time'],
      ['spawn', null, null],
      ['subprocess.Popen', 21, 'time'],
      ['subprocess.Popen', 23, 'time'],
      ['os.exec', null, null],
    ],
  );
  assert.deepEqual(
    j.unrecorded.map((c) => c.child),
    [13],
    'the addon’s creation is strace-only; the shell’s, before the same pid became python, is not counted against python',
  );
});

test('frames: own code, a dependency by its folder, @forklab/spawn by its package.json, and a source map read from the file', () => {
  assert.equal(packageOfPath('/app/node_modules/simple-git/dist/index.js'), 'simple-git');
  assert.equal(packageOfPath('/app/node_modules/a/node_modules/@scope/b/x.js'), '@scope/b');
  assert.equal(packageOfPath('/usr/lib/python3/dist-packages/requests/api.py'), 'requests');
  assert.equal(packageOfPath('/venv/lib/python3.11/site-packages/six.py'), 'six');
  assert.equal(packageOfPath('/app/src/build.ts'), null);
  const dir = tempDir('forklab-test-frames-');
  mkdirSync(join(dir, 'spawn', 'dist', 'cjs'), { recursive: true });
  writeFileSync(join(dir, 'spawn', 'package.json'), JSON.stringify({ name: '@forklab/spawn' }));
  writeFileSync(join(dir, 'spawn', 'dist', 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }));
  const reader = new FrameReader(dir);
  const raw = (file: string, line = 1, column: number | null = 1) => ({ file, line, column, fn: null, generated: null, async: false });
  assert.equal(reader.read(raw(join(dir, 'spawn', 'dist', 'cjs', 'index.js'))).kind, 'forklab-spawn', 'a workspace copy, outside node_modules, found by its package.json');
  assert.deepEqual(reader.read(raw(join(dir, 'node_modules', 'x', 'i.js'))), {
    file: 'node_modules/x/i.js',
    line: 1,
    column: 1,
    fn: null,
    kind: 'dependency',
    package: 'x',
    mapped: null,
  });
  const mapped = fileURLToPath(new URL('./fixtures/trace/mapped/', import.meta.url));
  const f = new FrameReader(mapped).read(raw(`file://${join(mapped, 'build.mjs')}`, 11, 9));
  assert.deepEqual([f.file, f.line, f.column, f.mapped, f.kind], ['build.mts', 20, 5, 'file', 'own']);
});

test('strace -k: the frames under a call stay with it, the first outside libc names the native call site', () => {
  const log = parseStrace(
    [
      '30 1.000000 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>',
      '31 1.000100 execve("/bin/true", ["true"], 0x1 /* 1 var */ <unfinished ...>',
      '30 1.000200 <... clone resumed>) = 31 <0.000200>',
      ' > /usr/lib/x86_64-linux-gnu/libc.so.6(_Fork+0x23) [0xd4353]',
      ' > /usr/bin/bash(make_child+0x184) [0x5f4b4]',
      '31 1.000300 <... execve resumed>) = 0 <0.000100>',
      ' > /usr/lib/x86_64-linux-gnu/libc.so.6(execve+0x7) [0xd4ad7]',
      '30 1.100000 --- SIGCHLD {si_signo=SIGCHLD} ---',
      ' > /usr/lib/x86_64-linux-gnu/libc.so.6(wait4+0x13) [0xd3bd3]',
    ].join('\n'),
  );
  assert.equal(log.unreadLines, 0);
  const clone = log.calls.find((c) => c.name === 'clone')!;
  assert.deepEqual(clone.stack, ['/usr/lib/x86_64-linux-gnu/libc.so.6(_Fork+0x23) [0xd4353]', '/usr/bin/bash(make_child+0x184) [0x5f4b4]']);
  assert.equal(log.calls.find((c) => c.name === 'execve')!.stack?.length, 1);
  assert.equal(nativeFrame(clone.stack!), 'bash make_child+0x184');
  assert.equal(nativeFrame(['/usr/bin/dash(+0x0) [0x79a0]']), 'dash 0x79a0');
  assert.equal(nativeFrame(['/usr/lib/x86_64-linux-gnu/libc.so.6(execve+0x7) [0xd4ad7]']), null);
});

test('the change that fits each call site', () => {
  const site = (o: Partial<Omit<CallSite, 'change'>>): Omit<CallSite, 'change'> => ({
    label: 'x',
    runtime: 'node',
    source: 'recorded',
    own: null,
    at: null,
    package: null,
    function: null,
    functions: [{ name: 'spawn', calls: 2 }],
    commands: [{ command: 'git', calls: 2 }],
    calls: 2,
    joined: 2,
    byMechanism: { fork: 2, vfork: 0, 'clone-vm-vfork': 0, 'clone-vm': 0 },
    forksWithoutExec: 0,
    inCallNs: 1,
    inForkNs: 1,
    rssMb: null,
    savingNs: null,
    forklab: null,
    pids: [1],
    ...o,
  });
  const kind = (o: Partial<Omit<CallSite, 'change'>>) => changeFor(site(o), null).kind;
  assert.equal(kind({}), 'replace-call', 'the user’s own code calls child_process');
  assert.equal(kind({ package: 'simple-git' }), 'switch-process', 'a dependency’s call: switch the process');
  assert.equal(kind({ forklab: { calls: 2, served: 0, forked: 2, reasons: { 'node internals: unknown shape': 1 } } }), 'upgrade-dependency');
  assert.equal(kind({ forklab: { calls: 2, served: 0, forked: 2, reasons: { 'unavailable: no addon': 1 } } }), 'fix-setup');
  assert.equal(kind({ forklab: { calls: 2, served: 0, forked: 2, reasons: { uid: 2 } } }), 'change-call');
  assert.equal(kind({ byMechanism: { fork: 0, vfork: 0, 'clone-vm-vfork': 2, 'clone-vm': 0 } }), 'none');
  assert.equal(kind({ forksWithoutExec: 2 }), 'none', 'workers that never exec');
  assert.equal(kind({ runtime: 'python', functions: [{ name: 'subprocess.Popen', calls: 2 }] }), 'change-call');
  const dep = changeFor(site({ runtime: 'python', package: 'fakepkg', functions: [{ name: 'subprocess.Popen', calls: 2 }] }), null);
  assert.deepEqual([dep.kind, dep.kind === 'upgrade-dependency' ? dep.package : null], ['upgrade-dependency', 'fakepkg']);
  assert.equal(kind({ runtime: 'python', functions: [{ name: 'os.exec', calls: 1 }], joined: 0 }), 'none');
});
