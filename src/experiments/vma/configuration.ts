// vma's configurations: the VMA count and the method (what identifies one), and what its probe observed (the
// VMAs /proc/self/maps showed, the kernel's Slab readings and their growth), declared once; its measure writes
// them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';

export const VMA_METHODS = ['fork-exit', 'clone-vfork', 'posix-spawn'] as const;
export type VmaMethod = (typeof VMA_METHODS)[number];

export type VmaIdentity = { vmas: number; method: VmaMethod };
/** Readings in kB (null: the probe did not report them; the raw Slab readings are absent in runs stored before they were kept). */
export type VmaObserved = {
  vmasInRegion: number | null;
  slabGrowthKb: number | null;
  sUnreclaimGrowthKb: number | null;
  slabBuildKb: number | null;
  slabBeforeKb?: number | null;
  slabBeforeForkKb?: number | null;
  slabAfterForkKb?: number | null;
  slabAfterReapKb?: number | null;
};
export type VmaFields = Fields<VmaIdentity, VmaObserved>;
export type VmaMeasurement = MeasurementOf<VmaFields>;

/** The identity keys, in the order a document writes them. */
export const VMA_IDENTITY = ['vmas', 'method'] as const satisfies readonly (keyof VmaIdentity)[];

/** A vma run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const vmaMeasurements = (ms: readonly Measurement[]): readonly VmaMeasurement[] => ms as readonly VmaMeasurement[];
