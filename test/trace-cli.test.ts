// `forklab trace` on real programs the tests start: Node with child_process and with @forklab/spawn, Python with
// and without preexec_fn, a shell loop, a command that exits at once, one that fails, Ctrl-C, --pid, no tracer,
// bad input. Behaviour and structure only: no timing is asserted (npm run bench:trace shows the figures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unregisteredEnv } from '../packages/spawn/test/helpers/reference.js';
import { runCli, sandbox, startCli, waitFor } from './helpers/cli.js';
import type { TraceSummary } from '../src/experiments/trace/summary.js';
import { commandOf, observe, straceArgs } from '../src/experiments/trace/observe.js';

/** A CLI child's time limit: generous, since a loaded machine (a full suite, other builds) slows a trace several-fold. */
const LIMIT_MS = 240_000;
const hasStrace = spawnSync('strace', ['-V'], { timeout: 60_000 }).status === 0;
const python = spawnSync('python3', ['-c', 'import subprocess'], { timeout: 60_000 }).status === 0 ? 'python3' : null;
const noStrace = hasStrace ? false : 'strace is not installed (apt-get install strace)';
/** Quick runs: no tracer calibration and no cost model unless a test needs them. */
const QUICK = ['--overhead-iterations', '0', '--model', 'none'];

function trace(box: ReturnType<typeof sandbox>, args: string[], command: string[]) {
  const json = join(box.dir, `trace-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(box, ['trace', '--json', json, ...args, '--', ...command], { limitMs: LIMIT_MS });
  const doc = existsSync(json) ? JSON.parse(readFileSync(json, 'utf8')) : null;
  return { ...r, doc, summary: (doc?.summary ?? null) as TraceSummary | null };
}

const NODE_SCRIPT = `
import { spawn } from 'node:child_process';
const keep = []; for (let i = 0; i < 6; i++) keep.push(Buffer.alloc(16 << 20, 1));
await new Promise((r) => setTimeout(r, 100));
for (let i = 0; i < 4; i++) await new Promise((res, rej) => spawn('/bin/true', [], { stdio: 'ignore' }).on('exit', res).on('error', rej));
process.stdout.write('node done\\n');
`;

test('node: child_process forks and gets the @forklab/spawn advice with an estimate; with the register hook, no advice', { skip: noStrace, timeout: 2 * LIMIT_MS }, () => {
  // The traced Node must use child_process's own spawn (which forks) even when this suite runs under register.
  const box = sandbox(unregisteredEnv());
  const script = join(box.dir, 'spawner.mjs');
  writeFileSync(script, NODE_SCRIPT);
  const forked = trace(box, ['--overhead-iterations', '20', '--model', 'measure'], [process.execPath, script]);
  assert.equal(forked.code, 0, forked.stderr);
  assert.equal(forked.stdout, 'node done\n', "the command's stdout is untouched and forklab writes nothing there");
  const node = forked.summary!.processes.find((p) => p.runtime === 'node')!;
  assert.equal(node.byMechanism.fork, 4);
  assert.ok(node.rssMb && node.rssMb.median > 64, `node's RSS was sampled near its forks (${JSON.stringify(node.rssMb)})`);
  assert.match(node.advice!.change, /node -r \S*spawn-register\.cjs .*-r @forklab\/spawn\/register/);
  // The estimate's structure, not its size: the short spawn run measured now decides the figures, and on a loaded
  // machine posix_spawn may well measure no faster than fork at this size (the saving is then 0, never negative).
  const e = node.estimate!;
  assert.equal(e.forks, 4);
  assert.ok(e.withForkNs > 0 && e.withSpawnNs > 0, JSON.stringify(e));
  assert.ok(e.savingNs >= 0 && e.savingNs <= e.withForkNs, JSON.stringify(e));
  assert.equal(forked.summary!.overhead.state, 'measured');
  assert.equal((forked.summary!.model as { source: { kind: string } }).source.kind, 'measured');
  // The line wraps at 100 columns, anywhere between words (its continuation lines are indented): joined first.
  const nodeLine = forked.stderr.slice(forked.stderr.indexOf('node (pid')).replace(/\n +/g, ' ');
  assert.match(nodeLine, /^node \(pid[^\n]*4 forks, [^\n]*? in fork[^\n]*?with posix_spawn ≈ [^\n]*?: saving ≈/);
  assert.equal(forked.doc.experiment, 'trace');
  assert.equal(forked.doc.schema, 'forklab.run');

  const register = import.meta.resolve('@forklab/spawn/register');
  const spawned = trace(box, QUICK, [process.execPath, '--import', register, script]);
  assert.equal(spawned.code, 0, spawned.stderr);
  const again = spawned.summary!.processes.find((p) => p.runtime === 'node')!;
  assert.equal(again.byMechanism.fork, 0);
  // The four spawns, and the addon's one check when it loads (a posix_spawn of a path that cannot exist, which
  // must fail with ENOTDIR: posix_spawn reports exec failures here): a fifth clone(CLONE_VM|CLONE_VFORK).
  assert.equal(again.ran.find((x) => x.program === 'true')?.children, 4, JSON.stringify(again.ran));
  assert.equal(again.byMechanism['clone-vm-vfork'], 5);
  assert.equal(again.advice, null);
  assert.match(spawned.stderr, /No process forked/);
  assert.doesNotMatch(spawned.stderr, /What to change/);

  // Stored in the history and shown by report.
  const report = runCli(box, ['report', forked.doc.runId.slice(0, 8), '--markdown'], { limitMs: LIMIT_MS });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, /Processes that created children/);
  assert.match(report.stdout, /this machine: fork\+exec/);
});

