// `forklab doctor`'s checks: pure functions of the facts read by doctor-facts.ts. Each says what it found,
// why it matters for these figures, and the command that changes it; the changes --apply may make are
// listed as file writes so that they can be printed, made, and undone.
import { parseCpusAllowedList, parseIntFile, parsePressure, parseStatusField, cpuinfoHasFlag, parseMeminfo, parseCgroupLimit } from './parse.js';
import { parseProcStatCpu } from './witness.js';
import { readThpChoice, thpPath } from './thp.js';
import { cgroupDirs, type DoctorFacts } from './doctor-facts.js';
import { checkEmulation, checkProbe } from './doctor-probe.js';
import type { DoctorCheck, FileChange } from './doctor-check.js';

const CPU = '/sys/devices/system/cpu';
const write = (c: FileChange[]) => c.map((x) => `echo ${x.value} > ${x.path}`).join('; ');
const trim = (t: string | null | undefined) => (t == null ? null : t.trim());

function onlineCpus(f: DoctorFacts): number[] {
  return parseCpusAllowedList(trim(f.files[`${CPU}/online`]) ?? '0') ?? [0];
}

function checkGovernor(f: DoctorFacts): DoctorCheck {
  const why = 'a governor other than performance changes the clock between and during calls: the same work takes a different time.';
  const govs = onlineCpus(f).map((c) => ({ c, g: trim(f.files[`${CPU}/cpu${c}/cpufreq/scaling_governor`]) }));
  const known = govs.filter((x) => x.g !== null);
  if (known.length === 0)
    return {
      id: 'governor',
      title: 'CPU frequency governor',
      status: 'info',
      found: 'no cpufreq here (common in virtual machines: the host sets the clock)',
      why,
      command: null,
      apply: [],
    };
  const slow = known.filter((x) => x.g !== 'performance');
  const found = [...new Set(known.map((x) => x.g))].join(', ');
  const apply = slow.map((x) => ({ path: `${CPU}/cpu${x.c}/cpufreq/scaling_governor`, value: 'performance' }));
  return { id: 'governor', title: 'CPU frequency governor', status: slow.length ? 'warn' : 'ok', found, why, command: slow.length ? write(apply) : null, apply };
}

function checkBoost(f: DoctorFacts): DoctorCheck {
  const why = 'turbo/boost raises the clock while thermal and power headroom lasts, so early and late calls differ.';
  const boost = parseIntFile(f.files[`${CPU}/cpufreq/boost`] ?? '');
  const noTurbo = parseIntFile(f.files[`${CPU}/intel_pstate/no_turbo`] ?? '');
  if (boost === null && noTurbo === null) return { id: 'boost', title: 'CPU boost (turbo)', status: 'info', found: 'not exposed here', why, command: null, apply: [] };
  const on = boost === 1 || noTurbo === 0;
  const apply = noTurbo !== null ? [{ path: `${CPU}/intel_pstate/no_turbo`, value: '1' }] : [{ path: `${CPU}/cpufreq/boost`, value: '0' }];
  return { id: 'boost', title: 'CPU boost (turbo)', status: on ? 'warn' : 'ok', found: on ? 'on' : 'off', why, command: on ? write(apply) : null, apply: on ? apply : [] };
}

function checkSmt(f: DoctorFacts): DoctorCheck {
  const why = 'two hardware threads of one core share its execution units: work on the sibling slows the probe.';
  const active = parseIntFile(f.files[`${CPU}/smt/active`] ?? '');
  const control = trim(f.files[`${CPU}/smt/control`]);
  const siblings = onlineCpus(f)
    .map((c) => trim(f.files[`${CPU}/cpu${c}/topology/thread_siblings_list`]))
    .filter((s): s is string => s !== null && /[,-]/.test(s));
  const shared = active === 1 || siblings.length > 0;
  const found = shared ? `on: siblings ${[...new Set(siblings)].join(' ') || '(see topology)'}` : `off${control ? ` (control: ${control})` : ''}`;
  return {
    id: 'smt',
    title: 'SMT (hyper-threading) siblings',
    status: shared ? 'warn' : 'ok',
    found,
    why: `${why} Pin (--pin) to a CPU whose sibling is idle, or turn SMT off.`,
    command: shared ? `echo off > ${CPU}/smt/control   (undo: echo on)` : null,
    apply: [], // turning SMT off takes CPUs away from everything else: left to the user
  };
}

