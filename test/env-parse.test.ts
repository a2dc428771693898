import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpuinfoHasFlag,
  firstLine,
  parseCgroupLimit,
  parseCgroupMounts,
  parseCgroupPath,
  parseCpuinfoModel,
  parseCpusAllowedList,
  parseGlibcVersion,
  parseIntFile,
  parseKeyValueLines,
  parseMeminfo,
  parsePressure,
  parseStatusField,
  parseThpChoice,
} from '../src/env/parse.js';
import { computeMemoryBudget, locateMemoryCgroup, readCgroupLevels, readMemoryBudget } from '../src/env/memory.js';
import { readThpChoice, thpPath } from '../src/env/thp.js';

const MEMINFO = `MemTotal:       24683656 kB
MemFree:        23001234 kB
MemAvailable:   24371892 kB
SwapTotal:             0 kB
AnonHugePages:         0 kB
HugePages_Total:       0
HugePages_Free:        0
Hugepagesize:       2048 kB
DirectMap1G:     5242880 kB
`;

test('parseMeminfo: kB values and plain counts', () => {
  const m = parseMeminfo(MEMINFO);
  assert.equal(m['MemTotal'], 24683656);
  assert.equal(m['MemAvailable'], 24371892);
  assert.equal(m['SwapTotal'], 0);
  assert.equal(m['Hugepagesize'], 2048);
  assert.equal(m['HugePages_Total'], 0);
  assert.equal(m['DirectMap1G'], 5242880);
  assert.equal(m['Nope'], undefined);
  assert.deepEqual(parseMeminfo(''), {});
});

test('parseThpChoice', () => {
  assert.equal(parseThpChoice('always [madvise] never\n'), 'madvise');
  assert.equal(parseThpChoice('[always] madvise never'), 'always');
  assert.equal(parseThpChoice('always madvise [never]'), 'never');
  assert.equal(parseThpChoice('always defer defer+madvise [madvise] never'), 'madvise');
  assert.equal(parseThpChoice('always defer [defer+madvise] madvise never'), 'defer+madvise');
  assert.equal(parseThpChoice('always madvise never'), null);
  assert.equal(parseThpChoice(''), null);
});

test('parsePressure: the some line', () => {
  const text = `some avg10=1.78 avg60=0.59 avg300=0.48 total=3678855
full avg10=0.00 avg60=0.00 avg300=0.00 total=0
`;
  assert.deepEqual(parsePressure(text), { someAvg10: 1.78, someAvg60: 0.59, someAvg300: 0.48, someTotalUs: 3678855 });
  // Older kernels have no "full" line for cpu.
  assert.deepEqual(parsePressure('some avg10=0.00 avg60=0.00 avg300=0.00 total=0'), {
    someAvg10: 0,
    someAvg60: 0,
    someAvg300: 0,
    someTotalUs: 0,
  });
  assert.equal(parsePressure('full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n'), null);
  assert.equal(parsePressure('some avg10=0.00 avg60=0.00'), null);
  assert.equal(parsePressure('some avg10=x avg60=0 avg300=0 total=0'), null);
  assert.equal(parsePressure(''), null);
});

