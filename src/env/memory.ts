// How much memory this process may still allocate: MemAvailable and the cgroup's headroom.
// Used before any probe starts, to refuse an --rss that would not fit.

import { readFileSync } from 'node:fs';
import { parseCgroupLimit, parseCgroupMounts, parseCgroupPath, parseIntFile, parseKeyValueLines, parseMeminfo, type CgroupMount } from './parse.js';

export interface MemoryBudget {
  /** MemAvailable of /proc/meminfo, in bytes. */
  memAvailableBytes: number | null;
  /** The memory limit of the cgroup level with the least headroom (own cgroup or an ancestor). */
  cgroupLimitBytes: number | null;
  /** Charged usage (memory.current / memory.usage_in_bytes) of that same level (own cgroup if none has a limit). */
  cgroupUsageBytes: number | null;
  /** Of that usage, inactive file pages (memory.stat), which the kernel reclaims before it OOM-kills. */
  cgroupReclaimableBytes: number | null;
  /**
   * How much more this process may allocate: the min of MemAvailable and, for every cgroup
   * level with a limit, (limit − usage + reclaimable); null if nothing is known.
   */
  fitBytes: number | null;
}

/** Reading a file: its text, or null if it cannot be read (missing, permission, not a file). */
export type ReadText = (path: string) => string | null;

export function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Where the memory controller of this process lives in the filesystem. */
export interface MemoryCgroup {
  version: 1 | 2;
  /** The process's own cgroup directory first, then each ancestor up to the mount point. */
  dirs: string[];
  /** Set when the cgroup path could not be mapped onto the mount and the mount root was used. */
  note: string | null;
}

/** One level of the memory cgroup hierarchy. */
export interface CgroupLevel {
  dir: string;
  limitBytes: number | null;
  usageBytes: number | null;
  reclaimableBytes: number | null;
}

function joinCgroup(mountPoint: string, rel: string): string {
  const trimmed = rel.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? mountPoint : `${mountPoint.replace(/\/+$/, '')}/${trimmed}`;
}

/** Locate the memory cgroup of this process (v1 memory controller if bound there, else v2). */
export function locateMemoryCgroup(read: ReadText = readTextOrNull): MemoryCgroup | null {
  const cgText = read('/proc/self/cgroup');
  if (cgText === null) return null;
  const paths = parseCgroupPath(cgText);
  const mounts = parseCgroupMounts(read('/proc/self/mountinfo') ?? '');

  let version: 1 | 2;
  let path: string;
  let mount: CgroupMount | undefined;
  if (paths.memoryV1 !== null) {
    version = 1;
    path = paths.memoryV1;
    mount = mounts.find((m) => m.version === 1 && m.controllers.includes('memory'));
    mount ??= { version: 1, mountPoint: '/sys/fs/cgroup/memory', root: '/', controllers: ['memory'] };
  } else if (paths.unified !== null) {
    version = 2;
    path = paths.unified;
    mount = mounts.find((m) => m.version === 2);
    mount ??= { version: 2, mountPoint: '/sys/fs/cgroup', root: '/', controllers: [] };
  } else {
    return null;
  }

  // The path in /proc/self/cgroup is relative to the cgroup namespace; the mount may show
  // only a subtree of it (mountinfo "root" field). Strip that prefix.
  let rel: string | null;
  const root = mount.root.replace(/\/+$/, '');
  if (root === '') rel = path;
  else if (path === root || path.startsWith(`${root}/`)) rel = path.slice(root.length);
  else rel = null;
  if (rel?.split('/').includes('..')) rel = null; // cgroup outside our namespace

  if (rel === null) {
    return {
      version,
      dirs: [mount.mountPoint],
      note: `cgroup path ${path} is not below the mount root ${mount.root}; used ${mount.mountPoint}`,
    };
  }
  const parts = rel.split('/').filter((p) => p !== '');
  const dirs: string[] = [];
  for (let i = parts.length; i >= 0; i--) dirs.push(joinCgroup(mount.mountPoint, parts.slice(0, i).join('/')));
  return { version, dirs, note: null };
}

