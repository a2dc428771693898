// `forklab doctor`'s checks of the probe itself: which set measures (built here, or prebuilt with its build id) and
// what that changes, and whether the CPU is emulated (then no timing means anything).
import type { DoctorCheck } from './doctor-check.js';
import type { DoctorFacts } from './doctor-facts.js';
import { detectEmulation } from './emulation.js';

export function checkProbe(f: DoctorFacts): DoctorCheck | null {
  if (f.probe === undefined) return null;
  const base = { id: 'probe', title: 'C probe', apply: [] };
  const p = f.probe.record;
  if (p === null)
    return {
      ...base,
      status: 'warn',
      found: `not built here, and no prebuilt probe for ${f.arch ?? process.arch}`,
      why: 'every experiment runs the probe: without it forklab can only read stored runs.',
      command: 'npm rebuild forklab   (needs gcc, make, python3 and static glibc: sudo apt-get install gcc make python3 libc6-dev)',
    };
  if (p.origin === 'built-here')
    return {
      ...base,
      status: 'info',
      found: `built here (${p.dir})`,
      why: "compiled on this machine at install time, against this machine's C library: its posix_spawn, vfork and fork are this glibc's.",
      command: null,
    };
  if (p.origin === 'native-dir')
    return { ...base, status: 'info', found: `from FORKLAB_NATIVE_DIR (${p.dir}), no BUILD.json`, why: 'a probe set chosen by hand; its origin is not recorded.', command: null };
  return {
    ...base,
    status: 'info',
    found: `prebuilt, build id ${p.buildId} (${p.dir})`,
    why: `shipped in the package (no C compiler at install time, or FORKLAB_NATIVE_DIR chose it). The probe, its loop and the static target are static${f.probe.libc ? ` with ${f.probe.libc}` : ''}: the posix_spawn, vfork and fork they time are that build's glibc, not this machine's; the dynamic target runs this machine's own ld.so and libc. Ratios to the plain C loops are as with a probe built here (forklab selfcheck).`,
    command: 'to build one here: npm rebuild forklab (needs gcc, make, python3, libc6-dev)',
  };
}

export function checkEmulation(f: DoctorFacts): DoctorCheck {
  const arch = f.arch ?? process.arch;
  const found = detectEmulation(arch, f.files['/proc/cpuinfo'] ?? null);
  return {
    id: 'emulation',
    title: 'CPU emulation',
    status: found ? 'warn' : 'ok',
    found: found ?? `none (an ${arch} process, and /proc/cpuinfo agrees)`,
    why: found
      ? 'an emulator (qemu-user, Rosetta, box64) times its own translation, and qemu-user turns vfork into a plain fork: no figure of a run here means anything; it checks only that forklab works.'
      : 'forklab runs natively on this CPU.',
    command: found ? `run forklab with a Node built for this CPU (${found.split(' on ')[1]?.split(' (')[0] ?? 'the host'})` : null,
    apply: [],
  };
}
