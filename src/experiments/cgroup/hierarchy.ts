// Where cgroup's groups go: the writable cgroup v2 hierarchy and this process's own group in it, found from
// /proc/self/mountinfo and /proc/self/cgroup (never a fixed path: v2 may be mounted at /sys/fs/cgroup, at
// /sys/fs/cgroup/unified beside v1, or not at all); the run's own group made under it, and removed with everything
// in it, whatever happens (the end of the run, an error, Ctrl-C, the process's exit).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A cgroup2 mount: where it is, which part of the hierarchy it shows, its superblock options (favordynmods, nsdelegate). */
export interface V2Mount {
  mountPoint: string;
  root: string;
  superOptions: string[];
}

/** Whether the groups can be made, and where; the reason and what would give one when not. */
export type CgroupAccess =
  | {
      state: 'ready';
      /** The v2 mount's directory. */
      hierarchy: string;
      /** The group the run's groups are made in: this process's own, or --cgroup-parent. */
      parentGroup: string;
      /** The run's own group, removed at its end (each probe makes and removes its own inside it). */
      runGroup: string;
      /** The favordynmods mount option: writes to cgroup.procs then skip the RCU grace period (kernel ≥ 6.0). */
      favordynmods: boolean;
    }
  | { state: 'unavailable'; reason: string; remedy: string };

/** What would give a writable group, said once. */
export const DELEGATION_REMEDY =
  'run as root, or in a group delegated to you (systemd-run --user --scope -p Delegate=yes forklab cgroup …), or give a writable cgroup v2 group with --cgroup-parent';

/** \040 and the other octal escapes of /proc/self/mountinfo's paths. */
const unescapeOctal = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** The cgroup2 mounts of a /proc/self/mountinfo text. */
export function parseV2Mounts(mountinfo: string): V2Mount[] {
  const out: V2Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const before = line.slice(0, dash).split(' ');
    const after = line.slice(dash + 3).split(' ');
    if (after[0] !== 'cgroup2' || before.length < 5) continue;
    out.push({ root: unescapeOctal(before[3]!), mountPoint: unescapeOctal(before[4]!), superOptions: (after[2] ?? '').split(',') });
  }
  return out;
}

/** The v2 path of a /proc/self/cgroup text ("0::/a/b" gives "/a/b"), or null where the process is in no v2 group. */
export function ownV2Path(procCgroup: string): string | null {
  for (const line of procCgroup.split('\n')) if (line.startsWith('0::')) return line.slice(3).replace(/ \(deleted\)$/, '') || '/';
  return null;
}

/** The directory of a v2 path under a mount showing the part of the hierarchy at `root`, or null where it does not show it. */
function dirUnder(m: V2Mount, path: string): string | null {
  const root = m.root === '/' ? '' : m.root;
  if (path !== root && !path.startsWith(`${root}/`) && root !== '') return null;
  const rest = path.slice(root.length);
  return rest === '' || rest === '/' ? m.mountPoint : join(m.mountPoint, rest);
}

/** This process's own v2 group as a directory, with its mount; or why there is none. Pure: texts in, answer out. */
export function ownGroup(mountinfo: string, procCgroup: string): { dir: string; mount: V2Mount } | { reason: string; remedy: string } {
  const mounts = parseV2Mounts(mountinfo);
  if (mounts.length === 0)
    return {
      reason: 'no cgroup v2 hierarchy is mounted (/proc/self/mountinfo has no cgroup2 mount)',
      remedy: 'mount one as root (mount -t cgroup2 none /sys/fs/cgroup/unified) or boot with systemd.unified_cgroup_hierarchy=1',
    };
  const path = ownV2Path(procCgroup);
  if (path === null)
    return { reason: 'this process is in no cgroup v2 group (/proc/self/cgroup has no "0::" line)', remedy: 'give a writable cgroup v2 group with --cgroup-parent' };
  for (const m of mounts) {
    const dir = dirUnder(m, path);
    if (dir !== null) return { dir, mount: m };
  }
  return {
    reason: `no cgroup2 mount shows this process's group ${path}`,
    remedy: 'mount the v2 hierarchy where this process can see its group, or give a writable cgroup v2 group with --cgroup-parent',
  };
}