/** Limit, usage and reclaimable file pages of each level, own cgroup first. */
export function readCgroupLevels(cg: MemoryCgroup, read: ReadText = readTextOrNull): CgroupLevel[] {
  return cg.dirs.map((dir) => {
    const limitText = read(`${dir}/${cg.version === 2 ? 'memory.max' : 'memory.limit_in_bytes'}`);
    const usageText = read(`${dir}/${cg.version === 2 ? 'memory.current' : 'memory.usage_in_bytes'}`);
    const statText = read(`${dir}/memory.stat`);
    let reclaimable: number | null = null;
    if (statText !== null) {
      const st = parseKeyValueLines(statText);
      reclaimable = (cg.version === 1 ? (st['total_inactive_file'] ?? st['inactive_file']) : st['inactive_file']) ?? null;
    }
    return {
      dir,
      limitBytes: limitText === null ? null : parseCgroupLimit(limitText),
      usageBytes: usageText === null ? null : parseIntFile(usageText),
      reclaimableBytes: reclaimable,
    };
  });
}

/** The smallest limit over the process's cgroup and its ancestors; null when none is set. */
export function effectiveCgroupLimit(levels: CgroupLevel[]): number | null {
  let min: number | null = null;
  for (const l of levels) if (l.limitBytes !== null && (min === null || l.limitBytes < min)) min = l.limitBytes;
  return min;
}

/** Pure: combine MemAvailable (bytes) and the cgroup levels into a budget. */
export function computeMemoryBudget(memAvailableBytes: number | null, levels: CgroupLevel[]): MemoryBudget {
  let binding: CgroupLevel | null = null;
  let bindingHeadroom: number | null = null;
  for (const l of levels) {
    if (l.limitBytes === null) continue;
    // A limit whose usage cannot be read still caps what we may allocate: count usage as 0.
    const headroom = Math.max(0, l.limitBytes - (l.usageBytes ?? 0) + (l.usageBytes !== null ? (l.reclaimableBytes ?? 0) : 0));
    const capped = Math.min(headroom, l.limitBytes);
    if (bindingHeadroom === null || capped < bindingHeadroom) {
      binding = l;
      bindingHeadroom = capped;
    }
  }
  let fit: number | null = memAvailableBytes;
  if (bindingHeadroom !== null) fit = fit === null ? bindingHeadroom : Math.min(fit, bindingHeadroom);
  return {
    memAvailableBytes,
    cgroupLimitBytes: binding?.limitBytes ?? null,
    // Without any limit, report the usage of the process's own cgroup.
    cgroupUsageBytes: (binding ?? levels[0])?.usageBytes ?? null,
    cgroupReclaimableBytes: (binding ?? levels[0])?.reclaimableBytes ?? null,
    fitBytes: fit,
  };
}

export function readMemoryBudget(read: ReadText = readTextOrNull): MemoryBudget {
  const meminfoText = read('/proc/meminfo');
  const kb = meminfoText === null ? undefined : parseMeminfo(meminfoText)['MemAvailable'];
  const memAvailableBytes = kb === undefined ? null : kb * 1024;
  const cg = locateMemoryCgroup(read);
  const levels = cg === null ? [] : readCgroupLevels(cg, read);
  return computeMemoryBudget(memAvailableBytes, levels);
}

/** Mappings a probe process has besides an experiment's own (its code, libraries, stack, heap). */
export const OWN_MAPPINGS = 200;

/** vm.max_map_count: how many mappings one process may have; null when unreadable. */
export function readMaxMapCount(): number | null {
  try {
    const v = Number(readFileSync('/proc/sys/vm/max_map_count', 'utf8').trim());
    return Number.isSafeInteger(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}
