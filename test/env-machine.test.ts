import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildMachineRecord, collectMachine, realSources, sampleLoad, type CommandResult, type HostSources, type MachineRecord } from '../src/env/machine.js';
import { readMemoryBudget } from '../src/env/memory.js';

const nullableNumber = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isFinite(v));
const nullableString = (v: unknown): boolean => v === null || (typeof v === 'string' && v.length > 0);

function checkPressure(p: unknown): void {
  if (p === null) return;
  assert.equal(typeof p, 'object');
  for (const k of ['someAvg10', 'someAvg60', 'someAvg300', 'someTotalUs']) {
    const v = (p as Record<string, unknown>)[k];
    assert.ok(typeof v === 'number' && v >= 0, `cpuPressure.${k}`);
  }
}

test('collectMachine on this machine: structure', async () => {
  const m: MachineRecord = await collectMachine({ pinCpu: null });

  assert.ok(typeof m.hostname === 'string');
  assert.ok(typeof m.kernel === 'string' && m.kernel.length > 0);
  assert.ok(typeof m.kernelVersion === 'string');
  assert.ok(typeof m.arch === 'string' && m.arch.length > 0);
  assert.ok(nullableString(m.cpuModel));
  assert.ok(Number.isInteger(m.cpuCount) && m.cpuCount >= 1);
  if (m.cpusAllowed !== null) {
    assert.ok(m.cpusAllowed.length >= 1);
    assert.ok(m.cpusAllowed.every((c) => Number.isInteger(c) && c >= 0));
  }
  assert.ok(typeof m.memTotalKb === 'number' && m.memTotalKb > 0);
  assert.ok(nullableNumber(m.memAvailableKb));
  assert.ok(nullableNumber(m.swapTotalKb));
  assert.ok(m.thpEnabled === null || ['always', 'madvise', 'never'].includes(m.thpEnabled), `thpEnabled=${m.thpEnabled}`);
  assert.ok(nullableString(m.thpDefrag));
  assert.ok(nullableNumber(m.hugePageSizeKb));
  assert.ok(Number.isInteger(m.pageSizeBytes) && m.pageSizeBytes >= 4096);
  assert.ok(m.glibcVersion === null || /^\d+\.\d+/.test(m.glibcVersion));
  assert.ok(nullableString(m.compilerVersion));
  assert.equal(m.nodeVersion, process.version);
  assert.ok(m.cgroupMemoryLimitBytes === null || (Number.isInteger(m.cgroupMemoryLimitBytes) && m.cgroupMemoryLimitBytes > 0));
  assert.ok(nullableNumber(m.vmMaxMapCount));
  assert.ok(m.overcommitMemory === null || [0, 1, 2].includes(m.overcommitMemory));
  assert.ok(nullableString(m.virtualization));
  assert.equal(m.pinnedCpu, null);
  assert.equal(m.loadAverage.length, 3);
  assert.ok(m.loadAverage.every((x) => typeof x === 'number' && x >= 0));
  checkPressure(m.cpuPressure);
  assert.ok(nullableString(m.clockSource));
  assert.ok(nullableString(m.cpuGovernor));
  assert.ok(!Number.isNaN(Date.parse(m.collectedAt)));
  assert.ok(Array.isArray(m.notes) && m.notes.every((n) => typeof n === 'string'));

  // The record is stored as JSON: it must round-trip unchanged.
  assert.deepEqual(JSON.parse(JSON.stringify(m)), m);

  const pinned = await collectMachine({ pinCpu: 0 });
  assert.equal(pinned.pinnedCpu, 0);
});

test('sampleLoad on this machine', () => {
  const s = sampleLoad();
  assert.ok(!Number.isNaN(Date.parse(s.at)));
  assert.equal(s.loadAverage.length, 3);
  checkPressure(s.cpuPressure);
});

test('readMemoryBudget on this machine', () => {
  const b = readMemoryBudget();
  for (const k of ['memAvailableBytes', 'cgroupLimitBytes', 'cgroupUsageBytes', 'cgroupReclaimableBytes', 'fitBytes'] as const) {
    assert.ok(nullableNumber(b[k]), k);
  }
  if (b.fitBytes !== null) assert.ok(b.fitBytes >= 0);
  if (b.fitBytes !== null && b.memAvailableBytes !== null) assert.ok(b.fitBytes <= b.memAvailableBytes);
});

// ---- fallbacks, over a fake machine ----

function fakeMachine(files: Record<string, string>, commands: Record<string, CommandResult>): HostSources {
  return {
    ...realSources,
    readFile: (p) => files[p] ?? null,
    run: (cmd, args) => commands[[cmd, ...args].join(' ')] ?? null,
    os: {
      hostname: () => 'fake',
      release: () => '6.1.0-test',
      version: () => '#1 SMP',
      arch: () => 'arm64',
      cpuModels: () => ['Neoverse-N1', 'Neoverse-N1'],
      availableParallelism: () => 2,
      loadavg: () => [0.5, 0.25, 0.125],
    },
    nodeVersion: 'v20.0.0',
    now: () => new Date('2024-01-02T03:04:05.000Z'),
  };
}

const ok = (stdout: string): CommandResult => ({ status: 0, stdout, stderr: '' });

