// The deadlock experiment (article 003): bad input, the summary, and a short real run that must end in
// bounded time, with the child deadlocked without atfork, free with it, really hung in plain-lock — and
// no process left behind.
import { renderView } from '../src/report/terminal.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { deadlockExperiment, summarizeDeadlock, fmtDuration, errnoName, type DeadlockParams } from '../src/experiments/deadlock/index.js';
import { nativePaths, requireNative } from '../src/runner/paths.js';
import { killGroup } from '../src/runner/processes.js';
import { measurementToJson } from '../src/document/run.js';
import type { Measurement } from '../src/experiments/contract/types.js';
import { testContext } from './helpers/context.js';
import { assertRefused } from './helpers/bad-input.js';

interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
}

/** /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses. */
function procStat(pid: number | string): ProcStat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { pid: Number(s.slice(0, s.indexOf(' '))), comm: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), state: rest[0]!, ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return null; // gone (or went away while we read)
  }
}

function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(procStat)
    .filter((p): p is ProcStat => p !== null);
}

/**
 * Is p a process our probe (pid probePid, already finished) forked? It would still sit in the probe's
 * process group. Pids wrap quickly on a busy machine, so a group with that number may be someone else's:
 * Linux hands out no pid that a live process still uses as its group id, so while a leftover of ours lives
 * the leader's pid stays unused; a live process with that pid means the group is a newer one.
 */
function inProbeGroup(p: ProcStat, probePid: number): boolean {
  return p.pgrp === probePid && procStat(probePid) === null;
}

test('bad input names the flag', () => {
  const cases: [Record<string, string>, string][] = [
    [{ childTimeoutMs: '-5' }, '--child-timeout-ms'],
    [{ childTimeoutMs: 'abc' }, '--child-timeout-ms'],
    [{ childTimeoutMs: '1.5' }, '--child-timeout-ms'],
    [{ childTimeoutMs: '0' }, '--child-timeout-ms'],
    [{ holdMs: '0' }, '--hold-ms'],
    [{ holdMs: 'x' }, '--hold-ms'],
    [{ repeats: '0' }, '--repeats'],
    [{ variants: 'without-atfork,spoon' }, '--variants'],
  ];
  assertRefused((raw) => deadlockExperiment.parse(raw), cases);
  const p = deadlockExperiment.parse({});
  assert.deepEqual(p, { variants: ['without-atfork', 'with-atfork', 'plain-lock'], holdMs: 50, childTimeoutMs: 500, repeats: 3 });
  assert.deepEqual(deadlockExperiment.preflight(p), []);
  const long = deadlockExperiment.preflight(deadlockExperiment.parse({ childTimeoutMs: '600000', repeats: '10' }));
  assert.equal(long[0]?.code, 'long-run');
});

test('formatting helpers', () => {
  assert.equal(fmtDuration(500_294_479), '500 ms');
  assert.equal(fmtDuration(50_191_567), '50.2 ms');
  assert.equal(fmtDuration(14_707), '14.7 µs');
  assert.equal(fmtDuration(812), '812 ns');
  assert.equal(errnoName(110), 'ETIMEDOUT');
  assert.equal(errnoName(0), '0');
});

test('summary counts per variant and the article verdict', () => {
  const m = (variant: string, acquired: boolean, hung: boolean, waitNs: number, forkNs: number): Measurement => ({
    series: variant,
    identity: { variant },
    observed: { childAcquired: acquired, childHung: hung, childKilled: hung, childReported: !hung, childResult: hung ? null : acquired ? '0' : 'ETIMEDOUT' },
    repeat: 1,
    state: 'ok',
    failure: null,
    info: {},
    samplesNs: [waitNs],
    columns: { forkWaitNs: [forkNs] },
    stats: null,
  });
  const ms = [
    m('without-atfork', false, false, 500e6, 100e3),
    m('without-atfork', false, false, 502e6, 120e3),
    m('with-atfork', true, false, 15e3, 50e6),
    m('with-atfork', true, false, 17e3, 48e6),
    m('plain-lock', false, true, 501e6, 90e3),
  ];
  const s = summarizeDeadlock(ms);
  assert.deepEqual(
    s.variants.map((v) => [v.variant, v.repeats, v.acquired, v.hung, v.medianChildWaitNs, v.medianForkWaitNs]),
    [
      ['without-atfork', 2, 0, 0, 501e6, 110e3],
      ['with-atfork', 2, 2, 0, 16e3, 49e6],
      ['plain-lock', 1, 0, 1, 501e6, 90e3],
    ],
  );
  assert.equal(s.articleReproduced, true);
  ms[2]!.observed.childAcquired = false;
  assert.equal(summarizeDeadlock(ms).articleReproduced, false);
});

