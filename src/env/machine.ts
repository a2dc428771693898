// The machine record stored with every run, and the load samples taken around it.
// Every field is read from the system; what cannot be read is null, never guessed.

import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import { effectiveCgroupLimit, locateMemoryCgroup, readCgroupLevels, readTextOrNull, type ReadText } from './memory.js';
import {
  cpuinfoHasFlag,
  firstLine,
  parseCpuinfoModel,
  parseCpusAllowedList,
  parseGlibcVersion,
  parseIntFile,
  parseMeminfo,
  parsePressure,
  parseStatusField,
  type CpuPressure,
} from './parse.js';

import { detectEmulation } from './emulation.js';
import { readThpChoice, thpPath } from './thp.js';
import { readIsolation, sampleCgroupCpu, type CgroupCpuSample, type IsolationFields } from './isolation.js';
import { parseProcStatCpu, type CpuTicks, type ProbeUsageTotals } from './witness.js';

export type { CpuPressure } from './parse.js';

/**
 * Where a fleet run ran, as its engine tells it (a pod cannot see its node's labels): added by `forklab fleet
 * collect`, never by the run itself.
 */
export interface Placement {
  engine: 'kubernetes' | 'slurm' | 'logs';
  /** The node's name (Kubernetes node, Slurm node, ssh host). */
  node: string | null;
  pool: string | null;
  /** The node's labels, and what the engine knows of it besides (kernel, OS image, container runtime). */
  labels: Record<string, string>;
  /** The pod or the log file the document came from. */
  source: string;
}

/**
 * Which probe set measured: compiled on this machine at install time (built-here), shipped in the package
 * (prebuilt, scripts/prebuild.mjs: static with that build's glibc, the dynamic target on this machine's ld.so), or
 * a directory FORKLAB_NATIVE_DIR named that holds no BUILD.json (native-dir).
 */
export interface ProbeRecord {
  origin: 'built-here' | 'prebuilt' | 'native-dir';
  /** BUILD.json's build id of a prebuilt set (e.g. "linux-x64-52f44344dcea"); null otherwise. */
  buildId: string | null;
  dir: string;
}

/** The isolation fields (seccomp, container, user namespace, CPU quota), probe and emulation are absent in records made before them. */
export interface MachineRecord extends Partial<IsolationFields> {
  /** The probe set the run used (absent in records made before it was recorded, and outside runs). */
  probe?: ProbeRecord;
  /** Non-null when this process's CPU is emulated (qemu-user and alike): then no timing of the run means anything. */
  emulation?: string | null;
  /** Set by `forklab fleet collect`. */
  placement?: Placement;
  hostname: string;
  /** uname -r (os.release()). */
  kernel: string;
  /** uname -v (os.version()). */
  kernelVersion: string;
  /** Node's process architecture, e.g. "x64", "arm64". */
  arch: string;
  cpuModel: string | null;
  /** Logical CPUs available to this process (os.availableParallelism()). */
  cpuCount: number;
  /** CPUs in this process's affinity mask (Cpus_allowed_list of /proc/self/status). */
  cpusAllowed: number[] | null;
  memTotalKb: number | null;
  memAvailableKb: number | null;
  swapTotalKb: number | null;
  /** The bracketed choice of /sys/kernel/mm/transparent_hugepage/enabled: "always" | "madvise" | "never". */
  thpEnabled: string | null;
  /** The bracketed choice of /sys/kernel/mm/transparent_hugepage/defrag. */
  thpDefrag: string | null;
  hugePageSizeKb: number | null;
  pageSizeBytes: number;
  /** e.g. "2.36"; null on non-glibc systems. */
  glibcVersion: string | null;
  /** First line of `cc --version` (or `gcc --version`). */
  compilerVersion: string | null;
  nodeVersion: string;
  /** Smallest memory limit of the process's cgroup and its ancestors; null when unlimited or unknown. */
  cgroupMemoryLimitBytes: number | null;
  vmMaxMapCount: number | null;
  /** /proc/sys/vm/overcommit_memory: 0 heuristic, 1 always, 2 never. */
  overcommitMemory: number | null;
  /** e.g. "none", "kvm", "docker on kvm", "vm (hypervisor flag)", with " [vendor / product]" from DMI when readable. */
  virtualization: string | null;
  /** The CPU the run pinned its probes to, if any. */
  pinnedCpu: number | null;
  loadAverage: [number, number, number];
  cpuPressure: CpuPressure | null;
  clockSource: string | null;
  cpuGovernor: string | null;
  /** ISO 8601 time of collection. */
  collectedAt: string;
  /** Fallbacks taken and anything else a reader of the record should know. */
  notes: string[];
}

