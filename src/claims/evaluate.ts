// Verdicts on the articles' claims from forklab's run documents (pure: no I/O). Four verdicts:
//   holds          — the whole 95 % interval lies inside the claim's band (a shape: established with its interval);
//   differs ×F     — the whole interval lies outside (F = measured ÷ published, where there is a published value);
//   inconclusive   — the interval straddles an edge of the band; the verdict says what would settle it;
//   not-measurable — the data cannot answer (missing, a condition not met), with the reason.
// An incomplete run, failed configurations and the experiment's warnings reach every verdict's notes.
import type { RunDocument } from '../document/run.js';
import type { Check, Claim, Expectation } from '../reference/published.js';
import { settleAdvice } from './bands.js';
import { judgeApproxEqual, judgeBoolean, judgeCountPer, judgeGreater, judgeOperandExpectation, judgeSpread } from './checks.js';
import type { JudgeContext, Judgement } from './judgement.js';
import { judgePerEntry, judgeSlopeRatio } from './lines.js';
import { judgeFlat, judgeGrowsLinearly } from './shapes.js';
import { NotMeasurable, dataFor, type ExperimentData } from './select.js';
import { QuantityLog, type DriftOptions, type QuantityEstimate } from './drift.js';
import { driftKeepsOpen, summarizeDrift, type VerdictDrift } from './drift-words.js';
import type { Range } from './bands.js';

/** Every verdict, in the order a document's reader names them. */
export const VERDICT_VALUES = ['holds', 'differs', 'inconclusive', 'not-measurable'] as const;
export type VerdictValue = (typeof VERDICT_VALUES)[number];

/** A claim's verdict: the figures of its judgement (for not-measurable, the reason as its detail) and what to read with them. */
export interface Verdict extends Pick<Judgement, 'measured' | 'published' | 'factor' | 'interval' | 'detail' | 'plain'> {
  claimId: string;
  /** The article the claim comes from; a source's claim names its source instead. */
  article?: string;
  source?: string;
  experiment: string;
  kind: 'shape' | 'magnitude';
  statement: string;
  verdict: VerdictValue;
  /** What the reader must also know: an incomplete run, the experiment's warnings, data left out. */
  notes: string[];
  /** Inconclusive only: what would settle it. */
  settle?: string;
  /** The drift between runs on this machine that widened its intervals (absent: judged --within-run, or no interval). */
  drift?: VerdictDrift;
  /** What this run alone says, with today's intervals (as --within-run gives them), where the drift widened them. */
  withinRun?: { verdict: 'holds' | 'differs' | 'inconclusive'; interval?: Range };
  /**
   * Where the verdict pools this run with the machine's earlier runs (drift.pool): what this run's own estimates,
   * widened by the drift but not pooled, say (as --no-pool gives them).
   */
  alone?: { verdict: 'holds' | 'differs' | 'inconclusive'; measured: number | null; interval?: Range };
}

export interface EvaluateOptions {
  /** Seed of the bootstrap intervals: the run's --seed (same data and seed, same verdicts). */
  seed?: number;
  /** Of every interval (default 0.95; reproduce --settle's later looks are stricter). */
  confidence?: number;
  /** Why an experiment has no document, by experiment name (e.g. "not available in this forklab"). */
  absent?: Readonly<Record<string, string>>;
  /** The machine's drift between runs: absent, today's intervals (within-run); else widened (src/claims/drift.ts). */
  drift?: DriftOptions;
  /** Quantities measured for earlier claims on the same documents (evaluateClaims shares one among its claims). */
  measured?: Map<string, unknown>;
  /** Handed each judged claim's within-run quantity estimates (to be kept as history for later runs). */
  collect?: (claim: Claim, estimates: Readonly<Record<string, QuantityEstimate>>) => void;
}

/**
 * Puts the drift on a verdict: what it was, what this run alone says, and — when only the drift keeps the verdict
 * open — the words that say so and what would settle it.
 */
function applyDrift(v: Verdict, d: VerdictDrift, within: Judgement, sessions: number): void {
  v.drift = d;
  v.withinRun = { verdict: within.outcome, ...(within.interval ? { interval: within.interval as Range } : {}) };
  // which priors weighed in stays in v.drift.priors: the outputs say it once for all verdicts (report/verdicts.ts intervalsLine)
  if (v.verdict !== 'inconclusive' || within.outcome === 'inconclusive') return;
  const open = driftKeepsOpen(d, within.outcome, sessions);
  v.plain = `${v.plain ?? v.detail}; ${open.near}`;
  v.detail = `${v.detail}; ${open.near}`;
  v.settle = open.settle;
}

function hasExpectation(c: Check): c is Check & Expectation {
  return 'expect' in c;
}

