// A verdict as a person scans it: one line (the verdict, the claim, this machine against the article) and its
// reasoning in whole sentences, folded away (<details> in HTML; after the list in Markdown). Shared by the report
// of a run and the report of a reproduction, so both say a verdict the same way.
import type { Verdict } from '../claims/evaluate.js';
import type { FigureComparison } from '../claims/figures.js';
import { driftLine } from './verdicts.js';
import { inWords } from './in-words.js';
import { fmtNumber, fmtValue } from './labels.js';

export type VerdictValue = Verdict['verdict'];

/** Words that start a sentence with a small letter on purpose: calls and settings. Abbreviations of three letters
 * or fewer (rss, pte, a method's or an experiment's short name) are kept as written too, and so is a word joined
 * to the next by a non-letter ("fork+exec": the first pattern stops at a letter). */
const KEEP_CASE = new Set(['posix', 'madvise', 'mmap', 'clone']);
const keepCase = (w: string) => w.length <= 3 || KEEP_CASE.has(w);

/** One sentence: its first word capitalised (unless a name), a full stop at its end unless it has one. */
export function sentence(s: string): string {
  const t = s.trim();
  if (t === '') return t;
  const first = /^[a-z]+(?=[\s:,])/.exec(t)?.[0];
  const capital = first && !keepCase(first) ? `${first[0]!.toUpperCase()}${t.slice(1)}` : t;
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** Parts said one after another, each a sentence of its own ("… inside the band. Between runs here: …"). */
export const sentences = (parts: readonly (string | null | undefined)[]): string[] => parts.filter((p): p is string => !!p && p.trim() !== '').map(sentence);

/** The first clause of a text, at the top level of its brackets: up to the first "; ", with "(…)" asides left out. */
function firstClause(s: string): { clause: string; more: boolean } {
  let depth = 0;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '(' || c === '[') depth++;
    if (depth === 0 && c === ';') return { clause: out.trim(), more: true };
    if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    out += c;
  }
  return { clause: out.trim(), more: false };
}

const withoutAsides = (s: string) => s.replace(/\s*\((?:[^()]|\([^()]*\))*\)/g, '').trim();

/** At most `max` characters, cut after a word outside brackets (never inside "[95 % CI …]"), with an ellipsis when cut. */
function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  let depth = 0;
  let cut = -1;
  for (let i = 0; i < max; i++) {
    const c = s[i]!;
    if (c === '(' || c === '[') depth++;
    if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    if (depth === 0 && c === ' ') cut = i;
  }
  return `${s.slice(0, cut > max / 3 ? cut : max).replace(/[,;:]$/, '')} …`;
}

/** The figure a claim computes (a ratio, a slope, a per-entry cost), where the claims engine compared one with the article's. */
export function derivedFigure(figures: readonly FigureComparison[], claimId: string): FigureComparison | undefined {
  return figures.find((f) => f.detail.startsWith(`as computed by claim ${claimId}:`) && f.measured !== null);
}

const bound = (x: number) => (Number.isFinite(x) ? fmtNumber(x) : 'unbounded');

/** "[4.65–9.94×]", "[195–438 ns/entry]": an interval with its unit once. */
function intervalText(low: number, high: number, unit: string): string {
  const u = fmtValue(1, unit).replace(/^1/, '');
  return `[${bound(low)}–${bound(high)}${Number.isFinite(high) ? u : ''}]`;
}

/**
 * This machine against the article in one short phrase. With a figure the claim computes: both values in its unit,
 * this machine's with its 95 % interval ("38.7× [9.10–unbounded] · article 16×"); otherwise the first clause of the
 * verdict's own words, shortened.
 */
export function gistOf(v: Pick<Verdict, 'plain' | 'detail' | 'measured' | 'interval' | 'source'>, figure?: FigureComparison): string {
  const text = inWords(v.plain ?? v.detail).replace(/^this machine:\s*/i, '');
  if (figure && figure.measured !== null) {
    const scale = v.measured !== null && v.measured !== 0 ? figure.measured / v.measured : 1;
    // no interval, or one with a lower end only (a ratio whose denominator is not told from 0)
    const from = /\[95 % CI ([^\s\]–]+)–unbounded/.exec(text);
    const unbounded = from ? ` [${from[1]}–unbounded]` : /\[95 % CI unbounded/.test(text) ? ' [unbounded]' : '';
    const iv = v.interval ? ` ${intervalText(v.interval.low * scale, v.interval.high * scale, figure.unit)}` : unbounded;
    return `${fmtValue(figure.measured, figure.unit)}${iv} · article ${fmtValue(figure.published, figure.unit)}`;
  }
  // Several values compared as one ("fork-exec: 12.1 ms; vfork-exec: 5.38 ms; the largest is 2.24× … the smallest"): the comparison.
  const spread = /the largest is ([^;]*?) the smallest/.exec(text);
  const { clause, more } = spread ? { clause: `largest ÷ smallest ${spread[1]}`, more: false } : firstClause(text);
  // the published value, named by whose it is (a verdict stored before sources were named said "the article" for both)
  const by = v.source !== undefined ? 'source' : 'article';
  const published = /\bthe (?:article|source):?\s+(-?[\d.,]+\s?[^\s,;)]*)/.exec(text);
  const short = shorten(withoutAsides(clause), 100);
  const tail = published && !short.includes(by) ? ` · ${by} ${published[1]}` : more && !short.endsWith('…') ? ' …' : '';
  return `${short}${tail}`;
}

/**
 * The reasoning of a verdict in sentences: its numbers against the band, the drift its intervals include, what would
 * settle it. `withSource`: whether the drift's origin (the stated prior, or the earlier runs it was learnt from) is
 * said too; a report says it once, not per verdict.
 */
export function reasoningOf(v: Pick<Verdict, 'plain' | 'detail' | 'drift' | 'withinRun' | 'alone' | 'verdict' | 'settle'>, withSource = true): string[] {
  return sentences([inWords(v.plain ?? v.detail), v.drift ? inWords(driftLine(v as Verdict, withSource)) : null, v.settle ? `to settle it: ${inWords(v.settle)}` : null]);
}
