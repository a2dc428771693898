// Stored runs of the create experiment made to order for the drift tests: fork ÷ thread scaled to a chosen ratio,
// each run's samples its own, and their estimates as the history keeps them.
import type { HistoryRun } from '../../src/claims/drift.js';
import { judgeDocuments } from '../../src/claims/judge.js';
import type { RunDocument } from '../../src/document/run.js';
import { fakeDocument } from '../fixtures/store/fake.js';
import { FIXTURES } from './claims-data.js';

let made = 0;
/** The create fixture with fork+waitpid scaled so that fork ÷ thread is about `ratio`, as a stored run of `uuid` (each run's samples its own). */
export function createRun(ratio: number, uuid: string, startedAt: string, params: Record<string, unknown> = { iterations: 300 }): RunDocument {
  const raw = structuredClone(FIXTURES['create']!);
  const own = 1 + 1e-4 * ++made;
  for (const c of raw.configurations) c['samplesNs'] = (c['samplesNs'] as number[]).map((x) => (c['method'] === 'fork-waitpid' ? (x * ratio) / 1.745 : x * own));
  const full = fakeDocument([], { experiment: 'create', params });
  return { ...full, runId: uuid, startedAt, configurations: raw.configurations.map((c) => ({ ...c, stats: null })) };
}

/** Earlier runs' estimates, as the history holds them: each run judged on its own, within-run. */
export function historyOf(runs: readonly RunDocument[]): HistoryRun[] {
  return runs.map((d) => ({ runIds: [d.runId!], startedAt: d.startedAt, estimates: judgeDocuments([d], { seed: 1, drift: { withinRun: true } }).estimates!['create']! }));
}

/** The i-th hour from 2026-12-01 (i < 100): runs in the order they were made. */
export const at = (i: number) => `2026-12-0${1 + Math.floor(i / 10)}T0${i % 10}:00:00.000Z`;
