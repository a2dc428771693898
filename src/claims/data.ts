// What the claims engine judges: one experiment's configurations from its run documents, and the error every
// judge throws when the data cannot answer (its message becomes the verdict's reason).
import { EXPERIMENTS } from '../experiments/index.js';
import type { Configuration } from '../experiments/contract/types.js';
import type { SeriesValue } from '../reference/published.js';

/** A configuration object of a run document (series, identifying fields at top level, samples, columns, info). */
export type Config = Configuration;

/** Keys of a published series that describe the article's machine, not forklab data: not matched (each experiment names its own). */
export const CONTEXT_KEYS: readonly string[] = [...new Set(EXPERIMENTS.flatMap((e) => e.contextKeys ?? []))];

/** Extra restriction of an operand's configurations, e.g. one rssMb of a pairBy. */
export type Restriction = Readonly<Record<string, SeriesValue>>;

export class NotMeasurable extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotMeasurable';
  }
}

/** The data of one experiment: the ok configurations of every document of it. */
export interface ExperimentData {
  experiment: string;
  configs: Config[];
  /** What every verdict on these data must say: an incomplete run, failed configurations, the run's warnings. */
  notes: string[];
  /** Its series are timed in the same iterations of one probe process (resampled together when shapes match). */
  paired: boolean;
  /** Every run behind these data had its probes pinned to a CPU (--pin): advice never asks for what was done. */
  pinned?: boolean;
  /** The parameters of every run behind these data (what they set out to measure: src/claims/evidence.ts). */
  params?: Record<string, unknown>[];
  /** Every configuration, failed ones too: what the run attempted. */
  allConfigs?: Config[];
  /** The uuids of the runs behind these data (those stored): never their own history. */
  runIds?: string[];
  /** The identity fields one probe fixes where a probe measures several configurations round by round (spawn). */
  probeKeys?: readonly string[];
  /** Separate runs pooled here (a settle look belongs to the run it settles): the drift of their mean is τ ÷ √sessions. */
  sessions?: number;
  /** When the earliest run behind these data started (ISO): the runs before it are the earlier ones. */
  startedAt?: string;
}