export interface LoadSample {
  at: string;
  loadAverage: [number, number, number];
  cpuPressure: CpuPressure | null;
  /** The "cpu" line of /proc/stat (steal, iowait) for the noise witness; absent in runs recorded before it existed. */
  cpuTicks?: CpuTicks | null;
  /** The process's own cgroup: its cpu.pressure and cpu.stat throttling (absent in runs recorded before they were read). */
  cgroupCpu?: CgroupCpuSample | null;
  /** In the sample taken after a run: the probes' scheduling counters summed over the run. */
  probes?: ProbeUsageTotals;
}

/** Result of running a command that could be started; null from `run` means it could not (missing, timeout). */
export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Everything collectMachine reads, so that tests can substitute a fake machine. */
export interface HostSources {
  readFile: ReadText;
  run(cmd: string, args: string[]): CommandResult | null;
  os: {
    hostname(): string;
    release(): string;
    version(): string;
    arch(): string;
    cpuModels(): string[];
    availableParallelism(): number;
    loadavg(): number[];
  };
  nodeVersion: string;
  now(): Date;
  /** The environment (container markers such as KUBERNETES_SERVICE_HOST); none when absent. */
  env?: Record<string, string | undefined>;
}

const COMMAND_TIMEOUT_MS = 2000;

/** Run a command with a 2 s timeout; non-zero exit still returns its output, failure to start or timeout → null. */
function runCommand(cmd: string, args: string[]): CommandResult | null {
  try {
    const stdout = execFileSync(cmd, args, {
      encoding: 'utf8',
      timeout: COMMAND_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      maxBuffer: 1024 * 1024,
    });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    const err = e as { code?: string; status?: number | null; signal?: string | null; stdout?: unknown; stderr?: unknown };
    if (typeof err.status !== 'number' || err.signal) return null; // ENOENT, EACCES, timeout (killed)
    return {
      status: err.status,
      stdout: typeof err.stdout === 'string' ? err.stdout : '',
      stderr: typeof err.stderr === 'string' ? err.stderr : '',
    };
  }
}

export const realSources: HostSources = {
  readFile: readTextOrNull,
  run: runCommand,
  os: {
    hostname: () => os.hostname(),
    release: () => os.release(),
    version: () => os.version(),
    arch: () => os.arch(),
    cpuModels: () => os.cpus().map((c) => c.model),
    availableParallelism: () => os.availableParallelism(),
    loadavg: () => os.loadavg(),
  },
  nodeVersion: process.version,
  now: () => new Date(),
  env: process.env,
};

/** Stdout of a command that exited 0, or null. */
function okStdout(src: HostSources, cmd: string, args: string[]): string | null {
  const r = src.run(cmd, args);
  return r !== null && r.status === 0 ? r.stdout : null;
}

function trimmedOrNull(text: string | null): string | null {
  if (text === null) return null;
  const t = text.trim();
  return t === '' ? null : t;
}

function loadTriple(src: HostSources): [number, number, number] {
  const l = src.os.loadavg();
  return [l[0] ?? 0, l[1] ?? 0, l[2] ?? 0];
}

