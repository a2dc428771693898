// What `forklab doctor` reads: the text of a fixed set of /proc and /sys files (null when unreadable),
// and two samples of /proc/stat and /proc/pressure/cpu a short interval apart ("now"). The checks in
// doctor.ts are pure functions of these facts, so tests run them on recorded text.
import { readTextOrNull, type ReadText } from './memory.js';
import { parseCpusAllowedList } from './parse.js';
import { thpPath } from './thp.js';
import type { ProbeRecord } from './machine.js';

export interface DoctorFacts {
  /** path → file text, null when it could not be read. */
  files: Record<string, string | null>;
  /** Two readings of /proc/stat and /proc/pressure/cpu, intervalMs apart. */
  now: { intervalMs: number; statBefore: string | null; statAfter: string | null; pressureBefore: string | null; pressureAfter: string | null };
  /** Effective uid (0: root, --apply may write). */
  uid: number;
  /** The process's architecture (process.arch); absent in facts recorded before it. */
  arch?: string;
  /** The probe set forklab would run (record null: none), with the C library inside a prebuilt one; absent: not checked. */
  probe?: { record: ProbeRecord | null; libc: string | null };
}

const CPU = '/sys/devices/system/cpu';

/** Every path the checks read, for the CPUs listed in `online` (e.g. "0-1"). */
function doctorPaths(online: string | null): string[] {
  const cpus = (online && parseCpusAllowedList(online.trim())) || [0];
  const perCpu = cpus.flatMap((c) => [`${CPU}/cpu${c}/cpufreq/scaling_governor`, `${CPU}/cpu${c}/topology/thread_siblings_list`]);
  return [
    `${CPU}/online`,
    ...perCpu,
    `${CPU}/cpufreq/boost`,
    `${CPU}/intel_pstate/no_turbo`,
    `${CPU}/smt/active`,
    `${CPU}/smt/control`,
    thpPath('enabled'),
    thpPath('defrag'),
    '/proc/sys/vm/overcommit_memory',
    '/proc/sys/vm/max_map_count',
    '/proc/sys/kernel/randomize_va_space',
    '/proc/sys/kernel/yama/ptrace_scope',
    '/proc/sys/kernel/perf_event_paranoid',
    '/proc/self/status',
    '/proc/self/cgroup',
    '/proc/self/mountinfo',
    '/proc/meminfo',
    '/proc/cpuinfo',
    '/proc/loadavg',
    '/sys/class/dmi/id/sys_vendor',
    '/sys/class/dmi/id/product_name',
  ];
}

/** The cgroup files of the memory and CPU controllers, for every level from the process's cgroup up. */
function cgroupPaths(files: Record<string, string | null>): string[] {
  const out: string[] = [];
  for (const level of cgroupDirs(files, 'memory')) out.push(`${level.dir}/${level.v2 ? 'memory.max' : 'memory.limit_in_bytes'}`);
  for (const level of cgroupDirs(files, 'cpu')) {
    if (level.v2) out.push(`${level.dir}/cpu.max`);
    else out.push(`${level.dir}/cpu.cfs_quota_us`, `${level.dir}/cpu.cfs_period_us`);
  }
  return out;
}

/** Directories of a controller's cgroup, own level first, each with its cgroup version. */
export function cgroupDirs(files: Record<string, string | null>, controller: 'memory' | 'cpu'): { dir: string; v2: boolean }[] {
  const cg = files['/proc/self/cgroup'];
  const mountinfo = files['/proc/self/mountinfo'] ?? '';
  if (!cg) return [];
  let path: string | null = null;
  let v2 = false;
  for (const line of cg.split('\n')) {
    const a = line.indexOf(':');
    const b = a < 0 ? -1 : line.indexOf(':', a + 1);
    if (b < 0) continue;
    if (
      line
        .slice(a + 1, b)
        .split(',')
        .includes(controller)
    )
      path = line.slice(b + 1);
  }
  if (path === null) {
    const unified = cg.split('\n').find((l) => l.startsWith('0::'));
    if (!unified) return [];
    path = unified.slice(3);
    v2 = true;
  }
  // Mount point: the v1 mount listing the controller among its super options, or the cgroup2 mount.
  let mount: string | null = null;
  let root = '/';
  for (const line of mountinfo.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-');
    if (dash < 0) continue;
    const fstype = f[dash + 1];
    const opts = (f[dash + 3] ?? '').split(',');
    if ((v2 && fstype === 'cgroup2') || (!v2 && fstype === 'cgroup' && opts.includes(controller))) {
      mount = f[4]!;
      root = f[3]!;
      break;
    }
  }
  mount ??= v2 ? '/sys/fs/cgroup' : `/sys/fs/cgroup/${controller}`;
  let rel = root !== '/' && path.startsWith(root) ? path.slice(root.length) : path;
  if (rel.split('/').includes('..')) rel = '/';
  const parts = rel.split('/').filter(Boolean);
  const dirs: { dir: string; v2: boolean }[] = [];
  for (let i = parts.length; i >= 0; i--) dirs.push({ dir: [mount.replace(/\/+$/, ''), ...parts.slice(0, i)].join('/'), v2 });
  return dirs;
}

/** Reads the facts of this machine; waits intervalMs between the two "now" samples. */
export async function readDoctorFacts(opts: { intervalMs?: number; read?: ReadText; probe?: DoctorFacts['probe'] } = {}): Promise<DoctorFacts> {
  const read = opts.read ?? readTextOrNull;
  const intervalMs = opts.intervalMs ?? 1000;
  const files: Record<string, string | null> = {};
  for (const p of doctorPaths(read(`${CPU}/online`))) files[p] = read(p);
  for (const p of cgroupPaths(files)) files[p] = read(p);
  const statBefore = read('/proc/stat');
  const pressureBefore = read('/proc/pressure/cpu');
  await new Promise((r) => setTimeout(r, intervalMs));
  const statAfter = read('/proc/stat');
  const pressureAfter = read('/proc/pressure/cpu');
  const facts: DoctorFacts = { files, now: { intervalMs, statBefore, statAfter, pressureBefore, pressureAfter }, uid: process.getuid?.() ?? -1, arch: process.arch };
  if (opts.probe !== undefined) facts.probe = opts.probe;
  return facts;
}