test('real run: the child deadlocks without atfork, takes the lock with it, really hangs in plain-lock; nothing left behind', async () => {
  const params: DeadlockParams = deadlockExperiment.parse({ holdMs: '20', childTimeoutMs: '150', repeats: '2' });
  const run = await deadlockExperiment.run(params, testContext());
  assert.equal(run.complete, true, JSON.stringify(run.measurements.filter((m) => m.state !== 'ok').map((m) => m.failure)));
  assert.equal(run.measurements.length, 6);

  const by = (v: string) => run.measurements.filter((m) => m.identity.variant === v);
  for (const m of by('without-atfork')) {
    assert.equal(m.observed.childAcquired, false);
    assert.equal(m.observed.childReported, true);
    assert.equal(m.observed.childResult, 'ETIMEDOUT');
    assert.equal(m.observed.childHung, false);
    assert.ok(m.samplesNs[0]! >= 0.9 * 150e6, `timedlock returned after ${m.samplesNs[0]} ns`);
  }
  for (const m of by('with-atfork')) {
    assert.equal(m.observed.childAcquired, true);
    assert.equal(m.observed.childHung, false);
    assert.ok((m.observed.forkWaitNs as number) > 0);
  }
  for (const m of by('plain-lock')) {
    assert.equal(m.observed.childAcquired, false);
    assert.equal(m.observed.childReported, false);
    assert.equal(m.observed.childHung, true);
    assert.equal(m.observed.childKilled, true);
    assert.ok(m.samplesNs[0]! >= 0.9 * 150e6);
  }
  const s = run.summary;
  const v = (name: string) => s.variants.find((x) => x.variant === name)!;
  assert.ok(v('with-atfork').medianChildWaitNs! >= 0 && v('without-atfork').medianChildWaitNs! > 0);
  assert.equal(s.articleReproduced, true);
  // Warnings depend on the load of the machine (a late child, CPU pressure): each one says what it is.
  for (const w of run.warnings) assert.ok(w.code && w.message, JSON.stringify(w));

  // The JSON document carries the identifying fields at the top level.
  const j = measurementToJson(by('plain-lock')[0]!);
  for (const k of ['variant', 'childAcquired', 'childHung', 'forkWaitNs', 'samplesNs', 'childPid', 'probePid']) assert.ok(k in j, k);

  const rendered = renderView(deadlockExperiment.view(run), { color: false });
  assert.match(rendered, /without-atfork: 2\/2 repeats: the child could NOT take the lock .* it would deadlock/);
  assert.match(rendered, /with-atfork: 2\/2 repeats: the child took the lock/);
  assert.match(rendered, /plain-lock: 2\/2 repeats: .*killed/);
  assert.match(rendered, /未死锁/);

  // Nothing left: no probe child of this process (tsx may keep an esbuild service child: not ours to judge);
  // every child the probes forked is gone (not a zombie, not an orphan in its probe's group). A pid may
  // already belong to someone else's new process: that is fine.
  assert.deepEqual(
    allProcesses().filter((p) => p.ppid === process.pid && p.comm.startsWith('forklab')),
    [],
  );
  for (const m of run.measurements) {
    assert.ok((m.observed.probePid as number) > 0 && (m.observed.childPid as number) > 0);
    const st = procStat(m.observed.childPid as number);
    assert.ok(st === null || !inProbeGroup(st, m.observed.probePid as number), `child ${m.observed.childPid} still exists: ${JSON.stringify(st)}`);
  }
});

test('the probe itself kills and reaps a hung child (no runner backstop involved)', async () => {
  const native = requireNative(nativePaths());
  const child = spawn(native.probe, ['deadlock', 'variant=plain-lock', 'hold-ms=10', 'child-timeout-ms=100'], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  const pgid = child.pid!;
  const guard = setTimeout(() => killGroup(pgid), 10_000);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stdin.end('run 2\nstop\n');
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
  clearTimeout(guard);
  const remaining = allProcesses().filter((p) => inProbeGroup(p, pgid));
  killGroup(pgid); // cleanup only if the assertion below is about to fail
  assert.equal(signal, null, 'the probe was not killed by the guard');
  assert.equal(code, 0, out);
  assert.deepEqual(remaining, [], 'the probe left a process in its group');
  const samples = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((x) => x.type === 'samples');
  assert.deepEqual(samples.hung, [1, 1]);
  assert.deepEqual(samples.killed, [1, 1]);
  for (const pid of samples.childPid as number[]) {
    const st = procStat(pid);
    assert.ok(st === null || !inProbeGroup(st, pgid), `child ${pid} still exists`);
  }
});
