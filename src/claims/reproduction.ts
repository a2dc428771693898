// The document of a reproduction (`forklab reproduce --json`, and what the history keeps of one): which
// experiments ran, the runs, the verdicts of every claim and every published figure beside this machine's.
import type { RunDocument } from '../document/run.js';
import type { Verdict } from './evaluate.js';
import type { FigureComparison } from './figures.js';

/** What ran for an article: experiment, its state ("ran in 12 s", "not available in this forklab", …). */
export interface ExperimentStatus {
  experiment: string;
  state: string;
}

export const REPRODUCE_SCHEMA = 'forklab.reproduce';
/** 2: verdicts carry the drift between runs they were widened by (`drift`, `withinRun`); version 1 documents still load. */
export const REPRODUCE_VERSION = 2;
/** Every version this forklab reads (a version 1 document simply has no drift on its verdicts). */
export const REPRODUCE_VERSIONS_READ: readonly number[] = [1, 2];

export interface ReproduceDocument {
  schema: typeof REPRODUCE_SCHEMA;
  schemaVersion: 1 | typeof REPRODUCE_VERSION;
  forklabVersion: string;
  preset: 'quick' | 'full';
  startedAt: string;
  finishedAt: string;
  /** The machine it ran on. */
  hostname?: string;
  /** --label, when one was given. */
  label?: string;
  articles: string[];
  /** The sources beyond the articles whose claims were judged (absent before there were any). */
  sources?: string[];
  experiments: ExperimentStatus[];
  /** Per experiment that ran: the stored run's id, or the whole run document when it was not stored. */
  runs: (string | RunDocument)[];
  /** Seed of the interleaving order and the bootstrap intervals. */
  seed: number;
  /** Judged with today's intervals alone (--within-run), without the machine's drift between runs. */
  withinRun?: boolean;
  verdicts: Verdict[];
  figures: FigureComparison[];
}

/** Checks enough of a stored or read reproduction document to render it; throws an Error naming the problem. */
export function asReproduceDocument(v: unknown, where: string): ReproduceDocument {
  const d = v as Partial<ReproduceDocument> | null;
  if (typeof d !== 'object' || d === null || d.schema !== REPRODUCE_SCHEMA) throw new Error(`${where} is not a forklab reproduction (no "schema": "${REPRODUCE_SCHEMA}")`);
  if (!REPRODUCE_VERSIONS_READ.includes(d.schemaVersion as number))
    throw new Error(`${where} has schemaVersion ${String(d.schemaVersion)}; this forklab reads versions ${REPRODUCE_VERSIONS_READ.join(' and ')}`);
  for (const k of ['articles', 'experiments', 'runs', 'verdicts', 'figures'] as const) if (!Array.isArray(d[k])) throw new Error(`${where}: "${k}" is missing or not an array`);
  return d as ReproduceDocument;
}

/**
 * The one reader of a reproduction's text (`report --input`, `judge FILE`): the reproduction it holds, checked by
 * asReproduceDocument ('runs': only its schema and runs, all `judge` reads of it); null when the text is not JSON
 * or not a reproduction (a run document's reader then names the problem).
 */
export function reproductionInText(text: string, where: string, read: 'all' | 'runs' = 'all'): ReproduceDocument | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if ((parsed as { schema?: unknown } | null)?.schema !== REPRODUCE_SCHEMA) return null;
  if (read === 'all') return asReproduceDocument(parsed, where);
  return Array.isArray((parsed as { runs?: unknown }).runs) ? (parsed as ReproduceDocument) : null;
}
