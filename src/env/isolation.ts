// What isolates this process: seccomp, a container, a user namespace, and the CPU cgroup it runs in.
// A container changes what creating a process costs (a seccomp filter runs on every system call, a CPU quota
// throttles), and inside one /proc/pressure describes the host: the cgroup's own cpu.pressure and cpu.stat say
// what this workload saw. Pure parsers over file text, and readers over a ReadText (so tests use fixture files).

import type { ReadText } from './memory.js';
import { parseCgroupMounts, parseKeyValueLines, parsePressure, parseStatusField, type CgroupMount } from './parse.js';

/** The isolation fields of the machine record (absent in records made before forklab read them). */
export interface IsolationFields {
  /** Seccomp line of /proc/self/status: 0 none, 1 strict, 2 filter. */
  seccompMode: number | null;
  /** Seccomp_filters of /proc/self/status (kernel 5.9+): how many filters each system call passes through. */
  seccompFilters: number | null;
  /** NoNewPrivs of /proc/self/status. */
  noNewPrivs: boolean | null;
  /** True when a sign of a container was found (containerSigns names them); false when none was. */
  inContainer: boolean;
  containerSigns: string[];
  /** /proc/self/uid_map on one line ("0 0 4294967295" is the initial namespace); null when unreadable. */
  uidMap: string | null;
  /** True when the uid map is not the identity map of the initial user namespace. */
  userNamespaced: boolean | null;
  /** The CPU quota of the process's own cgroup, in CPUs (cpu.max or cfs_quota_us ÷ cfs_period_us); null when unlimited. */
  cgroupCpuLimit: number | null;
}

/** The cgroup's CPU counters at one moment (read before and after a run by the witness). */
export interface CgroupCpuSample {
  /** "some" total of the cgroup's own cpu.pressure (cgroup v2), µs; null when the file is missing. */
  pressureSomeTotalUs: number | null;
  /** cpu.stat: enforcement periods, periods in which the quota ran out, and time throttled (µs). */
  nrPeriods: number | null;
  nrThrottled: number | null;
  throttledUs: number | null;
}

/** Seccomp mode, filter count and NoNewPrivs from the text of /proc/self/status. */
export function parseSeccompStatus(status: string): Pick<IsolationFields, 'seccompMode' | 'seccompFilters' | 'noNewPrivs'> {
  const int = (key: string): number | null => {
    const v = parseStatusField(status, key);
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  };
  const nnp = int('NoNewPrivs');
  return { seccompMode: int('Seccomp'), seccompFilters: int('Seccomp_filters'), noNewPrivs: nnp === null ? null : nnp === 1 };
}

/** /proc/self/uid_map → the map on one line and whether it differs from the initial namespace's identity map. */
export function parseUidMap(text: string): { uidMap: string; userNamespaced: boolean } | null {
  const rows = text
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((w) => w.length === 3 && w.every((x) => /^\d+$/.test(x)));
  if (rows.length === 0) return null;
  const identity = rows.length === 1 && rows[0]![0] === '0' && rows[0]![1] === '0' && rows[0]![2] === '4294967295';
  return { uidMap: rows.map((r) => r.join(' ')).join(', '), userNamespaced: !identity };
}

const CONTAINER_CGROUP = /(docker|kubepods|libpod|crio|cri-containerd|containerd|lxc|garden|machine\.slice)/;

/** Signs of a container: marker files, the environment, cgroup paths named by a container engine. */
export function containerSigns(read: ReadText, env: Record<string, string | undefined>): string[] {
  const signs: string[] = [];
  if (read('/.dockerenv') !== null) signs.push('/.dockerenv exists (Docker)');
  const containerenv = read('/run/.containerenv');
  if (containerenv !== null) {
    const engine = /^engine="([^"]+)"/m.exec(containerenv)?.[1];
    signs.push(`/run/.containerenv exists (${engine ?? 'podman'})`);
  }
  if (env.container) signs.push(`container=${env.container} in the environment`);
  if (env.KUBERNETES_SERVICE_HOST) signs.push('KUBERNETES_SERVICE_HOST is set (a Kubernetes pod)');
  const cg = read('/proc/self/cgroup');
  if (cg !== null) {
    const hit = cg.split('\n').find((l) => CONTAINER_CGROUP.test(l.slice(l.lastIndexOf(':') + 1)));
    if (hit) signs.push(`cgroup path ${hit.slice(hit.lastIndexOf(':') + 1)}`);
  }
  return signs;
}

/** The process's cgroup directory for the cpu controller (v1 if bound there) and for v2, from /proc/self/cgroup. */
export interface CpuCgroupDirs {
  /** v1 cpu controller directory (cpu.stat, cpu.cfs_quota_us), or null when the controller is on v2. */
  v1: string | null;
  /** cgroup v2 directory (cpu.pressure, and cpu.stat / cpu.max when the cpu controller is there). */
  v2: string | null;
}