function readPressure(src: HostSources): CpuPressure | null {
  const t = src.readFile('/proc/pressure/cpu');
  return t === null ? null : parsePressure(t);
}

export function sampleLoad(src: HostSources = realSources): LoadSample {
  const stat = src.readFile('/proc/stat');
  return {
    at: src.now().toISOString(),
    loadAverage: loadTriple(src),
    cpuPressure: readPressure(src),
    cpuTicks: stat === null ? null : parseProcStatCpu(stat),
    cgroupCpu: sampleCgroupCpu(src.readFile),
  };
}

function detectVirtualization(src: HostSources, cpuinfo: string | null): string | null {
  let base: string | null = null;
  // systemd-detect-virt prints "none" and exits 1 when it finds nothing; that is an answer.
  const answer = (args: string[]): string | null => {
    const r = src.run('systemd-detect-virt', args);
    if (r === null || (r.status !== 0 && r.status !== 1)) return null;
    return trimmedOrNull(r.stdout);
  };
  const vm = answer(['--vm']);
  const ct = answer(['--container']);
  if (vm !== null || ct !== null) {
    const parts = [ct, vm].filter((x): x is string => x !== null && x !== 'none');
    base = parts.length === 0 ? 'none' : parts.join(' on ');
  } else {
    base = answer([]);
  }
  if (base === null) {
    const container = src.readFile('/.dockerenv') !== null ? 'docker' : src.readFile('/run/.containerenv') !== null ? 'podman' : null;
    const hv = cpuinfo !== null && cpuinfoHasFlag(cpuinfo, 'hypervisor') ? 'vm (hypervisor flag)' : null;
    const parts = [container, hv].filter((x): x is string => x !== null);
    if (parts.length > 0) base = parts.join(' on ');
  }
  const vendor = trimmedOrNull(src.readFile('/sys/class/dmi/id/sys_vendor'));
  const product = trimmedOrNull(src.readFile('/sys/class/dmi/id/product_name'));
  const dmi = [vendor, product].filter((x): x is string => x !== null).join(' / ');
  if (dmi === '') return base;
  return base === null ? `unknown [${dmi}]` : `${base} [${dmi}]`;
}

/** Synchronous core of collectMachine, over any HostSources. */
function cpuModelOf(src: HostSources, cpuinfo: string | null, notes: string[]): string | null {
  const fromProc = cpuinfo === null ? null : parseCpuinfoModel(cpuinfo);
  if (fromProc !== null) return fromProc;
  const m = trimmedOrNull(src.os.cpuModels()[0] ?? null);
  if (m === null || m === 'unknown') return null;
  notes.push("cpuModel from os.cpus() (no 'model name' in /proc/cpuinfo)");
  return m;
}

function hugePageSizeKbOf(src: HostSources, meminfo: Record<string, number>, notes: string[]): number | null {
  const fromMeminfo = meminfo['Hugepagesize'] ?? null;
  if (fromMeminfo !== null) return fromMeminfo;
  const t = src.readFile(thpPath('hpage_pmd_size'));
  const bytes = t === null ? null : parseIntFile(t);
  if (bytes === null) return null;
  notes.push('hugePageSizeKb from transparent_hugepage/hpage_pmd_size (no Hugepagesize in /proc/meminfo)');
  return bytes / 1024;
}

function pageSizeBytesOf(src: HostSources, notes: string[]): number {
  const pageOut = okStdout(src, 'getconf', ['PAGESIZE']);
  const bytes = pageOut === null ? null : parseIntFile(pageOut);
  if (bytes !== null && bytes > 0) return bytes;
  notes.push('pageSizeBytes assumed 4096: `getconf PAGESIZE` failed');
  return 4096;
}

