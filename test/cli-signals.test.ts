// Stopping a run: Ctrl-C, SIGTERM, a second Ctrl-C, SIGKILL of the CLI itself, and Ctrl-C during reproduce.
// Each test waits for a real probe (a forklab-probe process under the CLI), stops the CLI, and checks that no
// probe is left and that the run is in the history as incomplete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { childrenOf, probeAlive } from './helpers/procs.js';
import { runCli, sandbox, startCli, waitFor, type RunningCli, type Sandbox } from './helpers/cli.js';

// Long enough that the CLI is still measuring when the signal comes, whatever the machine's speed.
const LONG = ['spawn', '--methods', 'fork-exec', '--rss', '0,64', '--thp', 'off', '--repeats', '50', '--iterations', '300', '--ci-target', '0', '--budget-ms', '0'];

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Every live process whose cmdline names the probe, under pid at any depth. */
function probesUnder(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of childrenOf(p)) {
      if (cmdline(c).includes('forklab-probe')) out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Waits until the CLI has a probe running and the history holds its run; returns the probe pids seen. */
async function probeRunning(cli: RunningCli): Promise<number[]> {
  return waitFor(`a forklab-probe under the CLI (stderr so far: ${cli.stderr()})`, () => {
    const ps = probesUnder(cli.child.pid!);
    return ps.length ? ps : undefined;
  });
}

/** Every forklab-probe process on the machine whose parent is gone (adopted) or is one of `pids`. */
function probesLeft(pids: number[]): number[] {
  return pids.filter((p) => probeAlive(p));
}

async function gone(pids: number[]): Promise<void> {
  // SIGKILL is delivered asynchronously: give the kernel a moment, then insist.
  await waitFor('every probe to be gone', () => probesLeft(pids).length === 0, 10_000).catch(() => undefined);
  assert.deepEqual(probesLeft(pids), [], 'no probe left');
}

function lastRun(box: Sandbox): { status: string; measurements: number } {
  const r = runCli(box, ['history', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { status: string; measurements: number }[];
  assert.ok(rows.length > 0, 'the run is in the history');
  return rows.at(-1)!;
}

test('Ctrl-C: exit 130 after a real probe started, no probe left, the run stored as incomplete', async () => {
  const box = sandbox();
  const cli = startCli(box, LONG);
  const probes = await probeRunning(cli);
  cli.child.kill('SIGINT');
  const end = await cli.done;
  assert.equal(end.code, 130, cli.stderr());
  assert.match(cli.stderr(), /interrupted/);
  await gone(probes);
  assert.equal(lastRun(box).status, 'incomplete');
});

test('SIGTERM: exit 143 saying "terminated", no probe left, the run stored as incomplete', async () => {
  const box = sandbox();
  const cli = startCli(box, LONG);
  const probes = await probeRunning(cli);
  cli.child.kill('SIGTERM');
  const end = await cli.done;
  assert.equal(end.code, 143, cli.stderr());
  assert.match(cli.stderr(), /terminated/);
  assert.doesNotMatch(cli.stderr(), /Ctrl-C/);
  await gone(probes);
  assert.equal(lastRun(box).status, 'incomplete');
});

test('a second Ctrl-C leaves at once; no probe left, and the next open marks the run incomplete', async () => {
  const box = sandbox();
  const cli = startCli(box, LONG);
  const probes = await probeRunning(cli);
  cli.child.kill('SIGINT');
  cli.child.kill('SIGINT');
  const end = await cli.done;
  // Either the second signal found the handler (130 at once) or the run had already stopped and Node's default
  // SIGINT ended the process: both leave nothing running.
  assert.ok(end.code === 130 || end.signal === 'SIGINT', `${end.code} ${end.signal}: ${cli.stderr()}`);
  await gone(probes);
  assert.equal(lastRun(box).status, 'incomplete');
});

test('SIGKILL of the CLI: its probe dies with it; the run becomes incomplete at the next open', async () => {
  const box = sandbox();
  const cli = startCli(box, LONG);
  const probes = await probeRunning(cli);
  cli.child.kill('SIGKILL');
  const end = await cli.done;
  assert.equal(end.signal, 'SIGKILL');
  await gone(probes);
  const run = lastRun(box);
  assert.equal(run.status, 'incomplete', 'the stale running row is marked incomplete by the next open');
});

test('Ctrl-C during reproduce: exit 130, what finished is judged, no probe left', async () => {
  const box = sandbox();
  const cli = startCli(box, ['reproduce', '--quick', '--only', '000']);
  const probes = await probeRunning(cli);
  cli.child.kill('SIGINT');
  const end = await cli.done;
  assert.equal(end.code, 130, cli.stderr());
  assert.match(cli.stderr(), /interrupted/);
  await gone(probes);
  assert.equal(lastRun(box).status, 'incomplete');
});
