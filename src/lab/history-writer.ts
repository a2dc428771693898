// Saves a run to the history database as it happens: a 'running' row at the start, each probe's
// measurements as they come, 'complete' or 'incomplete' at the end. A database problem never throws a
// measured run away: it becomes a warning, and the run goes on without the store.
import { StoreError, asStoreError, type RunStart, type Store } from '../store/db.js';
import type { LoadSample } from '../env/machine.js';
import type { Measurement, Warning } from '../experiments/types.js';

export class HistoryWriter {
  runId: number | null = null;
  uuid: string | null = null;
  readonly warnings: Warning[] = [];

  constructor(private store: Store | null) {}

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

  start(meta: RunStart): void {
    this.guard('started', (s) => {
      this.runId = s.startRun(meta);
      this.uuid = s.uuidOf(this.runId);
    });
  }

  record(ms: readonly Measurement[]): void {
    if (this.runId !== null) this.guard('saved', (s) => s.addMeasurements(this.runId!, ms));
  }

  finish(end: { complete: boolean; summary: unknown; warnings: Warning[]; loadAfter: LoadSample; finishedAt: Date }): void {
    if (this.runId !== null) this.guard('finished', (s) => s.finishRun(this.runId!, end));
    if (!this.store) this.uuid = null;
  }
}