/** The mount a directory lies in (the longest mount point that holds it). */
function mountOf(dir: string, mounts: readonly V2Mount[]): V2Mount | null {
  const holding = mounts.filter((m) => dir === m.mountPoint || dir.startsWith(`${m.mountPoint.replace(/\/$/, '')}/`));
  return holding.sort((a, b) => b.mountPoint.length - a.mountPoint.length)[0] ?? null;
}

const readText = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** Whether a directory is a cgroup v2 group (it has the files every v2 group has). */
export const isV2Group = (dir: string): boolean => existsSync(join(dir, 'cgroup.procs')) && existsSync(join(dir, 'cgroup.type'));

/** The group under which the run makes its groups: --cgroup-parent, else this process's own; or why there is none. */
export function parentGroup(given: string | null): { dir: string; mount: V2Mount | null } | { reason: string; remedy: string } {
  const mountinfo = readText('/proc/self/mountinfo');
  if (given !== null) return { dir: given, mount: mountOf(given, parseV2Mounts(mountinfo)) };
  return ownGroup(mountinfo, readText('/proc/self/cgroup'));
}

let made = 0;
const live = new Set<string>();
let exitHook = false;

/** Removes a group and every group under it, deepest first (a group still holding a process stays: EBUSY). True when it is gone. */
export function removeTree(dir: string): boolean {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return !existsSync(dir);
  }
  for (const e of entries) {
    const sub = join(dir, e);
    try {
      if (statSync(sub).isDirectory()) removeTree(sub);
    } catch {
      /* gone meanwhile */
    }
  }
  // A child that has just been killed may still count as a member for a moment.
  for (let tries = 0; tries < 100; tries++) {
    try {
      rmdirSync(dir);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY') return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  return false;
}

/** Makes the run's group, forklab-run-PID-N under the parent; registered for removal at this process's exit too. */
export function makeRunGroup(given: string | null): CgroupAccess {
  const parent = parentGroup(given);
  if ('reason' in parent) return { state: 'unavailable', ...parent };
  sweepStale(parent.dir);
  const runGroup = join(parent.dir, `forklab-run-${process.pid}-${++made}`);
  try {
    mkdirSync(runGroup);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return { state: 'unavailable', reason: `cannot make a group in ${parent.dir} (mkdir: ${code})`, remedy: DELEGATION_REMEDY };
  }
  live.add(runGroup);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const g of live) removeTree(g);
    });
  }
  const mount = parent.mount;
  return {
    state: 'ready',
    hierarchy: mount?.mountPoint ?? parent.dir,
    parentGroup: parent.dir,
    runGroup,
    favordynmods: mount?.superOptions.includes('favordynmods') ?? false,
  };
}

/** Removes the run's group with everything in it; true when nothing is left. */
export function removeRunGroup(access: CgroupAccess): boolean {
  if (access.state !== 'ready') return true;
  const gone = removeTree(access.runGroup);
  if (gone) live.delete(access.runGroup);
  return gone;
}

/** A forklab group's name carries the pid of the process that made it: forklab-run-PID-N, forklab-probe-PID, forklab-loop-PID. */
const OWNED = /^forklab-[a-z]+-(\d+)(?:-\d+)?$/;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes forklab groups under a parent whose maker is gone (a probe or loop killed with SIGKILL cannot remove its
 * own); groups of live processes, and anything not named by forklab, are left alone. Returns the names removed.
 */
export function sweepStale(parent: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const m = OWNED.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    if (removeTree(join(parent, name))) out.push(name);
  }
  return out;
}

/** The forklab groups under a directory, at any depth (what a test checks is gone). */
export function forklabGroupsUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => OWNED.test(n)).flatMap((n) => [join(dir, n), ...forklabGroupsUnder(join(dir, n))]);
}
