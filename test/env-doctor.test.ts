// forklab doctor: checks on recorded /proc and /sys text (never on this machine's state), --apply and --reset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, sandbox } from './helpers/cli.js';
import { runDoctorChecks, doctorSummary } from '../src/env/doctor.js';
import type { DoctorCheck } from '../src/env/doctor-check.js';
import { cgroupDirs, type DoctorFacts } from '../src/env/doctor-facts.js';
import { applyChanges, resetChanges, currentValue, defaultSavedPath, type ApplyIo, type SavedChange } from '../src/cli/doctor.js';
import { tempDir } from './helpers/tmp.js';

/** Recorded on a 2-vCPU nested VM (cgroup v1) while other builds loaded both CPUs. */
const VM: DoctorFacts = JSON.parse(readFileSync(new URL('./fixtures/doctor/vm-2cpu-busy.json', import.meta.url), 'utf8'));

/** A badly tuned bare-metal workstation: cgroup v2, powersave, turbo, SMT, THP always, strict overcommit, traced. */
function workstation(): DoctorFacts {
  const cpu = '/sys/devices/system/cpu';
  const files: Record<string, string | null> = {
    ...VM.files,
    [`${cpu}/online`]: '0-3\n',
    [`${cpu}/cpu0/cpufreq/scaling_governor`]: 'powersave\n',
    [`${cpu}/cpu1/cpufreq/scaling_governor`]: 'performance\n',
    [`${cpu}/cpu2/cpufreq/scaling_governor`]: 'powersave\n',
    [`${cpu}/cpu3/cpufreq/scaling_governor`]: 'powersave\n',
    [`${cpu}/cpu0/topology/thread_siblings_list`]: '0,2\n',
    [`${cpu}/intel_pstate/no_turbo`]: '0\n',
    [`${cpu}/smt/active`]: '1\n',
    [`${cpu}/smt/control`]: 'on\n',
    '/sys/kernel/mm/transparent_hugepage/enabled': '[always] madvise never\n',
    '/sys/kernel/mm/transparent_hugepage/defrag': '[always] defer defer+madvise madvise never\n',
    '/proc/sys/vm/overcommit_memory': '2\n',
    '/proc/self/status': 'Name:\tnode\nTracerPid:\t4242\nCpus_allowed_list:\t0-3\n',
    '/proc/self/cgroup': '0::/user.slice/bench.scope\n',
    '/proc/self/mountinfo': '30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n',
    '/sys/fs/cgroup/user.slice/bench.scope/memory.max': '2147483648\n',
    '/sys/fs/cgroup/user.slice/bench.scope/cpu.max': '150000 100000\n',
    '/sys/fs/cgroup/user.slice/memory.max': 'max\n',
    '/proc/cpuinfo': 'processor\t: 0\nflags\t\t: fpu vme sse2\n\n',
    '/proc/loadavg': '0.10 0.20 0.30 1/300 999\n',
  };
  const quiet = 'some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
  return {
    files,
    now: {
      intervalMs: 1000,
      statBefore: 'cpu  100 0 100 800 0 0 0 0 0 0\n',
      statAfter: 'cpu  150 0 150 1100 0 0 0 0 0 0\n',
      pressureBefore: quiet,
      pressureAfter: quiet.replace('total=1000', 'total=2000'),
    },
    uid: 1000,
  };
}

const byId = (checks: DoctorCheck[], id: string) => checks.find((c) => c.id === id)!;

test('the recorded busy VM: load and pressure flagged, cpufreq absent, settings fine, summary names what to look at', () => {
  const checks = runDoctorChecks(VM);
  const ids = checks.map((c) => c.id);
  for (const id of [
    'load',
    'virtualization',
    'governor',
    'boost',
    'smt',
    'thp-enabled',
    'thp-defrag',
    'overcommit',
    'max-map-count',
    'cgroup-memory',
    'cgroup-cpu',
    'pinning',
    'aslr',
    'tracer',
  ])
    assert.ok(ids.includes(id), id);
  for (const c of checks) {
    assert.ok(c.found.length > 0 && c.why.length > 0, c.id);
    if (c.status === 'warn') assert.ok(c.command, `${c.id}: a warned check names the command that changes it`);
  }
  const load = byId(checks, 'load');
  assert.equal(load.status, 'warn');
  assert.match(load.found, /tasks waited for a CPU 100 % of the last 0\.5 s/);
  assert.match(byId(checks, 'virtualization').found, /^virtual machine; steal 0\.0 % now/);
  assert.equal(byId(checks, 'governor').status, 'info');
  assert.equal(byId(checks, 'thp-enabled').status, 'ok');
  assert.equal(byId(checks, 'thp-defrag').found, 'madvise');
  assert.equal(byId(checks, 'overcommit').status, 'ok');
  assert.equal(byId(checks, 'cgroup-cpu').found, 'none');
  assert.match(byId(checks, 'pinning').found, /^0-1 \(2 CPUs\)/);
  assert.match(byId(checks, 'pinning').why, /on one CPU: compare pinned runs with pinned runs/);
  assert.equal(byId(checks, 'tracer').status, 'ok');
  assert.match(doctorSummary(checks), /^doctor: 1 to look at \(load and CPU pressure now: .*\), 14 fine or informational/);
  assert.deepEqual(
    cgroupDirs(VM.files, 'memory').map((d) => d.dir),
    ['/sys/fs/cgroup/memory/jobs/runner', '/sys/fs/cgroup/memory/jobs', '/sys/fs/cgroup/memory'],
  );
});

