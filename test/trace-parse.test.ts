// The strace reader and the trace model on traces recorded on a Linux machine (test/fixtures/trace/*.strace:
// strace 6.1 -f -T -ttt of node's child_process and @forklab/spawn, python with and without preexec_fn, a dash
// loop, Java's ProcessBuilder), and the cost model and advice on figures built from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseStrace, cloneFlags, execArgv, execPath } from '../src/experiments/trace/strace.js';
import { buildModel, runtimeOf } from '../src/experiments/trace/model.js';
import { addSample, processFigures, sampleAt, samplesByPid, type ProcSample } from '../src/experiments/trace/figures.js';
import { adviceFor, estimate, fitModel, launchNs } from '../src/experiments/trace/cost.js';
import { summarize } from '../src/experiments/trace/summary.js';
import { answerLine, traceView } from '../src/experiments/trace/view.js';
import { renderView } from '../src/report/terminal.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/trace/${name}.strace`, import.meta.url), 'utf8');
const figuresOf = (name: string, samples: ProcSample[] = []) => processFigures(buildModel(parseStrace(fixture(name))), samples);

test('node child_process: three forks charged to node, each exec of /bin/true, threads counted apart', () => {
  const log = parseStrace(fixture('node-child-process'));
  assert.equal(log.unreadLines, 0);
  const model = buildModel(log);
  assert.equal(model.creations.length, 3);
  assert.ok(Object.values(model.threadsByPid)[0]! > 0, 'the node process created threads');
  const [p, ...rest] = processFigures(model, []);
  assert.equal(rest.length, 0);
  assert.equal(p!.runtime, 'node');
  assert.equal(p!.byMechanism.fork, 3);
  assert.deepEqual(p!.ran, [{ program: 'true', children: 3 }]);
  assert.equal(p!.inCall!.n, 3);
  assert.ok(p!.inCall!.maxNs >= p!.inCall!.medianNs && p!.inCall!.sumNs >= p!.inCall!.maxNs);
  assert.equal(p!.toExec!.n, 3);
  assert.equal(adviceFor(p!)?.runtime, 'node');
  assert.match(adviceFor(p!)!.change, /node -r \S*spawn-register\.cjs .*-r @forklab\/spawn\/register/);
});

test('node with @forklab/spawn: clone3(CLONE_VM|CLONE_VFORK), no fork, so no advice', () => {
  const [p] = figuresOf('node-forklab-spawn');
  assert.equal(p!.byMechanism['clone-vm-vfork'], 3);
  assert.equal(p!.byMechanism.fork, 0);
  assert.equal(adviceFor(p!), null);
});

test('python: preexec_fn forks (advice: drop it), the default uses vfork (no advice)', () => {
  const [pre] = figuresOf('python-preexec-fn');
  assert.equal(pre!.runtime, 'python');
  assert.equal(pre!.byMechanism.fork, 3);
  assert.match(adviceFor(pre!)!.change, /drop preexec_fn/);
  assert.match(adviceFor(pre!)!.change, /close_fds at its default/);
  const [plain] = figuresOf('python-default');
  assert.equal(plain!.byMechanism.vfork, 3);
  assert.equal(plain!.byMechanism.fork, 0);
  assert.equal(adviceFor(plain!), null);
});

test('python multiprocessing (fork start method): worker forks never exec, so no advice and no estimate', () => {
  const built = buildModel(parseStrace(fixture('python-multiprocessing-fork')));
  const pid = built.creations[0]!.pid;
  const [p] = processFigures(
    built,
    built.creations.map((c) => ({ pid, atS: c.startS, rssKb: 50_000, pteKb: 200 })),
  );
  assert.equal(p!.byMechanism.fork, 2);
  assert.equal(p!.forksWithoutExec, 2);
  assert.equal(adviceFor(p!), null, 'posix_spawn cannot start a worker that runs the parent’s code');
  const model = fitModel({ kind: 'measured' }, 'default', [
    { method: 'fork-exec', rssMb: 0, medianNs: 1e6 },
    { method: 'fork-exec', rssMb: 100, medianNs: 2e6 },
    { method: 'posix-spawn', rssMb: 0, medianNs: 1e6 },
    { method: 'posix-spawn', rssMb: 100, medianNs: 1e6 },
  ])!;
  assert.equal(estimate(p!, model, 1e9), null);
});

test('a dash loop: vfork halves joined across the child\'s lines, a fork without exec, shell advice is "nothing"', () => {
  const log = parseStrace(fixture('dash-loop'));
  const vforks = log.calls.filter((c) => c.name === 'vfork');
  assert.equal(vforks.length, 3);
  for (const v of vforks) assert.ok(v.ret! > 0 && v.durationS! > 0, 'an unfinished vfork and its resumed half make one call');
  const [p] = processFigures(buildModel(log), []);
  assert.equal(p!.runtime, 'shell');
  assert.equal(p!.byMechanism.vfork, 3);
  assert.equal(p!.byMechanism.fork, 2);
  assert.equal(p!.noExec, 1, 'the subshell of a pipeline forked and never exec’d');
  assert.equal(adviceFor(p!)!.change, 'nothing to change');
});

