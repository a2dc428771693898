// The one path from run documents to verdicts and figures, shared by `forklab reproduce` (documents it just
// measured), `forklab judge` (stored runs or exported documents) and the reports: pure, no I/O.
import type { RunDocument } from '../document/run.js';
import { loadPublished, type Published } from '../reference/published.js';
import { evaluateClaims, type Verdict } from './evaluate.js';
import { compareFigures, type FigureComparison } from './figures.js';
import type { DriftOptions, QuantityEstimate } from './drift.js';

export const VERDICTS_SCHEMA = 'forklab.verdicts';
/** 2: every verdict says the drift between runs its intervals were widened by (`drift`) and what this run alone says (`withinRun`). */
export const VERDICTS_VERSION = 2;
/** `forklab judge --json` over runs of several machines: one verdicts document per machine (`byMachine`), version 1. */
export const VERDICTS_BY_MACHINE_SCHEMA = 'forklab.verdicts-by-machine';

export interface JudgeOptions {
  /** Articles to judge (ids); default: every article with at least one of its experiments among the documents. */
  articles?: readonly string[];
  /** Sources to judge (ids); default: every source with at least one of its experiments among the documents. */
  sources?: readonly string[];
  /** Seed of the bootstrap intervals. */
  seed: number;
  /** Of every interval (default 0.95). */
  confidence?: number;
  /** Why an experiment has no document, by name; default "no run of X was given". */
  absent?: Readonly<Record<string, string>>;
  /**
   * The drift between runs (src/claims/drift.ts): by default every interval is widened by the stated prior; give
   * the machine's earlier runs as `history` to learn it, or `withinRun` for today's intervals alone.
   */
  drift?: DriftOptions;
}

export interface Judged {
  articles: string[];
  /** The sources beyond the articles whose claims were judged (absent in documents from before there were any). */
  sources?: string[];
  verdicts: Verdict[];
  figures: FigureComparison[];
  /** Within-run estimates of every quantity judged, by experiment and key: what later runs learn the drift from. */
  estimates?: Record<string, Record<string, QuantityEstimate>>;
  /** Today's intervals only (--within-run). */
  withinRun?: boolean;
}

/** The articles whose experiments the documents cover, in the published order. */
function articlesCovered(docs: readonly RunDocument[], p: Published = loadPublished()): string[] {
  const have = new Set(docs.map((d) => d.experiment));
  return p.articles.filter((a) => (Array.isArray(a.experiment) ? a.experiment : [a.experiment]).some((e) => have.has(e))).map((a) => a.id);
}

/** The sources whose experiments the documents cover, in the published order. */
function sourcesCovered(docs: readonly RunDocument[], p: Published = loadPublished()): string[] {
  const have = new Set(docs.map((d) => d.experiment));
  return p.sources.filter((s) => s.experiment.some((e) => have.has(e))).map((s) => s.id);
}

/** Every claim and figure of the chosen articles and sources, judged on the documents. */
export function judgeDocuments(docs: readonly RunDocument[], opts: JudgeOptions, p: Published = loadPublished()): Judged {
  const ids = new Set(opts.articles ?? articlesCovered(docs, p));
  const sourceIds = new Set(opts.sources ?? sourcesCovered(docs, p));
  const absent: Record<string, string> = {};
  for (const e of [...p.articles.flatMap((a) => (Array.isArray(a.experiment) ? a.experiment : [a.experiment])), ...p.sources.flatMap((s) => s.experiment)])
    if (!docs.some((d) => d.experiment === e)) absent[e] = opts.absent?.[e] ?? `no run of ${e} was given`;
  const claims = p.claims.filter((c) => (c.article !== undefined ? ids.has(c.article) : sourceIds.has(c.source)));
  const estimates: Record<string, Record<string, QuantityEstimate>> = {};
  const collect = (c: { experiment: string }, e: Readonly<Record<string, QuantityEstimate>>) => {
    estimates[c.experiment] = { ...estimates[c.experiment], ...e };
  };
  const drift = opts.drift ?? {};
  const verdicts = evaluateClaims(docs, claims, { seed: opts.seed, absent, confidence: opts.confidence ?? 0.95, drift, collect });
  const figures = compareFigures(
    docs,
    p.figures.filter((f) => ids.has(f.article)),
    { claims, verdicts, seed: opts.seed, absent },
  );
  const sources = p.sources.filter((x) => sourceIds.has(x.id)).map((x) => x.id);
  return {
    articles: p.articles.filter((a) => ids.has(a.id)).map((a) => a.id),
    ...(sources.length ? { sources } : {}),
    verdicts,
    figures,
    estimates,
    ...(drift.withinRun ? { withinRun: true } : {}),
  };
}

/** A run a judgement rests on, as the JSON of `forklab judge --json` names it. */
export interface JudgedRun {
  runId: string | null;
  experiment: string;
  startedAt: string;
  hostname: string;
  complete: boolean;
}

/** `forklab judge --json`: the verdicts and figures, and the runs they come from. */
export interface VerdictsDocument extends Judged {
  schema: typeof VERDICTS_SCHEMA;
  schemaVersion: typeof VERDICTS_VERSION;
  forklabVersion: string;
  seed: number;
  runs: JudgedRun[];
}

export function verdictsDocument(docs: readonly RunDocument[], judged: Judged, seed: number, forklabVersion: string): VerdictsDocument {
  const { estimates: _kept, ...shown } = judged;
  return {
    schema: VERDICTS_SCHEMA,
    schemaVersion: VERDICTS_VERSION,
    forklabVersion,
    seed,
    runs: docs.map((d) => ({ runId: d.runId, experiment: d.experiment, startedAt: d.startedAt, hostname: String(d.machine?.hostname ?? ''), complete: d.complete })),
    ...shown,
  };
}
