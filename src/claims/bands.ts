// The four outcomes of a comparison with an interval, the bands claims are judged against, and what would
// settle an inconclusive one. A band keeps the claim's direction: "about 1.61× as much" never reaches down
// to 1 or below (docs/published-figures.md, "Bands").
import type { Expectation } from '../reference/published.js';
import { fmtInUnit } from './format.js';

export type Outcome = 'holds' | 'differs' | 'inconclusive';

/** Who published the value a claim is judged against, as a verdict's words name it. */
export type PublishedBy = 'the article' | 'the source';

export interface Range {
  low: number;
  high: number;
}

/**
 * holds: the whole interval strictly inside the band; differs: entirely outside; inconclusive: across an edge, or
 * touching one. An edge is where the claim stops being true: a value on it (readings of integer kB whose median
 * lands exactly there, say) cannot tell which side the truth is on, so it never holds.
 */
export function against(iv: Range, [lo, hi]: readonly [number, number]): Outcome {
  if (iv.low > lo && iv.high < hi) return 'holds';
  if (iv.high < lo || iv.low > hi) return 'differs';
  return 'inconclusive';
}

/** Several conditions that must all hold: one that differs decides; otherwise any inconclusive one does. */
export function allOf(outcomes: readonly Outcome[]): Outcome {
  if (outcomes.includes('differs')) return 'differs';
  return outcomes.every((o) => o === 'holds') ? 'holds' : 'inconclusive';
}

/**
 * The band of an expectation. approx: published ×/÷ factor, or, with tolerance.of = "excess", a tolerance on
 * the ratio minus one (1 + (published − 1) ×/÷ factor), which keeps "costs more" above 1.
 */
export function band(e: Expectation): [number, number] {
  switch (e.expect) {
    case 'approx':
      if (e.tolerance.of === 'excess') return [1 + (e.published - 1) / e.tolerance.factor, 1 + (e.published - 1) * e.tolerance.factor];
      return [e.published / e.tolerance.factor, e.published * e.tolerance.factor];
    case 'at-least':
      return [e.limit, Infinity];
    case 'at-most':
      return [-Infinity, e.limit];
    case 'between':
      return [e.min, e.max];
  }
}

/**
 * The band in words: with its formula (for --verbose and the stored detail), or plainly (the published value and
 * the range that agrees), the value said as `by`'s: "the article" for an article's claim, "the source" for a source's.
 */
export function describeBand(e: Expectation, unit: string, plain = false, by: PublishedBy = 'the article'): string {
  const u = (x: number) => fmtInUnit(x, unit);
  const pub = e.published !== undefined && e.expect !== 'approx' ? ` (${plain ? `${by}: ` : 'published '}${u(e.published)})` : '';
  switch (e.expect) {
    case 'approx': {
      const [lo, hi] = band(e);
      if (plain) return `${by}: ${u(e.published)}, agreeing from ${u(lo)} to ${u(hi)}`;
      const how = e.tolerance.of === 'excess' ? `1 + (${u(e.published)} − 1) ×/÷ ${e.tolerance.factor}` : `${u(e.published)} ×/÷ ${e.tolerance.factor}`;
      return `published ${u(e.published)}, band ${how} = ${u(lo)}–${u(hi)}`;
    }
    case 'at-least':
      return `at least ${u(e.limit)}${pub}`;
    case 'at-most':
      return `at most ${u(e.limit)}${pub}`;
    case 'between':
      return `between ${u(e.min)} and ${u(e.max)}${pub}`;
  }
}

/** Where an interval lies relative to a band, in words. */
export function placement(iv: Range, [lo, hi]: readonly [number, number], fmt: (x: number) => string): string {
  if (!Number.isFinite(iv.low) && !Number.isFinite(iv.high)) return 'no band can contain an unbounded interval';
  const o = against(iv, [lo, hi]);
  // Identical readings (a file's size, a page count) give an interval of no width: say so, not "the whole interval".
  const what = iv.low === iv.high ? 'the value (the same in every resample)' : 'the whole interval';
  if (o === 'holds') return `${what} lies inside the band`;
  if (o === 'differs') return iv.low > hi ? `${what} lies above the band` : `${what} lies below the band`;
  const edges = [iv.low <= lo && iv.high >= lo ? fmt(lo) : null, iv.high >= hi && iv.low <= hi ? fmt(hi) : null].filter(Boolean);
  if (iv.low === iv.high) return `the value lies on the band's edge at ${edges.join(' and ')}, where no reading can tell which side the truth is on`;
  return `the interval ${iv.low === lo || iv.high === hi ? 'reaches' : 'straddles'} the band's edge at ${edges.join(' and ')}`;
}

/** What would settle an inconclusive verdict, given how many repeats the data have and whether their probes were already pinned. */
export function settleAdvice(minRepeats: number | null, pinned = false): string {
  if (minRepeats !== null && minRepeats < 2)
    return `one repeat only, so the interval cannot show run-to-run swings: rerun with --repeats 3 or more (reproduce without --quick)${pinned ? ' or on a quieter machine' : ', on a quieter machine or with --pin 0'}`;
  return `more repeats (reproduce without --quick, or the experiment with more --repeats)${pinned ? ' or a quieter machine' : ', a quieter machine, or --pin 0'} would narrow the interval`;
}
