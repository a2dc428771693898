// Which machine a run ran on, as one short key: a hash of the machine record's stable fields (what a reboot or
// a busy minute does not change: kernel, CPU, memory, THP, page size, libc, Node, virtualization, container,
// seccomp, cgroup limits) and the node's name. Two runs with the same key are runs of one machine; a fleet
// report judges each key on its own runs and never pools two keys.

import { createHash } from 'node:crypto';
import type { MachineRecord } from './machine.js';

const MACHINE_KEY_FIELDS = [
  'kernel',
  'kernelVersion',
  'arch',
  'cpuModel',
  'cpuCount',
  'swapTotalKb',
  'thpEnabled',
  'thpDefrag',
  'hugePageSizeKb',
  'pageSizeBytes',
  'glibcVersion',
  'nodeVersion',
  'cgroupMemoryLimitBytes',
  'vmMaxMapCount',
  'overcommitMemory',
  'virtualization',
  'clockSource',
  'cpuGovernor',
  'seccompMode',
  'seccompFilters',
  'noNewPrivs',
  'inContainer',
  'userNamespaced',
  'cgroupCpuLimit',
] as const satisfies readonly (keyof MachineRecord)[];

/** The node's name: the engine's (machine.placement.node) where there is one, since a pod's hostname is the pod's. */
export function machineName(m: MachineRecord): string {
  return m.placement?.node ?? m.hostname;
}

/** The stable fields, named, in a fixed order (absent fields as null). */
export function stableFields(m: MachineRecord): Record<string, unknown> {
  // Memory to the GiB: MemTotal moves by a few kB from boot to boot (the kernel's own reservations).
  const out: Record<string, unknown> = { node: machineName(m), memTotalGb: m.memTotalKb === null ? null : Math.round(m.memTotalKb / 1048576) };
  for (const k of MACHINE_KEY_FIELDS) out[k] = m[k] ?? null;
  return out;
}

/** "m-" and 10 hex digits of the SHA-256 of the stable fields. */
export function machineKey(m: MachineRecord): string {
  return `m-${createHash('sha256')
    .update(JSON.stringify(stableFields(m)))
    .digest('hex')
    .slice(0, 10)}`;
}
