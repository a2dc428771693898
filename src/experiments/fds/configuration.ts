// fds's configurations: the way a child is kept from inheriting the parent's descriptors, how many descriptors the
// parent holds open and its RLIMIT_NOFILE (what identifies one), and what its probe observed (the highest descriptor
// open, the hard limit), declared once; its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

/** The ways, in the order tables show them: fork's (the child closes, then execs), then posix_spawn's. */
export const WAYS = [
  'fork-exec',
  'fork-close-loop',
  'fork-fcntl-loop',
  'fork-proc-fd',
  'fork-close-range',
  'posix-spawn',
  'posix-spawn-addclose',
  'posix-spawn-closefrom',
] as const;
export type Way = (typeof WAYS)[number];

export const FDS_FIELDS = defineFields(
  'fds',
  Type.Object({ way: OneOfList(WAYS), fds: Type.Number(), nofile: Type.Number() }),
  /** highestFd: the highest descriptor open in the parent; nofileHard: its hard RLIMIT_NOFILE (null: unlimited or not reported). */
  Type.Object({ highestFd: Nullable(Type.Number()), nofileHard: Nullable(Type.Number()) }),
);
export type FdsFields = FieldsOf<typeof FDS_FIELDS>;
export type FdsIdentity = FdsFields['identity'];
export type FdsMeasurement = MeasurementOf<FdsFields>;

/** The identity keys, in the order a document writes them. */
export const FDS_IDENTITY = ['way', 'fds', 'nofile'] as const satisfies readonly (keyof FdsIdentity)[];