function judge(check: Check, ctx: JudgeContext): Judgement {
  switch (check.type) {
    case 'flat':
      return judgeFlat(check, ctx);
    case 'grows-linearly':
      return judgeGrowsLinearly(check, ctx);
    case 'slope-ratio':
      return judgeSlopeRatio(check, ctx);
    case 'per-entry':
      return judgePerEntry(check, ctx);
    case 'greater':
      return judgeGreater(check, ctx);
    case 'approx-equal':
      return judgeApproxEqual(check, ctx);
    case 'count-per':
      return judgeCountPer(check, ctx);
    case 'spread':
      return judgeSpread(check, ctx);
    case 'boolean':
      return judgeBoolean(check, ctx);
    default:
      if (hasExpectation(check)) return judgeOperandExpectation(check, ctx);
      throw new Error(`unknown check type ${(check as Check).type}`);
  }
}

function publishedOf(c: Check): number | null {
  if ('published' in c && typeof c.published === 'number') return c.published;
  if (c.type === 'count-per') return c.expected;
  if (c.type === 'boolean') return c.expected ? 1 : 0;
  return null;
}

export function evaluateClaim(docs: readonly RunDocument[], claim: Claim, opts: EvaluateOptions = {}): Verdict {
  const origin = claim.article !== undefined ? { article: claim.article } : { source: claim.source };
  const base = { claimId: claim.id, ...origin, experiment: claim.experiment, kind: claim.kind, statement: claim.statement };
  let data: ExperimentData | null = null;
  try {
    data = dataFor(docs, claim.experiment, opts.absent?.[claim.experiment]);
    const log = new QuantityLog(claim.id, opts.measured);
    const by = claim.article !== undefined ? 'the article' : 'the source';
    const ctx: JudgeContext = { data, kind: claim.kind, seed: opts.seed ?? 1, confidence: opts.confidence ?? 0.95, log, by };
    // Today's intervals first; then, unless asked for them alone, the same quantities widened by the drift.
    const within = judge(claim.check, ctx);
    const widen = opts.drift !== undefined && opts.drift.withinRun !== true;
    let j = within;
    let alone: Judgement | null = null;
    let used = log.used;
    if (widen) {
      log.restart();
      j = judge(claim.check, { ...ctx, drift: opts.drift });
      used = [...log.used];
      // where earlier runs were pooled, what this run's own estimates say with the drift, kept beside the machine's
      if (used.some((u) => u.pooled)) {
        log.restart();
        alone = judge(claim.check, { ...ctx, drift: { ...opts.drift, pool: false } });
      }
    }
    opts.collect?.(claim, log.estimates);
    const notes = [...(j.notes ?? []), ...data.notes];
    if (j.minRepeats === 1 && j.outcome !== 'inconclusive') notes.push('one repeat only: the interval shows iteration noise, not run-to-run swings');
    const v: Verdict = { ...base, verdict: j.outcome, measured: j.measured, published: j.published, factor: j.factor, detail: j.detail, notes };
    if (j.interval) v.interval = j.interval;
    if (j.plain) v.plain = j.plain;
    if (j.outcome === 'inconclusive') v.settle = settleAdvice(j.minRepeats ?? null, data.pinned === true);
    if (widen && used.length > 0) applyDrift(v, summarizeDrift(used), within, data.sessions ?? 1);
    if (alone) v.alone = { verdict: alone.outcome, measured: alone.measured, ...(alone.interval ? { interval: alone.interval as Range } : {}) };
    return claim.notJudgeable === undefined ? v : besideOnly(v, claim.notJudgeable);
  } catch (e) {
    // NotMeasurable: data missing or a condition not met; RangeError: the statistics could not be computed.
    if (e instanceof NotMeasurable || e instanceof RangeError)
      return {
        ...base,
        verdict: 'not-measurable',
        measured: null,
        published: publishedOf(claim.check),
        factor: null,
        detail: claim.notJudgeable === undefined ? e.message : `not judgeable here: ${claim.notJudgeable}; and this machine's figure is missing: ${e.message}`,
        notes: data?.notes ?? [],
      };
    throw e;
  }
}

/**
 * A claim that compares two kernels or two builds: this machine's figure is shown beside it, never as a verdict on
 * it (one machine runs one kernel and one build).
 */
function besideOnly(v: Verdict, why: string): Verdict {
  const { settle: _s, withinRun: _w, alone: _a, ...kept } = v;
  const detail = `not judgeable here: ${why}; this machine's figure beside it: ${v.detail}`;
  return { ...kept, verdict: 'not-measurable', factor: null, detail, plain: `not judgeable here: ${why}; this machine: ${(v.plain ?? v.detail).replace(/^this machine:\s*/, '')}` };
}

/** One verdict per claim, in the claims' order. */
export function evaluateClaims(docs: readonly RunDocument[], claims: readonly Claim[], opts: EvaluateOptions = {}): Verdict[] {
  const measured = opts.measured ?? new Map<string, unknown>();
  return claims.map((c) => evaluateClaim(docs, c, { ...opts, measured }));
}