test('a badly tuned workstation: each problem found, with its command and what --apply would write', () => {
  const checks = runDoctorChecks(workstation());
  const gov = byId(checks, 'governor');
  assert.equal(gov.status, 'warn');
  assert.equal(gov.found, 'powersave, performance');
  assert.deepEqual(
    gov.apply.map((a) => a.path),
    [0, 2, 3].map((c) => `/sys/devices/system/cpu/cpu${c}/cpufreq/scaling_governor`),
  );
  assert.deepEqual(byId(checks, 'boost').apply, [{ path: '/sys/devices/system/cpu/intel_pstate/no_turbo', value: '1' }]);
  const smt = byId(checks, 'smt');
  assert.equal(smt.status, 'warn');
  assert.deepEqual(smt.apply, [], 'SMT off is left to the user');
  assert.match(smt.command!, /smt\/control/);
  assert.equal(byId(checks, 'thp-enabled').status, 'warn');
  assert.equal(byId(checks, 'thp-defrag').apply[0]!.value, 'madvise');
  assert.equal(byId(checks, 'overcommit').command, 'sysctl -w vm.overcommit_memory=0');
  assert.match(byId(checks, 'cgroup-memory').found, /^2048 MB/);
  const cpu = byId(checks, 'cgroup-cpu');
  assert.equal(cpu.status, 'warn');
  assert.match(cpu.found, /1\.50 CPUs \(\/sys\/fs\/cgroup\/user\.slice\/bench\.scope\/cpu\.max\)/);
  assert.equal(byId(checks, 'tracer').status, 'warn');
  assert.match(byId(checks, 'virtualization').found, /^no hypervisor flag/);
  assert.equal(byId(checks, 'load').status, 'ok');
  assert.match(byId(checks, 'load').found, /waited for a CPU 0 %/);
});

function fakeIo(isRoot: boolean, initial: Record<string, string>): ApplyIo & { files: Record<string, string>; writes: string[] } {
  const files = { ...initial };
  const writes: string[] = [];
  return {
    isRoot,
    files,
    writes,
    read: (p) => files[p] ?? null,
    write: (p, v) => {
      writes.push(`${p}=${v}`);
      files[p] = v;
    },
  };
}

test('--apply without root writes nothing and returns the commands', () => {
  const checks = runDoctorChecks(workstation());
  const io = fakeIo(false, { '/sys/kernel/mm/transparent_hugepage/enabled': '[always] madvise never' });
  const saved: SavedChange[] = [];
  const r = applyChanges(checks, io, saved);
  assert.deepEqual(io.writes, []);
  assert.deepEqual(r.made, []);
  assert.deepEqual(saved, []);
  assert.ok(r.commands.some((c) => c.includes('transparent_hugepage/enabled')));
  assert.ok(r.commands.includes('sysctl -w vm.overcommit_memory=0'));
});

test('--apply as root changes only warned settings, saves the first previous value; --reset restores them', () => {
  const checks = runDoctorChecks(workstation());
  const thp = '/sys/kernel/mm/transparent_hugepage/enabled';
  const oc = '/proc/sys/vm/overcommit_memory';
  const io = fakeIo(true, { [thp]: '[always] madvise never\n', [oc]: '2\n', '/sys/kernel/mm/transparent_hugepage/defrag': '[always] madvise never\n' });
  const saved: SavedChange[] = [];
  const r = applyChanges(checks, io, saved);
  assert.ok(io.writes.includes(`${thp}=madvise`));
  assert.ok(io.writes.includes(`${oc}=0`));
  assert.ok(!io.writes.some((w) => w.includes('smt')), 'SMT is never applied');
  assert.ok(
    r.failed.some((f) => f.includes('scaling_governor')),
    'unreadable paths are reported, not guessed',
  );
  assert.deepEqual(
    saved.find((s) => s.path === thp),
    { path: thp, value: 'madvise', previous: 'always' },
  );
  // A second --apply keeps the oldest previous value.
  applyChanges(checks, io, saved);
  assert.equal(saved.filter((s) => s.path === thp).length, 1);
  assert.equal(saved.find((s) => s.path === thp)!.previous, 'always');

  const notRoot = resetChanges(saved, { ...io, isRoot: false, write: () => assert.fail('no write without root') });
  assert.ok(notRoot.commands.includes(`echo always > ${thp}`));
  const back = resetChanges(saved, io);
  assert.equal(back.failed.length, 0);
  assert.equal(io.files[thp], 'always');
  assert.equal(io.files[oc], '2');
});

test('saved values live in the state directory, not beside results', () => {
  assert.equal(defaultSavedPath({ XDG_STATE_HOME: '/s' }), '/s/forklab/doctor-saved.json');
  assert.equal(defaultSavedPath({ HOME: '/h' }), '/h/.local/state/forklab/doctor-saved.json');
  assert.equal(currentValue('always [madvise] never\n'), 'madvise');
  assert.equal(currentValue('65530\n'), '65530');
});

test('forklab doctor --json through the CLI: every check with found/why/command, and the summary', () => {
  const home = tempDir('forklab-doctor-');
  const box = sandbox({ ...process.env, XDG_STATE_HOME: join(home, 'state') });
  const r = runCli(box, ['doctor', '--json'], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { summary: string; checks: DoctorCheck[] };
  assert.match(out.summary, /^doctor: /);
  assert.equal(out.checks.length, 16);
  assert.match(out.checks.find((c) => c.id === 'probe')?.found ?? '', /^(built here|prebuilt, build id linux-)/);
  for (const c of out.checks) assert.ok(['ok', 'warn', 'info'].includes(c.status) && typeof c.found === 'string' && typeof c.why === 'string', c.id);
  const both = runCli(box, ['doctor', '--apply', '--reset'], { env: { HOME: home } });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--apply and --reset: choose one/);
});
