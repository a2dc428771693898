// pagetables' configurations, declared once: a phase row (layout and phase: the page-table sizes read at that
// moment) and a fork-exit series (layout, pages and their spacing: the mappings counted and the tables built).
// Its measure writes them, its summary and a stored run read them.
import type { Fields, Measurement, MeasurementOf } from '../types.js';

export const LAYOUTS = ['sparse', 'dense'] as const;
export type Layout = (typeof LAYOUTS)[number];
export const PHASES = ['before', 'after-build', 'after-fork', 'after-fork-parent-write', 'after-child-exec', 'after-reap'] as const;
export type Phase = (typeof PHASES)[number];

export type PhaseIdentity = { layout: Layout; phase: Phase };
/** The page-table sizes at a phase (null: not read). */
export type PhaseObserved = { parentVmPteKb: number | null; childVmPteKb: number | null; pageTablesKb: number | null; settleMs: number | null };
export type ForkIdentity = { layout: Layout; pages: number; spacingKb: number };
/** Absent in runs stored before they were kept. */
export type ForkObserved = { mappingsInRange?: number | null; builtVmPteKb?: number | null };

export type PagetablesFields = Fields<PhaseIdentity, PhaseObserved> | Fields<ForkIdentity, ForkObserved>;
export type PhaseMeasurement = MeasurementOf<Fields<PhaseIdentity, PhaseObserved>>;
export type PagetablesMeasurement = PhaseMeasurement | MeasurementOf<Fields<ForkIdentity, ForkObserved>>;

/** The identity keys, in the order a document writes them. */
export const PAGETABLES_IDENTITY = ['layout', 'phase', 'pages', 'spacingKb'] as const;

/** A pagetables run's measurements with their fields as declared here: its measure writes them so, a document's reader checked they are scalars. */
export const pagetablesMeasurements = (ms: readonly Measurement[]): readonly PagetablesMeasurement[] => ms as readonly PagetablesMeasurement[];

/** A phase row (series 'phase'), as against a fork-exit series. */
export const isPhaseRow = (m: PagetablesMeasurement): m is PhaseMeasurement => m.series === 'phase';