test('python: preexec_fn forks (advice: drop it); the default does not (no advice)', {
  skip: noStrace || (python ? false : 'python3 is not on PATH'),
  timeout: 2 * LIMIT_MS,
}, () => {
  const box = sandbox();
  const code = (pre: boolean) => `import subprocess\nfor i in range(3): subprocess.run(['/bin/true']${pre ? ', preexec_fn=lambda: None' : ''})`;
  const withPre = trace(box, QUICK, [python!, '-c', code(true)]);
  assert.equal(withPre.code, 0, withPre.stderr);
  const p = withPre.summary!.processes.find((x) => x.runtime === 'python')!;
  assert.equal(p.byMechanism.fork, 3);
  assert.match(p.advice!.change, /drop preexec_fn/);
  const plain = trace(box, QUICK, [python!, '-c', code(false)]);
  const q = plain.summary!.processes.find((x) => x.runtime === 'python')!;
  assert.equal(q.byMechanism.fork, 0);
  assert.equal(q.advice, null);
});

test('a shell loop: its children, and no advice beyond "nothing to change"', { skip: noStrace, timeout: LIMIT_MS }, () => {
  const box = sandbox();
  const r = trace(box, QUICK, ['/bin/sh', '-c', 'for i in 1 2 3 4; do /bin/true; done; (/bin/true)']);
  assert.equal(r.code, 0, r.stderr);
  const sh = r.summary!.processes.find((p) => p.runtime === 'shell')!;
  assert.ok(sh.children >= 4);
  assert.ok(sh.ran.some((x) => x.program === 'true'));
  for (const p of r.summary!.processes) if (p.advice) assert.equal(p.advice.change, 'nothing to change');
});

test('a command that exits at once, and one that fails: its status is forklab’s', { skip: noStrace, timeout: 3 * LIMIT_MS }, () => {
  const box = sandbox();
  const ok = trace(box, QUICK, ['/bin/true']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.summary!.totals.creations, 0);
  assert.match(ok.stderr, /No process created a child/);
  const failed = trace(box, QUICK, ['/bin/sh', '-c', 'exit 7']);
  assert.equal(failed.code, 7);
  assert.equal(failed.summary!.exit.code, 7);
  const killed = trace(box, QUICK, ['/bin/sh', '-c', 'kill -TERM $$']);
  assert.equal(killed.code, 143);
  assert.match(killed.stderr, /killed by SIGTERM/);
});