function checkThp(f: DoctorFacts): DoctorCheck[] {
  const read = (path: string) => f.files[path] ?? null;
  const enabled = readThpChoice('enabled', read);
  const defrag = readThpChoice('defrag', read);
  const out: DoctorCheck[] = [];
  const e: FileChange = { path: thpPath('enabled'), value: 'madvise' };
  out.push({
    id: 'thp-enabled',
    title: 'transparent huge pages (enabled)',
    status: enabled === null ? 'info' : enabled === 'madvise' ? 'ok' : 'warn',
    found: enabled ?? 'not readable',
    why:
      enabled === 'never'
        ? '--thp on cannot get huge pages: its rows look like --thp off.'
        : 'forklab asks for huge pages per region (--thp on/off, madvise); with [always], --thp default and every other process get them too.',
    command: enabled !== null && enabled !== 'madvise' ? write([e]) : null,
    apply: enabled !== null && enabled !== 'madvise' ? [e] : [],
  });
  const d: FileChange = { path: thpPath('defrag'), value: 'madvise' };
  const badDefrag = defrag === 'always' || defrag === 'never';
  out.push({
    id: 'thp-defrag',
    title: 'transparent huge pages (defrag)',
    status: defrag === null ? 'info' : badDefrag ? 'warn' : 'ok',
    found: defrag ?? 'not readable',
    why:
      defrag === 'always'
        ? 'every huge-page fault may stall in direct compaction: set-up times and first touches swing.'
        : defrag === 'never'
          ? '--thp on gets huge pages only when they are free already: a fragmented machine gives 4 KiB pages instead.'
          : 'madvise: regions forklab marks for huge pages are compacted for; others are not.',
    command: badDefrag ? write([d]) : null,
    apply: badDefrag ? [d] : [],
  });
  return out;
}

function checkOvercommit(f: DoctorFacts): DoctorCheck {
  const v = parseIntFile(f.files['/proc/sys/vm/overcommit_memory'] ?? '');
  const c: FileChange = { path: '/proc/sys/vm/overcommit_memory', value: '0' };
  return {
    id: 'overcommit',
    title: 'vm.overcommit_memory',
    status: v === 2 ? 'warn' : v === null ? 'info' : 'ok',
    found: v === null ? 'not readable' : `${v} (${['heuristic', 'always', 'never: strict accounting'][v] ?? '?'})`,
    why: "fork charges a copy of the parent's writable memory; with strict accounting (2) a large parent cannot fork and --rss runs fail with ENOMEM.",
    command: v === 2 ? 'sysctl -w vm.overcommit_memory=0' : null,
    apply: v === 2 ? [c] : [],
  };
}

function checkMaxMapCount(f: DoctorFacts): DoctorCheck {
  const v = parseIntFile(f.files['/proc/sys/vm/max_map_count'] ?? '');
  const low = v !== null && v < 65530;
  return {
    id: 'max-map-count',
    title: 'vm.max_map_count',
    status: v === null ? 'info' : low ? 'warn' : 'ok',
    found: v === null ? 'not readable' : String(v),
    why: `\`forklab vma\` maps up to this many regions; its --vmas values are capped below it${v !== null ? ` (about ${v - 1000} here)` : ''}.`,
    command: low || v === null ? null : 'sysctl -w vm.max_map_count=262144   (only to try --vmas beyond the cap)',
    apply: low ? [{ path: '/proc/sys/vm/max_map_count', value: '65530' }] : [],
  };
}

function cpuLimit(f: DoctorFacts): { cpus: number; file: string } | null {
  let best: { cpus: number; file: string } | null = null;
  for (const { dir, v2 } of cgroupDirs(f.files, 'cpu')) {
    let quota: number | null = null;
    let period: number | null = null;
    if (v2) {
      const t = trim(f.files[`${dir}/cpu.max`]);
      const [q, p] = (t ?? '').split(/\s+/);
      if (q && q !== 'max') {
        quota = Number(q);
        period = Number(p);
      }
    } else {
      quota = parseIntFile(f.files[`${dir}/cpu.cfs_quota_us`] ?? '');
      period = parseIntFile(f.files[`${dir}/cpu.cfs_period_us`] ?? '');
    }
    if (quota !== null && period && quota > 0) {
      const cpus = quota / period;
      if (!best || cpus < best.cpus) best = { cpus, file: v2 ? `${dir}/cpu.max` : `${dir}/cpu.cfs_quota_us` };
    }
  }
  return best;
}