function below(mount: CgroupMount, path: string): string | null {
  const root = mount.root.replace(/\/+$/, '');
  let rel: string;
  if (root === '') rel = path;
  else if (path === root || path.startsWith(`${root}/`)) rel = path.slice(root.length);
  else return null;
  if (rel.split('/').includes('..')) return null;
  const trimmed = rel.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? mount.mountPoint : `${mount.mountPoint.replace(/\/+$/, '')}/${trimmed}`;
}

export function locateCpuCgroup(read: ReadText): CpuCgroupDirs {
  const cg = read('/proc/self/cgroup');
  if (cg === null) return { v1: null, v2: null };
  const mounts = parseCgroupMounts(read('/proc/self/mountinfo') ?? '');
  let v1Path: string | null = null;
  let v2Path: string | null = null;
  for (const line of cg.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === '') v2Path = m[2]!;
    else if (m[1]!.split(',').includes('cpu')) v1Path = m[2]!;
  }
  const v1Mount = mounts.find((m) => m.version === 1 && m.controllers.includes('cpu'));
  const v2Mount = mounts.find((m) => m.version === 2);
  return {
    v1: v1Path !== null && v1Mount ? below(v1Mount, v1Path) : null,
    v2: v2Path !== null && v2Mount ? below(v2Mount, v2Path) : null,
  };
}

/** CPUs the cgroup may use: cpu.max "200000 100000" → 2 (v2), or cfs_quota_us ÷ cfs_period_us (v1); null when unlimited. */
function cgroupCpuLimitOf(read: ReadText, dirs: CpuCgroupDirs): number | null {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  if (dirs.v1 !== null) {
    const q = Number(read(`${dirs.v1}/cpu.cfs_quota_us`)?.trim());
    const p = Number(read(`${dirs.v1}/cpu.cfs_period_us`)?.trim());
    if (Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0) return round(q / p);
    if (Number.isFinite(q)) return null;
  }
  if (dirs.v2 !== null) {
    const words = read(`${dirs.v2}/cpu.max`)?.trim().split(/\s+/);
    if (words && words[0] !== 'max' && words.length === 2) {
      const q = Number(words[0]);
      const p = Number(words[1]);
      if (q > 0 && p > 0) return round(q / p);
    }
  }
  return null;
}

/** The cgroup's own pressure and throttling counters; null when neither file can be read. */
export function sampleCgroupCpu(read: ReadText, dirs: CpuCgroupDirs = locateCpuCgroup(read)): CgroupCpuSample | null {
  const pressureText = dirs.v2 === null ? null : read(`${dirs.v2}/cpu.pressure`);
  const pressure = pressureText === null ? null : parsePressure(pressureText);
  // The v1 cpu controller writes throttled_time in ns; v2 writes throttled_usec (only where the controller is enabled).
  const v1Stat = dirs.v1 === null ? null : read(`${dirs.v1}/cpu.stat`);
  const v2Stat = dirs.v2 === null ? null : read(`${dirs.v2}/cpu.stat`);
  let nrPeriods: number | null = null;
  let nrThrottled: number | null = null;
  let throttledUs: number | null = null;
  if (v1Stat !== null) {
    const kv = parseKeyValueLines(v1Stat);
    nrPeriods = kv['nr_periods'] ?? null;
    nrThrottled = kv['nr_throttled'] ?? null;
    throttledUs = kv['throttled_time'] === undefined ? null : Math.round(kv['throttled_time'] / 1000);
  } else if (v2Stat !== null) {
    const kv = parseKeyValueLines(v2Stat);
    nrPeriods = kv['nr_periods'] ?? null;
    nrThrottled = kv['nr_throttled'] ?? null;
    throttledUs = kv['throttled_usec'] ?? null;
  }
  if (pressure === null && nrPeriods === null && throttledUs === null) return null;
  return { pressureSomeTotalUs: pressure?.someTotalUs ?? null, nrPeriods, nrThrottled, throttledUs };
}

/** The isolation fields of this process. */
export function readIsolation(read: ReadText, env: Record<string, string | undefined>): IsolationFields {
  const status = read('/proc/self/status');
  const seccomp = status === null ? { seccompMode: null, seccompFilters: null, noNewPrivs: null } : parseSeccompStatus(status);
  const uidText = read('/proc/self/uid_map');
  const uid = uidText === null ? null : parseUidMap(uidText);
  const signs = containerSigns(read, env);
  return {
    ...seccomp,
    inContainer: signs.length > 0,
    containerSigns: signs,
    uidMap: uid?.uidMap ?? null,
    userNamespaced: uid?.userNamespaced ?? null,
    cgroupCpuLimit: cgroupCpuLimitOf(read, locateCpuCgroup(read)),
  };
}
