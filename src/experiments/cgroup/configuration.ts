// cgroup's configurations: how the child reaches its group, the threads beside the parent's main thread and the
// pause before each launch (what identifies one), and what its probe observed (the new group's type, whether
// the hierarchy favours dynamic changes), declared once; its measure writes them, its summary and a stored run
// read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

/** The ways a child reaches the group (native/case_cgroup.c), fork-exec first: the reference that stays put. */
export const CGROUP_METHODS = ['fork-exec', 'clone3-into', 'parent-write', 'child-write'] as const;
export type CgroupMethod = (typeof CGROUP_METHODS)[number];
/** The methods that write to cgroup.procs (their samples carry the write alone, column writeNs). */
export const WRITE_METHODS: readonly CgroupMethod[] = ['parent-write', 'child-write'];

export const CGROUP_FIELDS = defineFields(
  'cgroup',
  Type.Object({ method: OneOfList(CGROUP_METHODS), threads: Type.Number(), gapMs: Type.Number() }),
  /**
   * groupType: the probe's group's cgroup.type ("domain"); favordynmods: the v2 mount's option (null: not known);
   * refusal and remedy: where the kernel refused a group, a write or clone3, what it said and what would allow it.
   */
  Type.Object({
    groupType: Nullable(Type.String()),
    favordynmods: Nullable(Type.Boolean()),
    refusal: Nullable(Type.String()),
    remedy: Nullable(Type.String()),
  }),
);
export type CgroupFields = FieldsOf<typeof CGROUP_FIELDS>;
export type CgroupIdentity = CgroupFields['identity'];
export type CgroupMeasurement = MeasurementOf<CgroupFields>;

/** The identity keys, in the order a document writes them. */
export const CGROUP_IDENTITY = ['method', 'threads', 'gapMs'] as const satisfies readonly (keyof CgroupIdentity)[];