test('java: the thread that called clone3 is charged to the JVM process, jspawnhelper is the helper, true what ran', () => {
  const model = buildModel(parseStrace(fixture('java-processbuilder')));
  assert.equal(model.creations.length, 2);
  for (const c of model.creations) {
    assert.notEqual(c.tid, c.pid, 'a JVM thread made the call');
    assert.equal(c.mechanism, 'clone-vm-vfork');
    assert.match(c.helper ?? '', /jspawnhelper$/);
    assert.equal(c.exec?.path, '/bin/true');
  }
  const [p] = processFigures(model, []);
  assert.equal(p!.runtime, 'java');
  assert.equal(p!.helper?.children, 2);
  assert.equal(adviceFor(p!), null, 'POSIX_SPAWN through jspawnhelper needs no change');
});

test('the reader: flags, exec paths and argv, killed processes, lines it cannot read', () => {
  assert.deepEqual(cloneFlags('{flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD}'), ['CLONE_VM', 'CLONE_VFORK']);
  assert.equal(execPath('"/bin/sh", ["sh", "-c", "a \\"b\\""], 0x1 /* 3 vars */'), '/bin/sh');
  assert.deepEqual(execArgv('"/bin/sh", ["sh", "-c", "a \\"b\\""], 0x1 /* 3 vars */'), ['sh', '-c', 'a "b"']);
  assert.deepEqual(execArgv('"/x", ["/root/.pyenv/versions/3.11.7/bin"..., "py.py"], 0x1'), ['/root/.pyenv/versions/3.11.7/bin...', 'py.py']);
  const log = parseStrace(
    [
      '10 1.000000 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>',
      '10 1.000500 <... clone resumed>) = 11 <0.000400>',
      '11 1.001000 execve("/bin/x", ["x"], 0x1 /* 1 var */) = -1 ENOENT (No such file or directory) <0.000010>',
      '11 1.002000 execve("/bin/y", ["y"], 0x1 /* 1 var */) = 0 <0.000100>',
      '11 1.100000 +++ killed by SIGKILL +++',
      'strace: something unexpected',
    ].join('\n'),
  );
  assert.equal(log.unreadLines, 1);
  assert.deepEqual(log.exits, [{ tid: 11, atS: 1.1, exitCode: null, signal: 'SIGKILL' }]);
  const [c] = buildModel(log).creations;
  assert.equal(c!.mechanism, 'fork');
  assert.equal(c!.exec?.path, '/bin/y', 'a failed exec (a PATH search) is not what the child ran');
  assert.ok(Math.abs(c!.toExecS! - 0.002) < 1e-9);
});

test('runtimes from executables', () => {
  assert.equal(runtimeOf('/usr/bin/node'), 'node');
  assert.equal(runtimeOf('/root/.pyenv/versions/3.11.7/bin/python3.11'), 'python');
  assert.equal(runtimeOf('/usr/lib/jvm/java-17-openjdk-amd64/bin/java'), 'java');
  assert.equal(runtimeOf('/usr/bin/perl5.36.0'), 'perl');
  assert.equal(runtimeOf('/usr/bin/dash'), 'shell');
  assert.equal(runtimeOf('/usr/bin/make'), 'other');
  assert.equal(adviceFor({ ...figuresOf('node-child-process')[0]!, runtime: 'other' }), null, 'no advice for a program forklab knows no change for');
});

test('RSS at a call: the latest sample before it, else the first after, within reach', () => {
  const s = samplesByPid([
    { pid: 1, atS: 10, rssKb: 100, pteKb: 1 },
    { pid: 1, atS: 10.2, rssKb: 200, pteKb: 2 },
  ]);
  assert.equal(sampleAt(s, 1, 10.1)!.rssKb, 100);
  assert.equal(sampleAt(s, 1, 9.9)!.rssKb, 100);
  assert.equal(sampleAt(s, 1, 30), null);
  assert.equal(sampleAt(s, 2, 10), null);
});

test('equal readings in a row are kept once, and the kept one covers the whole stretch', () => {
  const kept: ProcSample[] = [];
  const last = new Map<number, ProcSample>();
  for (let i = 0; i < 100; i++) addSample(kept, last, { pid: 1, atS: 10 + i * 0.02, rssKb: 100_000 + (i % 2), pteKb: 300 });
  addSample(kept, last, { pid: 1, atS: 12, rssKb: 200_000, pteKb: 500 });
  assert.equal(kept.length, 2);
  assert.ok(Math.abs(kept[0]!.untilS! - 11.98) < 1e-9);
  const s = samplesByPid(kept);
  assert.equal(sampleAt(s, 1, 11.9)!.rssKb, 100_000, 'a call inside the stretch, 1.9 s after its first reading');
  assert.equal(sampleAt(s, 1, 12.1)!.rssKb, 200_000);
});