test('parseCpusAllowedList', () => {
  assert.deepEqual(parseCpusAllowedList('0-1,4'), [0, 1, 4]);
  assert.deepEqual(parseCpusAllowedList('0-1\n'), [0, 1]);
  assert.deepEqual(parseCpusAllowedList('7'), [7]);
  assert.deepEqual(parseCpusAllowedList('0-3,8-11'), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual(parseCpusAllowedList('4,0-1,1'), [0, 1, 4]);
  assert.deepEqual(parseCpusAllowedList('0-7:2/4'), [0, 1, 4, 5]);
  assert.equal(parseCpusAllowedList(''), null);
  assert.equal(parseCpusAllowedList('3-1'), null);
  assert.equal(parseCpusAllowedList('a-b'), null);
  assert.equal(parseCpusAllowedList('0-1,,2'), null);
});

test('parseStatusField', () => {
  const status = 'Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n';
  assert.equal(parseStatusField(status, 'Cpus_allowed_list'), '0-1');
  assert.equal(parseStatusField(status, 'Cpus_allowed'), '3');
  assert.equal(parseStatusField(status, 'Missing'), null);
});

test('parseCgroupPath: v2 only', () => {
  assert.deepEqual(parseCgroupPath('0::/user.slice/user-1000.slice/session-2.scope\n'), {
    unified: '/user.slice/user-1000.slice/session-2.scope',
    memoryV1: null,
  });
  assert.deepEqual(parseCgroupPath('0::/\n'), { unified: '/', memoryV1: null });
});

test('parseCgroupPath: v1 / hybrid', () => {
  const text = `12:pids:/docker/abc
9:name=systemd:/
5:cpu,cpuacct:/docker/abc
4:memory:/process_api/a424aea001ea257015311ae1e1e40cbf
1:cpuset:/
0::/
`;
  assert.deepEqual(parseCgroupPath(text), { unified: '/', memoryV1: '/process_api/a424aea001ea257015311ae1e1e40cbf' });
  assert.deepEqual(parseCgroupPath('3:cpu,memory:/a:b\n'), { unified: null, memoryV1: '/a:b' });
  assert.deepEqual(parseCgroupPath(''), { unified: null, memoryV1: null });
});

test('parseCgroupMounts', () => {
  const mountinfo = `24 1 0:22 / / rw,relatime - overlay overlay rw,lowerdir=/x
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
42 31 0:39 / /mnt/my\\040cg rw - cgroup2 cgroup2 rw
`;
  const mounts = parseCgroupMounts(mountinfo);
  assert.deepEqual(mounts, [
    { version: 1, mountPoint: '/sys/fs/cgroup/cpu,cpuacct', root: '/', controllers: ['cpu', 'cpuacct'] },
    { version: 1, mountPoint: '/sys/fs/cgroup/memory', root: '/docker/abc', controllers: ['memory'] },
    { version: 1, mountPoint: '/sys/fs/cgroup/systemd', root: '/', controllers: [] },
    { version: 2, mountPoint: '/sys/fs/cgroup/unified', root: '/', controllers: [] },
    { version: 2, mountPoint: '/mnt/my cg', root: '/', controllers: [] },
  ]);
});

test('parseCgroupLimit', () => {
  assert.equal(parseCgroupLimit('max\n'), null);
  assert.equal(parseCgroupLimit('9223372036854771712\n'), null);
  assert.equal(parseCgroupLimit(String(2 ** 60)), null);
  assert.equal(parseCgroupLimit('536870912\n'), 536870912);
  assert.equal(parseCgroupLimit(''), null);
  assert.equal(parseCgroupLimit('-1'), null);
});

test('parseIntFile and parseKeyValueLines', () => {
  assert.equal(parseIntFile('65530\n'), 65530);
  assert.equal(parseIntFile('0'), 0);
  assert.equal(parseIntFile('x'), null);
  assert.equal(parseIntFile(''), null);
  assert.equal(parseIntFile('99999999999999999999'), null);
  assert.deepEqual(parseKeyValueLines('anon 100\nfile 200\ninactive_file 50\n'), { anon: 100, file: 200, inactive_file: 50 });
});

test('parseGlibcVersion', () => {
  assert.equal(parseGlibcVersion('glibc 2.36\n'), '2.36');
  assert.equal(parseGlibcVersion('ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\nCopyright (C) 2022'), '2.36');
  assert.equal(parseGlibcVersion('ldd (Ubuntu GLIBC 2.39-0ubuntu8.4) 2.39\n'), '2.39');
  assert.equal(parseGlibcVersion('ldd (GNU libc) 2.40\n'), '2.40');
  assert.equal(parseGlibcVersion('musl libc (x86_64)\nVersion 1.2.4\n'), null);
  assert.equal(parseGlibcVersion(''), null);
});

test('cpuinfo: model name and flags', () => {
  const x86 = `processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm
`;
  assert.equal(parseCpuinfoModel(x86), 'Intel(R) Xeon(R) Processor');
  assert.equal(cpuinfoHasFlag(x86, 'hypervisor'), true);
  assert.equal(cpuinfoHasFlag(x86, 'hyper'), false);
  const arm = 'processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm\nCPU implementer\t: 0x41\n';
  assert.equal(parseCpuinfoModel(arm), null);
  assert.equal(cpuinfoHasFlag(arm, 'asimd'), true);
  assert.equal(cpuinfoHasFlag(arm, 'hypervisor'), false);
});

test('firstLine', () => {
  assert.equal(firstLine('\ncc (Debian 12.2.0-14) 12.2.0\nCopyright\n'), 'cc (Debian 12.2.0-14) 12.2.0');
  assert.equal(firstLine('  \n'), null);
});

// ---- memory budget over a fake filesystem ----

function fakeFs(files: Record<string, string>) {
  return (p: string): string | null => files[p] ?? null;
}

test('memory: cgroup v2 limit in an ancestor binds', () => {
  const read = fakeFs({
    '/proc/self/cgroup': '0::/a/b\n',
    '/proc/self/mountinfo': '41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n',
    '/proc/meminfo': 'MemAvailable:   4194304 kB\n', // 4 GiB
    '/sys/fs/cgroup/a/b/memory.max': 'max\n',
    '/sys/fs/cgroup/a/b/memory.current': '1000\n',
    '/sys/fs/cgroup/a/b/memory.stat': 'anon 900\ninactive_file 100\n',
    '/sys/fs/cgroup/a/memory.max': '1073741824\n', // 1 GiB
    '/sys/fs/cgroup/a/memory.current': '268435456\n',
    '/sys/fs/cgroup/a/memory.stat': 'inactive_file 67108864\n',
  });
  const cg = locateMemoryCgroup(read);
  assert.deepEqual(cg, { version: 2, dirs: ['/sys/fs/cgroup/a/b', '/sys/fs/cgroup/a', '/sys/fs/cgroup'], note: null });
  const b = readMemoryBudget(read);
  assert.deepEqual(b, {
    memAvailableBytes: 4194304 * 1024,
    cgroupLimitBytes: 1073741824,
    cgroupUsageBytes: 268435456,
    cgroupReclaimableBytes: 67108864,
    fitBytes: 1073741824 - 268435456 + 67108864,
  });
});

test('memory: cgroup v1 memory controller with a mount root (docker without cgroupns)', () => {
  const read = fakeFs({
    '/proc/self/cgroup': '4:memory:/docker/abc\n0::/\n',
    '/proc/self/mountinfo': '35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n',
    '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912\n',
    '/sys/fs/cgroup/memory/memory.usage_in_bytes': '136870912\n',
    '/sys/fs/cgroup/memory/memory.stat': 'inactive_file 5\ntotal_inactive_file 10\n',
  });
  assert.deepEqual(locateMemoryCgroup(read), { version: 1, dirs: ['/sys/fs/cgroup/memory'], note: null });
  const b = readMemoryBudget(read);
  assert.equal(b.memAvailableBytes, null);
  assert.equal(b.cgroupLimitBytes, 536870912);
  assert.equal(b.fitBytes, 400000000 + 10);
});

test('memory: MemAvailable binds when cgroup headroom is larger; unlimited v1', () => {
  const read = fakeFs({
    '/proc/self/cgroup': '4:memory:/x\n',
    '/proc/meminfo': 'MemAvailable: 1024 kB\n',
    '/sys/fs/cgroup/memory/x/memory.limit_in_bytes': '9223372036854771712\n',
    '/sys/fs/cgroup/memory/x/memory.usage_in_bytes': '4096\n',
  });
  const b = readMemoryBudget(read);
  assert.deepEqual(b, {
    memAvailableBytes: 1048576,
    cgroupLimitBytes: null,
    cgroupUsageBytes: 4096,
    cgroupReclaimableBytes: null,
    fitBytes: 1048576,
  });
});

test('memory: nothing known → fitBytes null; path outside the mount root → mount root with a note', () => {
  assert.deepEqual(readMemoryBudget(fakeFs({})), {
    memAvailableBytes: null,
    cgroupLimitBytes: null,
    cgroupUsageBytes: null,
    cgroupReclaimableBytes: null,
    fitBytes: null,
  });
  const cg = locateMemoryCgroup(
    fakeFs({
      '/proc/self/cgroup': '0::/../../other\n',
      '/proc/self/mountinfo': '41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n',
    }),
  );
  assert.equal(cg?.dirs.length, 1);
  assert.equal(cg?.dirs[0], '/sys/fs/cgroup');
  assert.match(cg?.note ?? '', /not below/);
});

test('memory: computeMemoryBudget over levels, usage above limit clamps to 0', () => {
  const b = computeMemoryBudget(10_000, [
    { dir: '/own', limitBytes: 5000, usageBytes: 6000, reclaimableBytes: 0 },
    { dir: '/parent', limitBytes: null, usageBytes: 9000, reclaimableBytes: null },
  ]);
  assert.equal(b.fitBytes, 0);
  assert.equal(b.cgroupLimitBytes, 5000);
  const levels = readCgroupLevels({ version: 2, dirs: ['/nope'], note: null }, fakeFs({}));
  assert.deepEqual(levels, [{ dir: '/nope', limitBytes: null, usageBytes: null, reclaimableBytes: null }]);
});

test('readThpChoice: the bracketed choice of enabled and defrag from their files; null when unreadable', () => {
  const files: Record<string, string> = {
    [thpPath('enabled')]: 'always [madvise] never\n',
    [thpPath('defrag')]: 'always defer [defer+madvise] madvise never\n',
  };
  const read = (p: string) => files[p] ?? null;
  assert.equal(thpPath('enabled'), '/sys/kernel/mm/transparent_hugepage/enabled');
  assert.equal(readThpChoice('enabled', read), 'madvise');
  assert.equal(readThpChoice('defrag', read), 'defer+madvise');
  assert.equal(
    readThpChoice('enabled', () => null),
    null,
  );
  assert.equal(
    readThpChoice('enabled', () => 'no brackets'),
    null,
  );
});
