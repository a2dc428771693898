// Verdicts on the articles' claims from forklab's run documents (pure: no I/O). Each claim's check is judged
// by src/claims/checks.ts; an experiment that did not run, or data it does not produce, gives the verdict
// 'not-measurable' with the reason.
import type { RunDocument } from '../report/document.js';
import type { Check, Claim, Expectation } from '../reference/published.js';
import {
  judgeApproxEqual,
  judgeBoolean,
  judgeCountPer,
  judgeExpectationCheck,
  judgeFlat,
  judgeGreater,
  judgeGrowsLinearly,
  judgeSpread,
  type JudgeContext,
  type Judgement,
} from './checks.js';
import { NotMeasurable, dataFor } from './select.js';

export type VerdictValue = 'holds' | 'differs' | 'not-measurable';

export interface Verdict {
  claimId: string;
  article: string;
  experiment: string;
  kind: 'shape' | 'magnitude';
  statement: string;
  verdict: VerdictValue;
  measured: number | null;
  published: number | null;
  /** measured ÷ published where the check has a published value. */
  factor: number | null;
  /** The measured quantity's 95 % bootstrap interval, where there is one. */
  interval?: { low: number; high: number };
  /** One line: what was compared, with the numbers. */
  detail: string;
}

export interface EvaluateOptions {
  /** Seed of the bootstrap intervals (same data and seed, same verdicts). */
  seed?: number;
  /** Why an experiment has no document, by experiment name (e.g. "not available in this forklab"). */
  absent?: Readonly<Record<string, string>>;
}

function hasExpectation(c: Check): c is Check & Expectation {
  return 'expect' in c;
}

export function judge(check: Check, ctx: JudgeContext): Judgement {
  if (hasExpectation(check)) return judgeExpectationCheck(check, ctx);
  switch (check.type) {
    case 'flat':
      return judgeFlat(check, ctx);
    case 'grows-linearly':
      return judgeGrowsLinearly(check, ctx);
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
  const base = { claimId: claim.id, article: claim.article, experiment: claim.experiment, kind: claim.kind, statement: claim.statement };
  try {
    const data = dataFor(docs, claim.experiment, opts.absent?.[claim.experiment]);
    const j = judge(claim.check, { data, kind: claim.kind, seed: opts.seed ?? 1 });
    const v: Verdict = {
      ...base,
      verdict: j.holds ? 'holds' : 'differs',
      measured: j.measured,
      published: j.published,
      factor: j.factor,
      detail: j.detail,
    };
    if (j.interval) v.interval = j.interval;
    return v;
  } catch (e) {
    // NotMeasurable: data missing; RangeError: the statistics could not be computed (e.g. a line through one point).
    if (e instanceof NotMeasurable || e instanceof RangeError)
      return { ...base, verdict: 'not-measurable', measured: null, published: publishedOf(claim.check), factor: null, detail: e.message };
    throw e;
  }
}

/** One verdict per claim, in the claims' order. */
export function evaluateClaims(docs: readonly RunDocument[], claims: readonly Claim[], opts: EvaluateOptions = {}): Verdict[] {
  return claims.map((c) => evaluateClaim(docs, c, opts));
}