test('cost model: each fork priced by both launch lines at its creator’s RSS; a view that leads with the answer', () => {
  const model = fitModel({ kind: 'measured' }, 'default', [
    { method: 'fork-exec', rssMb: 0, medianNs: 1_000_000 },
    { method: 'fork-exec', rssMb: 1000, medianNs: 11_000_000 },
    { method: 'posix-spawn', rssMb: 0, medianNs: 1_000_000 },
    { method: 'posix-spawn', rssMb: 1000, medianNs: 1_100_000 },
  ])!;
  assert.equal(launchNs(model, 'fork-exec', 1000), 11_000_000);
  assert.equal(launchNs(model, 'posix-spawn', 500), 1_050_000);
  assert.equal(launchNs(model, 'fork-exec', 0) - launchNs(model, 'posix-spawn', 0), 0, 'a small process saves nothing');
  // The node trace's forks, its process sampled at 1000 MB just before each call.
  const log = parseStrace(fixture('node-child-process'));
  const built = buildModel(log);
  const pid = built.creations[0]!.pid;
  const samples = built.creations.map((c) => ({ pid, atS: c.startS - 0.001, rssKb: 1000 * 1024, pteKb: 2000 }));
  const [p] = processFigures(built, samples);
  assert.equal(p!.rssMb!.median, 1000);
  const e = estimate(p!, model, 10 * p!.inCall!.sumNs)!;
  assert.equal(e.forks, 3);
  assert.equal(e.forksWithRss, 3);
  assert.equal(e.withForkNs, 3 * 11_000_000);
  assert.equal(e.withSpawnNs, 3 * 1_100_000);
  assert.equal(e.savingNs, 3 * 9_900_000);
  assert.equal(e.shareOfWall, Math.min(1, e.savingNs / (10 * p!.inCall!.sumNs)));
  const summary = summarize({
    figures: [p!],
    model,
    overhead: { state: 'not-measured', reason: '--overhead-iterations 0' },
    sites: { callSites: [], packages: [], recording: { state: 'off', reason: '--no-recorders' }, uncovered: [], nativeStacks: { on: false, reason: 'off' } },
    base: {
      mode: 'command',
      command: ['node', 'x.js'],
      pid: null,
      tracer: { name: 'strace', path: '/usr/bin/strace', version: '6.1', args: [] },
      wallNs: 10 * p!.inCall!.sumNs,
      exit: { code: 0, signal: null },
      endedBy: 'exit',
      leftEnded: 0,
      procSamples: samples.length,
      unreadLines: 0,
    },
  });
  assert.match(
    answerLine(summary.processes[0]!, summary),
    new RegExp(
      `^node \\(pid ${pid}, 1000 MB\\): 3 forks, .* in fork, 10 % of wall time; its launches ≈ 33 ms here, with posix_spawn ≈ 3.30 ms: saving ≈ 30 ms .*: node -r \\S*spawn-register`,
    ),
  );
  const out = renderView(traceView(summary), { color: false });
  assert.ok(out.split('\n')[1]!.startsWith('node (pid'), 'the answer is the first line after the title');
  assert.match(out, /this machine: fork\+exec/);
  assert.match(out, /overhead was not measured/);
});

test('a stored spawn run as the model: fork-exec and posix-spawn cells at THP default, else the kernel’s setting', async () => {
  const { modelFromStoredRun } = await import('../src/experiments/trace/stored.js');
  const cell = (method: string, thp: string, rssMb: number, medianNs: number) => ({ method, thp, rssMb, medianNs });
  const summary = {
    cells: [
      cell('fork-exec', 'off', 0, 600_000),
      cell('fork-exec', 'off', 1024, 15_000_000),
      cell('posix-spawn', 'off', 0, 650_000),
      cell('posix-spawn', 'off', 1024, 660_000),
      cell('vfork-exec', 'off', 0, 500_000),
      cell('fork-exec', 'on', 0, 600_000),
      cell('fork-exec', 'on', 1024, 1_400_000),
      cell('posix-spawn', 'on', 0, 650_000),
      cell('posix-spawn', 'on', 1024, 655_000),
    ],
    slopes: [],
  };
  const m = modelFromStoredRun(summary, 'abcdef12-0000', '2026-12-01T08:00:00Z')!;
  assert.deepEqual(m.source, { kind: 'stored', runId: 'abcdef12-0000', startedAt: '2026-12-01T08:00:00Z' });
  assert.equal(m.points.length, 4, 'only fork-exec and posix-spawn, of one THP setting');
  assert.ok(['on', 'off'].includes(m.thp));
  if (m.thp === 'off') assert.ok(Math.abs(m.fork.nsPerMb - 14_062.5) < 1e-6);
  assert.equal(modelFromStoredRun({ cells: [cell('fork-exec', 'off', 0, 1)], slopes: [] }, 'x', 'y'), null, 'one size is no line');
  assert.equal(modelFromStoredRun({ slopes: [] }, 'x', 'y'), null, 'a summary without cells is no model');
});
