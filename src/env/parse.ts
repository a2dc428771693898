// Pure parsers for the text of /proc, /sys and a few commands.
// No I/O here: every function takes the file's text and returns a value,
// or null when the text does not contain what was asked for. Nothing is guessed.

/** Pressure-stall information for the CPU ("some" line of /proc/pressure/cpu). */
export interface CpuPressure {
  /** % of wall time in which at least one task was runnable but waiting, 10 s window. */
  someAvg10: number;
  someAvg60: number;
  someAvg300: number;
  /** Total stall time in microseconds since boot. */
  someTotalUs: number;
}

/** The cgroup paths of a process, from /proc/<pid>/cgroup. */
export interface CgroupPaths {
  /** Path in the cgroup v2 (unified) hierarchy: the "0::<path>" line. */
  unified: string | null;
  /** Path in the cgroup v1 hierarchy the memory controller is bound to. */
  memoryV1: string | null;
}

/** One cgroup filesystem mount, from /proc/self/mountinfo. */
export interface CgroupMount {
  version: 1 | 2;
  /** Where it is mounted, e.g. "/sys/fs/cgroup/memory". */
  mountPoint: string;
  /** Which cgroup of the hierarchy is the root of this mount, e.g. "/" or "/docker/abc". */
  root: string;
  /** v1 controllers of the hierarchy (from the super options); empty for v2. */
  controllers: string[];
}

/** Values at or above this in a v1 limit file mean "no limit" (the kernel writes PAGE_COUNTER_MAX * page size). */
const CGROUP_UNLIMITED_THRESHOLD = 2 ** 60;

/**
 * /proc/meminfo → { MemTotal: 24683656, HugePages_Total: 0, ... }.
 * Values are as written: kB for the lines with a "kB" unit, plain counts for the others.
 */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^([^:\s]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (m && m[1] !== undefined && m[2] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** "always [madvise] never" → "madvise"; no bracketed word → null. */
export function parseThpChoice(text: string): string | null {
  const m = /\[([^\]\s]+)\]/.exec(text);
  return m?.[1] ?? null;
}

/**
 * /proc/pressure/cpu:
 *   some avg10=1.78 avg60=0.59 avg300=0.48 total=3678855
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * → the "some" line; null when absent or malformed.
 */
export function parsePressure(text: string): CpuPressure | null {
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] !== 'some') continue;
    const kv = new Map<string, number>();
    for (const w of words.slice(1)) {
      const eq = w.indexOf('=');
      if (eq <= 0) continue;
      const n = Number(w.slice(eq + 1));
      if (w.slice(eq + 1) !== '' && Number.isFinite(n)) kv.set(w.slice(0, eq), n);
    }
    const a10 = kv.get('avg10');
    const a60 = kv.get('avg60');
    const a300 = kv.get('avg300');
    const total = kv.get('total');
    if (a10 === undefined || a60 === undefined || a300 === undefined || total === undefined) return null;
    return { someAvg10: a10, someAvg60: a60, someAvg300: a300, someTotalUs: total };
  }
  return null;
}

/**
 * A kernel cpu list ("0-1,4", "0-3,8-11", "7", also the "0-15:2/4" stride form) → sorted,
 * de-duplicated CPU numbers. Empty or malformed → null.
 */
export function parseCpusAllowedList(text: string): number[] | null {
  const s = text.trim();
  if (s === '') return null;
  const cpus = new Set<number>();
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+)(?::(\d+)\/(\d+))?)?$/.exec(part.trim());
    if (!m || m[1] === undefined) return null;
    const lo = Number(m[1]);
    const hi = m[2] !== undefined ? Number(m[2]) : lo;
    if (hi < lo) return null;
    const used = m[3] !== undefined ? Number(m[3]) : 1;
    const group = m[4] !== undefined ? Number(m[4]) : 1;
    if (group <= 0 || used <= 0 || used > group) return null;
    for (let c = lo; c <= hi; c++) {
      if ((c - lo) % group < used) cpus.add(c);
    }
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The value of one "Key:\tvalue" line of /proc/<pid>/status; null when the key is absent. */
export function parseStatusField(text: string, key: string): string | null {
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon) === key) return line.slice(colon + 1).trim();
  }
  return null;
}

/**
 * /proc/self/cgroup → the v2 path ("0::/user.slice/x") and the v1 path of the memory
 * controller ("4:memory:/docker/abc", also when co-mounted: "4:cpu,memory:/x").
 */
