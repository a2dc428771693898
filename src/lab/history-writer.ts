// A run's record, written once for every kind of run (an experiment's sweep, a trace): a 'running' row in the
// history at the start, each probe's measurements as they come, 'complete' or 'incomplete' at the end, then the
// versioned document. A database problem never throws a measured run away: it becomes a warning, and the run goes
// on without the store.
import { StoreError, asStoreError, type Store } from '../store/db.js';
import type { LoadSample, MachineRecord } from '../env/machine.js';
import type { NoiseWitness } from '../env/witness.js';
import type { ExperimentRun, Measurement, Warning } from '../experiments/contract/types.js';
import { buildDocument, type RunDocument } from '../document/run.js';
import { FORKLAB_VERSION } from '../version.js';

/** What a run is known by when it starts. */
export interface RunOpening {
  experiment: string;
  params: Record<string, unknown>;
  machine: MachineRecord;
  loadBefore: LoadSample;
  startedAt: Date;
  label: string | undefined;
}

/** What is known once it has ended. */
export interface RunEnd {
  loadAfter: LoadSample;
  finishedAt: Date;
  /** The noise witness of the run's probes; absent: none (a trace's). */
  witness?: NoiseWitness | null;
}

export class HistoryWriter {
  runId: number | null = null;
  uuid: string | null = null;
  /** The history's own problems, each a warning of the run. */
  readonly warnings: Warning[] = [];

  /** Starts the run's row in `store` (null: the run is not stored). */
  constructor(
    private store: Store | null,
    private readonly opening: RunOpening,
  ) {
    this.guard('started', (s) => {
      this.runId = s.startRun({ ...opening, label: opening.label ?? null, forklabVersion: FORKLAB_VERSION });
      this.uuid = s.uuidOf(this.runId);
    });
  }

  private guard(what: string, f: (s: Store) => void): void {
    if (!this.store) return;
    try {
      f(this.store);
    } catch (raw) {
      const e = asStoreError(raw, this.store.path);
      if (!(e instanceof StoreError)) throw e;
      this.warnings.push({
        code: 'history-not-saved',
        message: `the run could not be ${what} in ${this.store.path}: ${e.message}. Use --json FILE to keep it, --db PATH for another database, or --no-store.`,
      });
      this.store = null;
    }
  }

  record(ms: readonly Measurement[]): void {
    if (this.runId !== null) this.guard('saved', (s) => s.addMeasurements(this.runId!, ms));
  }

  /**
   * The run's end: its row finished with the run's warnings, the history's own problems added to them, and the
   * versioned document (its runId null when the run is not in the history).
   */
  finish(run: ExperimentRun, end: RunEnd): RunDocument {
    const { finishedAt, loadAfter } = end;
    if (this.runId !== null)
      this.guard('finished', (s) => s.finishRun(this.runId!, { complete: run.complete, summary: run.summary, warnings: run.warnings, loadAfter, finishedAt }));
    if (!this.store) this.uuid = null;
    run.warnings.push(...this.warnings);
    const o = this.opening;
    return buildDocument({
      run,
      forklabVersion: FORKLAB_VERSION,
      runId: this.uuid,
      label: o.label,
      startedAt: o.startedAt,
      finishedAt,
      machine: o.machine,
      load: { before: o.loadBefore, after: loadAfter },
      ...(end.witness !== undefined ? { witness: end.witness } : {}),
    });
  }
}
