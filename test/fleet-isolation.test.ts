// The machine record's isolation fields and the witness's cgroup counters, read from fixture trees laid out like
// /proc and /sys: a Kubernetes pod on cgroup v2 (seccomp filter, user namespace, 2-CPU quota, throttled) and a
// host on the v1/v2 hybrid layout (no filter, identity map, no quota).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { containerSigns, locateCpuCgroup, parseSeccompStatus, parseUidMap, readIsolation, sampleCgroupCpu } from '../src/env/isolation.js';
import { computeWitness, formatWitness, witnessOfLoad } from '../src/env/witness.js';
import type { ReadText } from '../src/env/memory.js';

const FIX = join(import.meta.dirname, 'fixtures', 'isolation');
const tree =
  (name: string, overrides: Record<string, string> = {}): ReadText =>
  (path) => {
    if (path in overrides) return overrides[path]!;
    try {
      return readFileSync(join(FIX, name, path), 'utf8');
    } catch {
      return null;
    }
  };

test('isolation: a pod with a seccomp filter, a user namespace and a 2-CPU quota', () => {
  const read = tree('pod-v2');
  const iso = readIsolation(read, { KUBERNETES_SERVICE_HOST: '10.0.0.1' });
  assert.equal(iso.seccompMode, 2);
  assert.equal(iso.seccompFilters, 1);
  assert.equal(iso.noNewPrivs, true);
  assert.equal(iso.inContainer, true);
  assert.deepEqual(iso.containerSigns, ['KUBERNETES_SERVICE_HOST is set (a Kubernetes pod)', 'cgroup path /kubepods.slice/kubepods-pod12.slice/cri-containerd-abc.scope']);
  assert.equal(iso.uidMap, '0 100000 65536');
  assert.equal(iso.userNamespaced, true);
  assert.equal(iso.cgroupCpuLimit, 2);
  // The mount shows the pod's cgroup as its root: the files are at the mount point itself.
  assert.deepEqual(locateCpuCgroup(read), { v1: null, v2: '/sys/fs/cgroup' });
  assert.deepEqual(sampleCgroupCpu(read), { pressureSomeTotalUs: 5200000, nrPeriods: 9000, nrThrottled: 120, throttledUs: 4500000 });
});

test('isolation: a host on the hybrid layout reads throttling from v1 (ns → µs) and pressure from v2', () => {
  const read = tree('hybrid-host');
  const iso = readIsolation(read, {});
  assert.deepEqual(
    { ...iso },
    { seccompMode: 0, seccompFilters: 0, noNewPrivs: false, inContainer: false, containerSigns: [], uidMap: '0 0 4294967295', userNamespaced: false, cgroupCpuLimit: null },
  );
  assert.deepEqual(locateCpuCgroup(read), { v1: '/sys/fs/cgroup/cpu/user.slice', v2: '/sys/fs/cgroup/unified/user.slice/session-3.scope' });
  const quota = tree('hybrid-host', {
    '/sys/fs/cgroup/cpu/user.slice/cpu.cfs_quota_us': '150000\n',
    '/sys/fs/cgroup/cpu/user.slice/cpu.stat': 'nr_periods 10\nnr_throttled 3\nthrottled_time 2500000\n',
  });
  assert.equal(readIsolation(quota, {}).cgroupCpuLimit, 1.5);
  assert.deepEqual(sampleCgroupCpu(quota), { pressureSomeTotalUs: 812345, nrPeriods: 10, nrThrottled: 3, throttledUs: 2500 });
});

test('isolation: what cannot be read is null, never guessed', () => {
  const none: ReadText = () => null;
  const iso = readIsolation(none, {});
  assert.equal(iso.seccompMode, null);
  assert.equal(iso.seccompFilters, null);
  assert.equal(iso.uidMap, null);
  assert.equal(iso.userNamespaced, null);
  assert.equal(iso.cgroupCpuLimit, null);
  assert.equal(sampleCgroupCpu(none), null);
  // A kernel before 5.9 has no Seccomp_filters line.
  assert.deepEqual(parseSeccompStatus('Seccomp:\t2\n'), { seccompMode: 2, seccompFilters: null, noNewPrivs: null });
  assert.equal(parseUidMap('garbage\n'), null);
  assert.deepEqual(parseUidMap('0 1000 1\n1 100000 65536\n'), { uidMap: '0 1000 1, 1 100000 65536', userNamespaced: true });
});

test('isolation: podman and docker markers name the engine', () => {
  const files: Record<string, string> = { '/run/.containerenv': 'engine="podman-4.3.1"\nname="m"\n', '/.dockerenv': '' };
  const read: ReadText = (p) => files[p] ?? null;
  assert.deepEqual(containerSigns(read, { container: 'podman' }), [
    '/.dockerenv exists (Docker)',
    '/run/.containerenv exists (podman-4.3.1)',
    'container=podman in the environment',
  ]);
});

test('witness: the cgroup throttled and waited, beside a quiet host-wide /proc/pressure', () => {
  const before = { pressureSomeTotalUs: 1_000_000, nrPeriods: 100, nrThrottled: 0, throttledUs: 0 };
  const after = { pressureSomeTotalUs: 2_500_000, nrPeriods: 200, nrThrottled: 40, throttledUs: 800_000 };
  const w = computeWitness({
    wallMs: 10_000,
    pressureBeforeUs: 0,
    pressureAfterUs: 100_000,
    ticksBefore: null,
    ticksAfter: null,
    probes: null,
    pinnedCpu: null,
    cgroupBefore: before,
    cgroupAfter: after,
  });
  assert.equal(w.cpuPressurePercent, 1);
  assert.equal(w.cgroupPressurePercent, 15);
  assert.equal(w.throttledPeriods, 40);
  assert.equal(w.throttledMs, 800);
  assert.deepEqual(w.contention, ['tasks of this cgroup waited for a CPU 15 % of the time', "the cgroup's CPU quota throttled it in 40 periods (800 ms)"]);
  assert.match(formatWitness(w), /cgroup CPU pressure 15 %, throttled in 40 periods \(800 ms\)$/);
  // A run recorded before the cgroup was read has no cgroup fields at all.
  const old = witnessOfLoad({ before: { cpuPressure: { someTotalUs: 0 }, cpuTicks: null }, after: { cpuPressure: { someTotalUs: 0 }, cpuTicks: null } }, 1000, null);
  assert.ok(old !== null && !('throttledPeriods' in old));
  const fresh = witnessOfLoad({ before: { cpuPressure: null, cpuTicks: null, cgroupCpu: before }, after: { cpuPressure: null, cpuTicks: null, cgroupCpu: before } }, 1000, null);
  assert.equal(fresh?.throttledPeriods, 0);
  assert.deepEqual(fresh?.contention, []);
});