export function parseCgroupPath(text: string): CgroupPaths {
  const out: CgroupPaths = { unified: null, memoryV1: null };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const c1 = line.indexOf(':');
    const c2 = c1 < 0 ? -1 : line.indexOf(':', c1 + 1);
    if (c1 < 0 || c2 < 0) continue;
    const id = line.slice(0, c1);
    const controllers = line.slice(c1 + 1, c2);
    const path = line.slice(c2 + 1); // a path may itself contain ':'
    if (id === '0' && controllers === '') out.unified = path;
    else if (controllers.split(',').includes('memory')) out.memoryV1 = path;
  }
  return out;
}

function unescapeMountField(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** The cgroup and cgroup2 mounts listed in /proc/self/mountinfo. */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const pre = line.slice(0, sep).split(' ');
    const post = line.slice(sep + 3).split(' ');
    const root = pre[3];
    const mountPoint = pre[4];
    const fstype = post[0];
    const superOpts = post[2] ?? '';
    if (root === undefined || mountPoint === undefined) continue;
    if (fstype === 'cgroup2') {
      out.push({ version: 2, mountPoint: unescapeMountField(mountPoint), root: unescapeMountField(root), controllers: [] });
    } else if (fstype === 'cgroup') {
      const controllers = superOpts
        .split(',')
        .filter(
          (o) =>
            o !== '' && !o.includes('=') && !['rw', 'ro', 'relatime', 'noatime', 'nosuid', 'nodev', 'noexec', 'xattr', 'clone_children', 'noprefix', 'cpuset_v2_mode'].includes(o),
        );
      out.push({ version: 1, mountPoint: unescapeMountField(mountPoint), root: unescapeMountField(root), controllers });
    }
  }
  return out;
}

/**
 * A cgroup memory limit file: v2 memory.max ("max" → null) or v1 memory.limit_in_bytes
 * (values ≥ 2^60 are the kernel's "unlimited" → null). Anything unparsable → null.
 */
export function parseCgroupLimit(text: string): number | null {
  const s = text.trim();
  if (s === 'max' || !/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= CGROUP_UNLIMITED_THRESHOLD ? null : n;
}

/** A file that holds one non-negative integer ("65530\n") → 65530; anything else → null. */
export function parseIntFile(text: string): number | null {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** A "key value" file such as a cgroup's memory.stat → { cache: 123, inactive_file: 456, ... }. */
export function parseKeyValueLines(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\S+)\s+(\d+)\s*$/.exec(line);
    if (m && m[1] !== undefined && m[2] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * glibc version from `getconf GNU_LIBC_VERSION` ("glibc 2.36") or from the first line of
 * `ldd --version` ("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36", "ldd (GNU libc) 2.39") → "2.36".
 * musl's ldd and anything else → null.
 */
export function parseGlibcVersion(text: string): string | null {
  const first =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  let m = /^glibc\s+(\d+\.\d+(?:\.\d+)?)$/i.exec(first);
  if (m?.[1]) return m[1];
  if (/^ldd\b/.test(first) && /(GLIBC|GNU libc|EGLIBC)/i.test(first)) {
    m = /(\d+\.\d+(?:\.\d+)?)\s*$/.exec(first);
    if (m?.[1]) return m[1];
  }
  return null;
}

/** /proc/cpuinfo → the first "model name" value (x86); null when absent (e.g. many arm64 kernels). */
export function parseCpuinfoModel(text: string): string | null {
  for (const line of text.split('\n')) {
    const m = /^model name\s*:\s*(.*\S)\s*$/.exec(line);
    if (m?.[1]) return m[1];
  }
  return null;
}

/** Whether the first CPU's "flags" (x86) or "Features" (arm) line of /proc/cpuinfo lists `flag`. */
export function cpuinfoHasFlag(text: string, flag: string): boolean {
  for (const line of text.split('\n')) {
    const m = /^(flags|Features)\s*:(.*)$/.exec(line);
    if (m && m[2] !== undefined) return m[2].trim().split(/\s+/).includes(flag);
  }
  return false;
}

/** The first non-empty line of a command's output, trimmed; null when there is none. */
export function firstLine(text: string): string | null {
  const l = text.split('\n').find((x) => x.trim() !== '');
  return l === undefined ? null : l.trim();
}