/** Processes whose command line holds marker (the test's own sleeps). */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('Ctrl-C goes to the traced command; forklab reports what it saw, exits 130, leaves nothing behind', { skip: noStrace, timeout: LIMIT_MS }, async () => {
  const box = sandbox();
  const marker = `${40 + Math.floor(Math.random() * 1000) / 1000}`;
  // The background sleep ignores SIGINT (a non-interactive shell's background job): forklab ends it once the shell is gone.
  const cli = startCli(box, ['trace', ...QUICK, '--', '/bin/sh', '-c', `/bin/true; sleep ${marker} & sleep ${marker}; echo not-reached`], { limitMs: LIMIT_MS });
  await waitFor('both traced sleeps', () => processesWith(`sleep\0${marker}`).length === 2, 120_000);
  cli.child.kill('SIGINT');
  const end = await cli.done;
  assert.equal(end.code, 130, cli.stderr());
  assert.doesNotMatch(cli.stdout(), /not-reached/);
  assert.match(cli.stderr(), /killed by SIGINT \(interrupted\); 1 process it left running ended by forklab/);
  assert.deepEqual(processesWith(`sleep\0${marker}`), [], 'no traced sleep is left');
});

test('the command is the child of strace that exec’d it, never one of the children strace forks for itself', { skip: noStrace, timeout: LIMIT_MS }, async () => {
  const box = sandbox();
  const out = join(box.dir, 'strace.out');
  const marker = `${30 + Math.floor(Math.random() * 1000) / 1000}`;
  const tracer = spawn('strace', straceArgs(out, { command: ['/bin/sleep', marker] }), { stdio: 'ignore' });
  const kill = setTimeout(() => tracer.kill('SIGKILL'), LIMIT_MS);
  try {
    // Polled from the moment strace starts, as the observer does: strace's own test children come first.
    const pid = await waitFor('the traced command', () => commandOf(tracer.pid!) ?? undefined, 120_000, 1);
    assert.equal(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), `/bin/sleep\0${marker}\0`);
  } finally {
    clearTimeout(kill);
    for (const p of processesWith(`sleep\0${marker}`)) process.kill(p, 'SIGKILL');
    tracer.kill('SIGKILL');
  }
});

/** Whether a tracer is attached to pid (its TracerPid in /proc). */
const traced = (pid: number) => /^TracerPid:\s+[1-9]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

test('--pid: attaches to a running process, follows what it starts, and ends when it ends', { skip: noStrace, timeout: LIMIT_MS }, async () => {
  const box = sandbox();
  const go = join(box.dir, 'go');
  // The process waits (sleeping) until the test has seen the tracer attach, then starts /bin/true six times.
  const target = spawn('/bin/sh', ['-c', `while [ ! -e ${go} ]; do sleep 0.1; done; for i in 1 2 3 4 5 6; do /bin/true; done`], { stdio: 'ignore' });
  try {
    const json = join(box.dir, 'pid.json');
    const cli = startCli(box, ['trace', ...QUICK, '--pid', String(target.pid), '--json', json], { limitMs: LIMIT_MS });
    await waitFor('the tracer to attach', () => traced(target.pid!), 120_000);
    writeFileSync(go, '');
    const end = await cli.done;
    assert.equal(end.code, 0, cli.stderr());
    const s = JSON.parse(readFileSync(json, 'utf8')).summary as TraceSummary;
    assert.equal(s.mode, 'attach');
    assert.equal(s.endedBy, 'process-ended');
    const sh = s.processes.find((p) => p.pid === target.pid)!;
    assert.equal(sh.ran.find((r) => r.program === 'true')?.children, 6, 'the attached shell started six /bin/true');
    assert.match(sh.program ?? '', /\/(dash|sh|bash)$/, 'the attached process is named by its executable');
    assert.match(cli.stderr(), new RegExp(`attached to pid ${target.pid} until the process ended`));
  } finally {
    target.kill('SIGKILL');
  }
});

