// The runner against a fake probe: good runs, bad lines, wrong version, early exit, death by signal,
// timeout, cancellation, and that nothing is left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runProbe, describeFailure, type ProbeResult } from '../src/runner/probe.js';
import { fixedPlan, adaptivePlan } from '../src/runner/plans.js';
import { liveGroupCount } from '../src/runner/processes.js';
import { nativePaths } from '../src/runner/paths.js';
import { parseLine } from '../src/runner/protocol.js';
import { FORKLAB_VERSION } from '../src/version.js';
import { spawnSync } from 'node:child_process';

const FAKE = fileURLToPath(new URL('./fixtures/fake-probe.mjs', import.meta.url));

function run(mode: string, opts: { timeoutMs?: number; signal?: AbortSignal; iterations?: number } = {}): Promise<ProbeResult> {
  return runProbe({
    probePath: FAKE,
    caseName: 'fake',
    args: { mode },
    plan: fixedPlan(2, opts.iterations ?? 25),
    timeoutMs: opts.timeoutMs ?? 10_000,
    signal: opts.signal,
  });
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

test('a good probe: warm-up discarded, timed samples collected in order, columns kept', async () => {
  const r = await run('ok');
  assert.equal(r.state, 'ok');
  assert.equal(r.info.label, 'fake');
  const s = r.series.find((x) => x.series === 'x')!;
  assert.equal(s.samplesNs.length, 25);
  // The fake numbers its samples from 1000: the 2 warm-up values (1000, 1001) must not be among them.
  assert.equal(s.samplesNs[0], 1002);
  assert.deepEqual(s.columns.minflt, new Array(25).fill(1));
  // Two series a batch, one command a batch: one batch of 25 after the warm-up, so one sample of "y".
  assert.deepEqual(r.series.find((x) => x.series === 'y')!.samplesNs, [7]);
  assert.equal(liveGroupCount(), 0);
});

test('an adaptive plan stops at the iteration cap when the interval never tightens enough', async () => {
  const plan = adaptivePlan({ warmupIterations: 0, batchIterations: 7, minIterations: 10, maxIterations: 40, targetCiFraction: 0, budgetMs: Infinity });
  const r = await runProbe({ probePath: FAKE, caseName: 'fake', args: { mode: 'ok' }, plan, timeoutMs: 10_000 });
  assert.equal(r.state, 'ok');
  assert.equal(r.series[0]!.samplesNs.length, 40);
  assert.equal(plan.stopReason(), 'max-iterations');
});

test('an adaptive plan stops once the median interval is within the target', async () => {
  // Samples 1000, 1001, ... : after 20 the interval is well within ±50 %.
  const plan = adaptivePlan({ warmupIterations: 0, batchIterations: 10, minIterations: 20, maxIterations: 1000, targetCiFraction: 0.5, budgetMs: Infinity });
  const r = await runProbe({ probePath: FAKE, caseName: 'fake', args: { mode: 'ok' }, plan, timeoutMs: 10_000 });
  assert.equal(r.state, 'ok');
  assert.equal(r.series[0]!.samplesNs.length, 20);
  assert.equal(plan.stopReason(), 'ci-reached');
});

test('a malformed line is a protocol failure naming the line', async () => {
  const r = await run('bad-line');
  assert.equal(r.state, 'failed');
  assert.ok(r.state === 'failed' && r.reason.kind === 'protocol');
  assert.match(describeFailure((r as Extract<ProbeResult, { state: 'failed' }>).reason), /not JSON/);
});

test('a negative sample is refused', async () => {
  const r = await run('negative-sample');
  assert.ok(r.state === 'failed' && r.reason.kind === 'protocol');
});

test('a probe of another protocol version is refused and stopped', async () => {
  const r = await run('wrong-version');
  assert.ok(r.state === 'failed' && r.reason.kind === 'version');
  assert.equal(r.reason.got, 99);
  assert.match(describeFailure(r.reason), /rebuild/);
});

test('a probe built from another version of forklab is refused and stopped', async () => {
  const r = await run('old-probe');
  assert.ok(r.state === 'failed' && r.reason.kind === 'probe-version');
  assert.equal(r.reason.got, '0.0.0-old');
  assert.equal(r.reason.expected, FORKLAB_VERSION);
  assert.match(describeFailure(r.reason), /rebuild the probe/);
});

test('the built probe reports the package version, with --version and in its hello line', () => {
  const probe = nativePaths().probe;
  const v = spawnSync(probe, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout, `${FORKLAB_VERSION}\n`);
  const hello = spawnSync(probe, [], { encoding: 'utf8', timeout: 10_000 });
  const parsed = parseLine(hello.stdout.split('\n')[0]!);
  assert.ok(parsed.ok && parsed.message.type === 'hello');
  assert.equal(parsed.message.probe, FORKLAB_VERSION);
});

test('a probe that exits early is a failure with its status', async () => {
  const r = await run('early-exit');
  assert.ok(r.state === 'failed' && r.reason.kind === 'exit');
  assert.equal(r.reason.code, 3);
  assert.equal(r.info.x, 1, 'what it reported before dying is kept');
});

test('a probe killed by a signal is a failure naming the signal', async () => {
  const r = await run('signal');
  assert.ok(r.state === 'failed' && r.reason.kind === 'signal');
  assert.equal(r.reason.signal, 'SIGSEGV');
});

test('an error line becomes a failure naming the call and errno', async () => {
  const r = await run('error');
  assert.ok(r.state === 'failed' && r.reason.kind === 'probe-error');
  assert.equal(r.reason.call, 'fork');
  assert.equal(r.reason.errno, 12);
  assert.match(describeFailure(r.reason), /fork failed: Cannot allocate memory \(errno 12\)/);
});

test('no hello line is a protocol failure', async () => {
  const r = await run('no-hello');
  assert.ok(r.state === 'failed' && r.reason.kind === 'protocol');
});

test('a hanging probe is killed at its timeout, with the children it started', async () => {
  const r = await run('hang-with-child', { timeoutMs: 1500 });
  assert.ok(r.state === 'failed' && r.reason.kind === 'timeout');
  const childPid = r.info.childPid as number;
  assert.ok(childPid > 0);
  // SIGKILL to the group is asynchronous for the grandchild: give it a moment.
  for (let i = 0; i < 50 && alive(childPid); i++) await new Promise((res) => setTimeout(res, 20));
  assert.equal(alive(childPid), false, 'the probe child must be gone');
  assert.equal(liveGroupCount(), 0);
});

test('cancellation kills the probe and reports cancelled', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 300);
  const r = await run('hang', { signal: ac.signal, timeoutMs: 20_000 });
  assert.ok(r.state === 'failed' && r.reason.kind === 'cancelled');
});

test('a probe that cannot be started is a spawn failure', async () => {
  const r = await runProbe({ probePath: '/nonexistent/forklab-probe', caseName: 'fake', args: {}, plan: fixedPlan(0, 1), timeoutMs: 5000 });
  assert.ok(r.state === 'failed' && r.reason.kind === 'spawn');
  assert.ok(!existsSync('/nonexistent'));
});
