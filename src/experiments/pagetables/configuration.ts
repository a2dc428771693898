// pagetables' configurations, declared once: a phase row (layout and phase: the page-table sizes read at that
// moment) and a fork-exit series (layout, pages and their spacing: the mappings counted and the tables built).
// Its measure writes them, its summary and a stored run read them.
import { Type } from '@sinclair/typebox';
import { Nullable, OneOfList, defineFields, type FieldsOf } from '../contract/fields.js';
import type { MeasurementOf } from '../contract/types.js';

export const LAYOUTS = ['sparse', 'dense'] as const;
export type Layout = (typeof LAYOUTS)[number];
export const PHASES = ['before', 'after-build', 'after-fork', 'after-fork-parent-write', 'after-child-exec', 'after-reap'] as const;
export type Phase = (typeof PHASES)[number];

const Reading = () => Nullable(Type.Number());
/** A phase row's fields: the page-table sizes at a phase (null: not read). */
export const PHASE_FIELDS = defineFields(
  'pagetables',
  Type.Object({ layout: OneOfList(LAYOUTS), phase: OneOfList(PHASES) }),
  Type.Object({ parentVmPteKb: Reading(), childVmPteKb: Reading(), pageTablesKb: Reading(), settleMs: Reading() }),
);
/** A fork-exit series' fields: its pages and spacing, and what it observed, are absent in runs stored before they were kept. */
export const FORK_FIELDS = defineFields(
  'pagetables',
  Type.Object({ layout: OneOfList(LAYOUTS), pages: Type.Optional(Type.Number()), spacingKb: Type.Optional(Type.Number()) }),
  Type.Object({ mappingsInRange: Type.Optional(Reading()), builtVmPteKb: Type.Optional(Reading()) }),
);
/** Its measurements are of two kinds: phase rows and fork-exit series. */
export const PAGETABLES_FIELDS = [PHASE_FIELDS, FORK_FIELDS] as const;

export type PagetablesFields = FieldsOf<(typeof PAGETABLES_FIELDS)[number]>;
export type PhaseFields = FieldsOf<typeof PHASE_FIELDS>;
export type PhaseMeasurement = MeasurementOf<PhaseFields>;
export type PagetablesMeasurement = PhaseMeasurement | MeasurementOf<FieldsOf<typeof FORK_FIELDS>>;

/** The identity keys, in the order a document writes them. */
export const PAGETABLES_IDENTITY = ['layout', 'phase', 'pages', 'spacingKb'] as const;

/** A phase row (series 'phase'), as against a fork-exit series. */
export const isPhaseRow = (m: PagetablesMeasurement): m is PhaseMeasurement => m.series === 'phase';