test('buildMachineRecord: nothing readable, no commands → nulls, 4096 with a note, no throw', () => {
  const m = buildMachineRecord(fakeMachine({}, {}), { pinCpu: 3 });
  assert.equal(m.pageSizeBytes, 4096);
  assert.ok(m.notes.some((n) => n.includes('getconf PAGESIZE')));
  assert.equal(m.cpuModel, 'Neoverse-N1');
  assert.ok(m.notes.some((n) => n.includes('os.cpus()')));
  for (const k of [
    'cpusAllowed',
    'memTotalKb',
    'memAvailableKb',
    'swapTotalKb',
    'thpEnabled',
    'thpDefrag',
    'hugePageSizeKb',
    'glibcVersion',
    'compilerVersion',
    'cgroupMemoryLimitBytes',
    'vmMaxMapCount',
    'overcommitMemory',
    'virtualization',
    'cpuPressure',
    'clockSource',
    'cpuGovernor',
  ] as const) {
    assert.equal(m[k], null, k);
  }
  assert.equal(m.pinnedCpu, 3);
  assert.deepEqual(m.loadAverage, [0.5, 0.25, 0.125]);
  assert.equal(m.collectedAt, '2024-01-02T03:04:05.000Z');
});

test('buildMachineRecord: fallbacks and a cgroup v2 limit', () => {
  const files: Record<string, string> = {
    '/proc/cpuinfo': 'processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\nflags\t\t: fpu tsc hypervisor\n',
    '/proc/self/status': 'Name:\tnode\nCpus_allowed_list:\t0-1,4\n',
    '/proc/meminfo': 'MemTotal: 2048 kB\nMemAvailable: 1024 kB\nSwapTotal: 0 kB\n',
    '/sys/kernel/mm/transparent_hugepage/enabled': '[always] madvise never\n',
    '/sys/kernel/mm/transparent_hugepage/defrag': 'always defer defer+madvise [madvise] never\n',
    '/sys/kernel/mm/transparent_hugepage/hpage_pmd_size': '2097152\n',
    '/proc/self/cgroup': '0::/job\n',
    '/sys/fs/cgroup/job/memory.max': '536870912\n',
    '/sys/fs/cgroup/memory.max': 'max\n',
    '/proc/sys/vm/max_map_count': '65530\n',
    '/proc/sys/vm/overcommit_memory': '1\n',
    '/proc/pressure/cpu': 'some avg10=1.00 avg60=2.00 avg300=3.00 total=42\n',
    '/sys/devices/system/clocksource/clocksource0/current_clocksource': 'kvm-clock\n',
    '/sys/class/dmi/id/sys_vendor': 'QEMU\n',
    '/sys/class/dmi/id/product_name': 'Standard PC (Q35 + ICH9, 2009)\n',
  };
  const commands: Record<string, CommandResult> = {
    'getconf PAGESIZE': ok('16384\n'),
    'getconf GNU_LIBC_VERSION': { status: 1, stdout: '', stderr: 'Unrecognized variable' },
    'ldd --version': ok('ldd (GNU libc) 2.39\nCopyright\n'),
    'gcc --version': ok('gcc (GCC) 14.1.0\nCopyright\n'),
  };
  const m = buildMachineRecord(fakeMachine(files, commands), { pinCpu: null });
  assert.equal(m.cpuModel, 'Test CPU @ 3.00GHz');
  assert.deepEqual(m.cpusAllowed, [0, 1, 4]);
  assert.equal(m.memTotalKb, 2048);
  assert.equal(m.thpEnabled, 'always');
  assert.equal(m.thpDefrag, 'madvise');
  assert.equal(m.hugePageSizeKb, 2048);
  assert.equal(m.pageSizeBytes, 16384);
  assert.equal(m.glibcVersion, '2.39');
  assert.equal(m.compilerVersion, 'gcc (GCC) 14.1.0');
  assert.equal(m.cgroupMemoryLimitBytes, 536870912);
  assert.equal(m.vmMaxMapCount, 65530);
  assert.equal(m.overcommitMemory, 1);
  assert.equal(m.virtualization, 'vm (hypervisor flag) [QEMU / Standard PC (Q35 + ICH9, 2009)]');
  assert.deepEqual(m.cpuPressure, { someAvg10: 1, someAvg60: 2, someAvg300: 3, someTotalUs: 42 });
  assert.equal(m.clockSource, 'kvm-clock');
  assert.equal(m.cpuGovernor, null);
  assert.ok(!m.notes.some((n) => n.includes('PAGESIZE')));
});

test('buildMachineRecord: systemd-detect-virt answers', () => {
  const none = buildMachineRecord(
    fakeMachine(
      {},
      {
        'systemd-detect-virt --vm': { status: 1, stdout: 'none\n', stderr: '' },
        'systemd-detect-virt --container': { status: 1, stdout: 'none\n', stderr: '' },
      },
    ),
    { pinCpu: null },
  );
  assert.equal(none.virtualization, 'none');
  const both = buildMachineRecord(
    fakeMachine(
      {},
      {
        'systemd-detect-virt --vm': ok('kvm\n'),
        'systemd-detect-virt --container': ok('docker\n'),
      },
    ),
    { pinCpu: null },
  );
  assert.equal(both.virtualization, 'docker on kvm');
});

test('buildMachineRecord: the probe set given is kept; an arm64 process with an x86 /proc/cpuinfo is emulated', () => {
  const probe = { origin: 'prebuilt' as const, buildId: 'linux-arm64-0123456789ab', dir: '/p/prebuilds/linux-arm64' };
  const m = buildMachineRecord(fakeMachine({ '/proc/cpuinfo': 'processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2\n' }, {}), { pinCpu: null, probe });
  assert.deepEqual(m.probe, probe);
  assert.match(m.emulation ?? '', /^arm64 process on an x86 CPU/);
  const native = buildMachineRecord(fakeMachine({ '/proc/cpuinfo': 'processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n' }, {}), { pinCpu: null });
  assert.equal(native.emulation, null);
  assert.equal(native.probe, undefined);
});
