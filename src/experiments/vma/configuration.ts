// vma's configurations: the VMA count and the method (what identifies one), and what its probe observed (the
// VMAs /proc/self/maps showed, the kernel's Slab readings and their growth), declared once; its measure writes
// them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const VMA_METHODS = ['fork-exit', 'clone-vfork', 'posix-spawn'] as const;
export type VmaMethod = (typeof VMA_METHODS)[number];

const Reading = () => Nullable(Type.Number());
export const VMA_FIELDS = defineFields(
  'vma',
  Type.Object({ vmas: Type.Number(), method: OneOfList(VMA_METHODS) }),
  /** Readings in kB (null: the probe did not report them; absent: runs stored before they were kept). */
  Type.Object({
    vmasInRegion: Type.Optional(Reading()),
    slabGrowthKb: Type.Optional(Reading()),
    sUnreclaimGrowthKb: Type.Optional(Reading()),
    slabBuildKb: Type.Optional(Reading()),
    slabBeforeKb: Type.Optional(Reading()),
    slabBeforeForkKb: Type.Optional(Reading()),
    slabAfterForkKb: Type.Optional(Reading()),
    slabAfterReapKb: Type.Optional(Reading()),
  }),
);
export type VmaFields = FieldsOf<typeof VMA_FIELDS>;
export type VmaIdentity = VmaFields['identity'];
export type VmaMeasurement = MeasurementOf<VmaFields>;

/** The identity keys, in the order a document writes them. */
export const VMA_IDENTITY = ['vmas', 'method'] as const satisfies readonly (keyof VmaIdentity)[];