test('--pid with --duration stops tracing and leaves the process running', { skip: noStrace, timeout: LIMIT_MS }, () => {
  const box = sandbox();
  const target = spawn('/bin/sh', ['-c', 'while true; do /bin/true; sleep 0.1; done'], { stdio: 'ignore' });
  try {
    const r = runCli(box, ['trace', ...QUICK, '--no-store', '--pid', String(target.pid), '--duration', '1s'], { limitMs: LIMIT_MS });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /for the --duration asked/);
    assert.equal(target.exitCode, null);
    assert.ok(existsSync(`/proc/${target.pid}`), 'the process is still running');
  } finally {
    target.kill('SIGKILL');
  }
});

test('--pid: a tracer that does not detach when asked is killed, and the process runs on', { timeout: LIMIT_MS }, async () => {
  const box = sandbox();
  // A stand-in for strace stuck in its detach (strace 6.1 can deadlock there): it ignores SIGINT.
  const stuck = join(box.dir, 'stuck-tracer');
  writeFileSync(stuck, "#!/bin/sh\ntrap '' INT\nwhile :; do sleep 1; done\n", { mode: 0o755 });
  const target = spawn('/bin/sh', ['-c', 'while :; do sleep 1; done'], { stdio: 'ignore' });
  const kill = setTimeout(() => target.kill('SIGKILL'), LIMIT_MS);
  try {
    const o = await observe({
      tracer: { name: 'strace', path: stuck, version: null, stackTraces: false },
      outFile: join(box.dir, 'out'),
      sampleMs: 50,
      mode: { pid: target.pid!, durationMs: 200 },
      stacks: false,
    });
    assert.equal(o.endedBy, 'duration');
    assert.equal(o.tracerKilled, true);
    assert.equal(o.exit.signal, 'SIGKILL');
    assert.ok(existsSync(`/proc/${target.pid}`) && target.exitCode === null, 'the process runs on');
  } finally {
    clearTimeout(kill);
    target.kill('SIGKILL');
  }
});

test('no tracer: a clear error naming the package, before the command runs', { timeout: LIMIT_MS }, () => {
  const box = sandbox();
  const flag = join(box.dir, 'ran');
  const r = runCli(box, ['trace', '--', '/bin/sh', '-c', `: > ${flag}`], { env: { PATH: join(box.dir, 'empty') }, limitMs: LIMIT_MS });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /strace is not in PATH/);
  assert.match(r.stderr, /apt-get install strace/);
  assert.equal(existsSync(flag), false);
});

test('bad input names the problem and the flag before anything runs', { timeout: 3 * LIMIT_MS }, () => {
  const box = sandbox();
  const cases: [string[], RegExp][] = [
    [['trace'], /COMMAND: nothing to trace/],
    [['trace', '--pid', '1', '--', '/bin/true'], /--pid: give either --pid PID or a command/],
    [['trace', '--duration', '5s', '--', '/bin/true'], /--duration: goes with --pid/],
    [['trace', '--pid', String(process.pid), '--duration', 'soon'], /--duration: "soon" is not a duration/],
    [['trace', '--', 'no-such-program-here'], /COMMAND: no-such-program-here: not found in PATH/],
    [['trace', '--pid', '4194000'], /--pid: no process 4194000 is running/],
    [['trace', '--sample-ms', '0', '--', '/bin/true'], /--sample-ms/],
  ];
  for (const [args, re] of cases) {
    const r = runCli(box, args, { limitMs: LIMIT_MS });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});
