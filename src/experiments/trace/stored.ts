// trace's cost model from a stored run of the spawn experiment (article 000): its fork+exec and posix_spawn
// medians at each parent size, with THP as the traced programs have it. The spawn experiment's methods and fields
// are named here, among the experiments, so that the command line (src/cli/trace.ts) names none of them.
import { spawnExperiment } from '../spawn/index.js';
import type { SpawnSummary } from '../spawn/summary.js';
import { readThpChoice } from '../../env/thp.js';
import { fitModel, type ModelPoint, type SpawnModel } from './cost.js';

/** The experiment whose stored runs the model is fitted from. */
export const MODEL_EXPERIMENT: string = spawnExperiment.name;
/** What such a run must hold for a model, as an error message says it. */
export const MODEL_NEEDS = 'fork-exec and posix-spawn figures at two sizes or more';

const MODEL_METHODS: ReadonlySet<string> = new Set<ModelPoint['method']>(['fork-exec', 'posix-spawn']);

/** The system's THP setting is "always" (what a traced program's memory gets). */
function thpAlways(): boolean {
  return readThpChoice('enabled') === 'always';
}

/** This machine's fork+exec and posix_spawn points from a stored run's summary (THP as the system has it, else off); null when they do not make a line. */
export function modelFromStoredRun(summary: unknown, runId: string, startedAt: string): SpawnModel | null {
  const cells = (summary as SpawnSummary | null)?.cells;
  if (!Array.isArray(cells)) return null;
  const thps = new Set(cells.map((c) => c.thp));
  // THP as the traced programs have it: the system's setting when measured, else on for "always", off otherwise.
  const thp = thps.has('default') ? 'default' : thpAlways() && thps.has('on') ? 'on' : thps.has('off') ? 'off' : 'on';
  const points: ModelPoint[] = cells
    .filter((c) => c.thp === thp && MODEL_METHODS.has(c.method))
    .map((c) => ({ method: c.method as ModelPoint['method'], rssMb: c.rssMb, medianNs: c.medianNs }));
  return fitModel({ kind: 'stored', runId, startedAt }, thp, points);
}