function checkCgroup(f: DoctorFacts): DoctorCheck[] {
  let mem: number | null = null;
  for (const { dir, v2 } of cgroupDirs(f.files, 'memory')) {
    const t = f.files[`${dir}/${v2 ? 'memory.max' : 'memory.limit_in_bytes'}`];
    const l = t == null ? null : parseCgroupLimit(t);
    if (l !== null && (mem === null || l < mem)) mem = l;
  }
  const memAvailKb = parseMeminfo(f.files['/proc/meminfo'] ?? '')['MemAvailable'] ?? null;
  const cap = Math.min(mem ?? Infinity, memAvailKb === null ? Infinity : memAvailKb * 1024);
  const fits = Number.isFinite(cap) ? `; --rss up to about ${Math.max(0, Math.floor(cap / 2 ** 20) - 66)} MB fits now` : '';
  const cpu = cpuLimit(f);
  const cpus = onlineCpus(f).length;
  const throttled = cpu !== null && cpu.cpus < cpus;
  return [
    {
      id: 'cgroup-memory',
      title: 'cgroup memory limit',
      status: 'info',
      found: `${mem === null ? 'none' : `${Math.floor(mem / 2 ** 20)} MB`}${fits}`,
      why: 'a region larger than the limit gets the probe OOM-killed; forklab refuses such an --rss before starting.',
      command: mem === null ? null : 'raise it where the container or service is defined (memory.max / memory.limit_in_bytes of its cgroup)',
      apply: [],
    },
    {
      id: 'cgroup-cpu',
      title: 'cgroup CPU limit',
      status: throttled ? 'warn' : 'ok',
      found: cpu === null ? 'none' : `${cpu.cpus.toFixed(2)} CPUs (${cpu.file})`,
      why: 'a CPU quota below the CPUs you run on throttles the probe in 100 ms periods: some calls take a period longer.',
      command: throttled ? `echo ${cpu.file.endsWith('cpu.max') ? 'max' : '-1'} > ${cpu.file}   (or raise it where the container is defined)` : null,
      apply: [],
    },
  ];
}

function checkVirtualization(f: DoctorFacts): DoctorCheck {
  const hv = cpuinfoHasFlag(f.files['/proc/cpuinfo'] ?? '', 'hypervisor');
  const dmi = [trim(f.files['/sys/class/dmi/id/sys_vendor']), trim(f.files['/sys/class/dmi/id/product_name'])].filter(Boolean).join(' / ');
  const a = parseProcStatCpu(f.now.statBefore ?? '');
  const b = parseProcStatCpu(f.now.statAfter ?? '');
  const dt = a && b ? b.total - a.total : 0;
  const stealNow = a && b && dt > 0 ? (100 * (b.steal - a.steal)) / dt : null;
  const stealBoot = b && b.total > 0 ? (100 * b.steal) / b.total : null;
  const busy = stealNow !== null && stealNow >= 5;
  const pct = (x: number | null) => (x === null ? '?' : `${x.toFixed(1)} %`);
  return {
    id: 'virtualization',
    title: 'virtualization and steal time',
    status: busy ? 'warn' : 'info',
    found: `${hv ? 'virtual machine' : 'no hypervisor flag'}${dmi ? ` [${dmi}]` : ''}; steal ${pct(stealNow)} now, ${pct(stealBoot)} since boot`,
    why: 'in a VM, page-table and fork work costs several times bare metal (shapes hold, magnitudes do not); steal is CPU time the host gave to other guests, and it lands inside timed calls.',
    command: busy ? 'nothing inside the guest changes steal: run when the host is quieter, or on a dedicated host' : null,
    apply: [],
  };
}