function glibcVersionOf(src: HostSources, notes: string[]): string | null {
  const getconfLibc = okStdout(src, 'getconf', ['GNU_LIBC_VERSION']);
  const fromGetconf = getconfLibc === null ? null : parseGlibcVersion(getconfLibc);
  if (fromGetconf !== null) return fromGetconf;
  const r = src.run('ldd', ['--version']);
  // glibc's ldd prints to stdout; musl's prints to stderr and is not glibc.
  const fromLdd = r !== null && r.status === 0 ? parseGlibcVersion(r.stdout) : null;
  if (fromLdd !== null) notes.push('glibcVersion from `ldd --version`');
  return fromLdd;
}

function compilerVersionOf(src: HostSources): string | null {
  for (const cc of ['cc', 'gcc']) {
    const out = okStdout(src, cc, ['--version']);
    const v = out === null ? null : firstLine(out);
    if (v !== null) return v;
  }
  return null;
}

function cgroupMemoryLimitOf(read: HostSources['readFile'], notes: string[]): number | null {
  const cg = locateMemoryCgroup(read);
  if (cg === null) {
    notes.push('memory cgroup not found (/proc/self/cgroup unreadable or without a memory hierarchy)');
    return null;
  }
  if (cg.note !== null) notes.push(cg.note);
  return effectiveCgroupLimit(readCgroupLevels(cg, read));
}

export function buildMachineRecord(src: HostSources, opts: { pinCpu: number | null; probe?: ProbeRecord }): MachineRecord {
  const notes: string[] = [];
  const read = src.readFile;
  const cpuinfo = read('/proc/cpuinfo');
  const statusText = read('/proc/self/status');
  const allowedText = statusText === null ? null : parseStatusField(statusText, 'Cpus_allowed_list');
  const meminfoText = read('/proc/meminfo');
  const meminfo = meminfoText === null ? {} : parseMeminfo(meminfoText);
  const intFile = (path: string): number | null => {
    const t = read(path);
    return t === null ? null : parseIntFile(t);
  };
  return {
    hostname: src.os.hostname(),
    kernel: src.os.release(),
    kernelVersion: src.os.version(),
    arch: src.os.arch(),
    cpuModel: cpuModelOf(src, cpuinfo, notes),
    cpuCount: src.os.availableParallelism(),
    cpusAllowed: allowedText === null ? null : parseCpusAllowedList(allowedText),
    memTotalKb: meminfo['MemTotal'] ?? null,
    memAvailableKb: meminfo['MemAvailable'] ?? null,
    swapTotalKb: meminfo['SwapTotal'] ?? null,
    thpEnabled: readThpChoice('enabled', read),
    thpDefrag: readThpChoice('defrag', read),
    hugePageSizeKb: hugePageSizeKbOf(src, meminfo, notes),
    pageSizeBytes: pageSizeBytesOf(src, notes),
    glibcVersion: glibcVersionOf(src, notes),
    compilerVersion: compilerVersionOf(src),
    nodeVersion: src.nodeVersion,
    cgroupMemoryLimitBytes: cgroupMemoryLimitOf(read, notes),
    vmMaxMapCount: intFile('/proc/sys/vm/max_map_count'),
    overcommitMemory: intFile('/proc/sys/vm/overcommit_memory'),
    virtualization: detectVirtualization(src, cpuinfo),
    pinnedCpu: opts.pinCpu,
    loadAverage: loadTriple(src),
    cpuPressure: readPressure(src),
    clockSource: trimmedOrNull(read('/sys/devices/system/clocksource/clocksource0/current_clocksource')),
    cpuGovernor: trimmedOrNull(read('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor')),
    collectedAt: src.now().toISOString(),
    notes,
    ...readIsolation(read, src.env ?? {}),
    ...(opts.probe ? { probe: opts.probe } : {}),
    emulation: detectEmulation(src.os.arch(), cpuinfo),
  };
}

/** Collect the machine record of this host. Never throws for a missing file or command. */
export async function collectMachine(opts: { pinCpu: number | null; probe?: ProbeRecord }, src: HostSources = realSources): Promise<MachineRecord> {
  return buildMachineRecord(src, opts);
}
