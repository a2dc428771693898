// Is this process's CPU emulated (qemu-user, Rosetta, box64, FEX)? Such an emulator runs a program built for one
// architecture on a CPU of another and passes the kernel's /proc/cpuinfo through, which then describes the host:
// an arm64 Node whose cpuinfo has x86's vendor_id and flags, or an x64 Node whose cpuinfo has ARM's CPU implementer.
// Under emulation no timing means anything (and qemu-user turns vfork into a plain fork): runs say so.

/** What a CPU's /proc/cpuinfo looks like: 'x86' (vendor_id, flags), 'arm' (CPU implementer, Features), or null. */
export function cpuinfoFamily(cpuinfo: string): 'x86' | 'arm' | null {
  if (/^vendor_id\s*:/m.test(cpuinfo) || /^flags\s*:.*\bsse2\b/m.test(cpuinfo)) return 'x86';
  if (/^CPU implementer\s*:/m.test(cpuinfo) || /^Features\s*:/m.test(cpuinfo)) return 'arm';
  return null;
}

const FAMILY_OF_ARCH: Record<string, 'x86' | 'arm'> = { x64: 'x86', ia32: 'x86', arm64: 'arm', arm: 'arm' };
const HOST_NAME = { x86: 'an x86 CPU', arm: 'an ARM CPU' } as const;

/**
 * null when the process's architecture (process.arch) matches the CPU /proc/cpuinfo describes (or either is
 * unknown); else what was found, e.g. "arm64 process on an x86 CPU (/proc/cpuinfo): qemu-user or another emulator".
 */
export function detectEmulation(arch: string, cpuinfo: string | null): string | null {
  if (cpuinfo === null) return null;
  const host = cpuinfoFamily(cpuinfo);
  const own = FAMILY_OF_ARCH[arch];
  if (host === null || own === undefined || host === own) return null;
  return `${arch} process on ${HOST_NAME[host]} (/proc/cpuinfo): qemu-user or another emulator`;
}

/** The warning every run under emulation carries. */
export function emulationWarning(found: string): string {
  return `forklab runs under CPU emulation (${found}): every timing is the emulator's, not this machine's, and qemu-user turns vfork into a plain fork, so the figures and verdicts of this run are meaningless; use it only to check that forklab works here`;
}