function checkLoadNow(f: DoctorFacts): DoctorCheck {
  const cpus = onlineCpus(f).length;
  const load1 = Number((f.files['/proc/loadavg'] ?? '').split(/\s+/)[0]);
  const p0 = parsePressure(f.now.pressureBefore ?? '');
  const p1 = parsePressure(f.now.pressureAfter ?? '');
  const stall = p0 && p1 && f.now.intervalMs > 0 ? (100 * (p1.someTotalUs - p0.someTotalUs)) / 1000 / f.now.intervalMs : null;
  const busy = (stall !== null && stall >= 10) || (Number.isFinite(load1) && load1 >= cpus);
  const found = `load ${Number.isFinite(load1) ? load1.toFixed(2) : '?'} on ${cpus} CPUs; tasks waited for a CPU ${stall === null ? '? (no /proc/pressure/cpu)' : `${Math.min(100, Math.max(0, stall)).toFixed(0)} %`} of the last ${(f.now.intervalMs / 1000).toFixed(1)} s`;
  return {
    id: 'load',
    title: 'load and CPU pressure now',
    status: busy ? 'warn' : 'ok',
    found,
    why: 'other runnable work takes CPUs from the probe and its children; every run also records this as its noise witness.',
    command: busy ? 'see what runs: top -b -n1 | head -20; run when it is done' : null,
    apply: [],
  };
}

function checkPinning(f: DoctorFacts): DoctorCheck {
  const status = f.files['/proc/self/status'] ?? '';
  const allowedText = parseStatusField(status, 'Cpus_allowed_list');
  const allowed = allowedText === null ? null : parseCpusAllowedList(allowedText);
  const n = allowed?.length ?? 0;
  return {
    id: 'pinning',
    title: 'CPUs allowed for --pin',
    status: allowed === null ? 'info' : n < 2 ? 'warn' : 'ok',
    found: allowed === null ? 'unknown' : `${allowedText} (${n} CPU${n === 1 ? '' : 's'})`,
    why:
      n <= 2
        ? '--pin accepts these. With 2 CPUs or fewer, pinning puts the probe and its child on one CPU: compare pinned runs with pinned runs. spawn pins to the last one by default (quiet, its figures matched unpinned runs with a third of the scatter between repeats: docs/noise.md).'
        : '--pin accepts these; pinning to a CPU nothing else uses keeps the scheduler from moving the probe.',
    command: n < 2 ? 'taskset -c 0-N forklab ...  (or widen the cpuset of this container)' : null,
    apply: [],
  };
}

function checkAslr(f: DoctorFacts): DoctorCheck {
  const v = parseIntFile(f.files['/proc/sys/kernel/randomize_va_space'] ?? '');
  return {
    id: 'aslr',
    title: 'address-space layout randomization',
    status: 'info',
    found: v === null ? 'not readable' : (['off', 'on (stack, mmap, vDSO)', 'on (also the heap)'][v] ?? String(v)),
    why: 'ASLR moves mappings from run to run; forklab does not depend on addresses (its regions are counted in pages and VMAs), so leave it on.',
    command: null,
    apply: [],
  };
}

function checkTracer(f: DoctorFacts): DoctorCheck {
  const tracer = parseIntFile(parseStatusField(f.files['/proc/self/status'] ?? '', 'TracerPid') ?? '');
  const traced = tracer !== null && tracer > 0;
  return {
    id: 'tracer',
    title: 'debugger or tracer',
    status: traced ? 'warn' : 'ok',
    found: traced ? `forklab is being traced (TracerPid ${tracer})` : 'none attached; none needed',
    why: 'forklab needs no debugger, tracer or perf access (ptrace_scope and perf_event_paranoid do not matter); a tracer attached to it slows every system call it times.',
    command: traced ? 'run forklab without strace/gdb/ltrace' : null,
    apply: [],
  };
}

/** Every check, in the order they are printed. */
export function runDoctorChecks(f: DoctorFacts): DoctorCheck[] {
  return [
    checkLoadNow(f),
    checkVirtualization(f),
    checkGovernor(f),
    checkBoost(f),
    checkSmt(f),
    ...checkThp(f),
    checkOvercommit(f),
    checkMaxMapCount(f),
    ...checkCgroup(f),
    checkPinning(f),
    checkAslr(f),
    checkTracer(f),
    checkEmulation(f),
    ...[checkProbe(f)].filter((c): c is DoctorCheck => c !== null),
  ];
}

/** One line: "doctor: 2 to look at (load and CPU pressure now: …; …), 11 fine — forklab doctor for details". */
export function doctorSummary(checks: readonly DoctorCheck[]): string {
  const warn = checks.filter((c) => c.status === 'warn');
  const rest = checks.length - warn.length;
  if (warn.length === 0) return `doctor: nothing to look at (${checks.length} checks)`;
  return `doctor: ${warn.length} to look at (${warn.map((c) => `${c.title}: ${c.found}`).join('; ')}), ${rest} fine or informational — forklab doctor for details`;
}
