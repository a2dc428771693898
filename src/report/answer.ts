// What a report says first: the answer. How many of the article's claims hold on this machine, which differ and
// by how much, which stayed open and why, how this machine's figures compare with the article's, and the notes
// that apply to every verdict, said once. Also: the claims engine's notes in the words a user types.
import { getArticle } from '../reference/published.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { fmtNumber } from './labels.js';

/** Where every report points for PTE, PMD, THP, RSS, CoW, VMA and PSI. */
export const GLOSSARY_NOTE = 'Terms (PTE, PMD, THP, RSS, CoW, VMA, PSI) are explained in docs/glossary.md, shipped with forklab.';

export interface Answer {
  /** "Of 17 claims of article 000 “…”, 3 hold, 5 differ, 4 are inconclusive and 5 cannot be judged from this run." */
  headline: string;
  /** One line per claim that differs or stayed open, in words, with its figures. */
  lines: { verdict: ClaimVerdict['verdict']; claim: ClaimVerdict; text: string }[];
  /** How this machine's figures compare with the article's: the range of this ÷ published. */
  figures: string | null;
  /** Notes that apply to more than one verdict (a run's noise warning, say), each once. */
  sharedNotes: string[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The answer of a report on one article's claims. */
export function answerOf(article: string | null, verdicts: readonly ClaimVerdict[], comparisons: readonly PublishedComparison[]): Answer {
  const a = article ? getArticle(article) : undefined;
  const n = (k: ClaimVerdict['verdict']) => verdicts.filter((v) => v.verdict === k).length;
  const of = a ? `article ${a.id} (${a.titleEn})` : article ? `article ${article}` : 'the articles';
  const headline = verdicts.length
    ? `Of ${plural(verdicts.length, 'claim', 'claims')} of ${of}, on this machine ${plural(n('holds'), 'holds', 'hold')}, ${plural(n('differs'), 'differs', 'differ')}, ` +
      `${plural(n('inconclusive'), 'is inconclusive', 'are inconclusive')} and ${n('not-measurable')} cannot be judged from this run.`
    : `No claim of ${of} could be judged on this run.`;
  const counts = new Map<string, number>();
  for (const v of verdicts) for (const note of v.notes ?? []) counts.set(note, (counts.get(note) ?? 0) + 1);
  const sharedNotes = [...counts].filter(([, c]) => c > 1 || verdicts.length === 1).map(([note]) => note);
  const order: ClaimVerdict['verdict'][] = ['differs', 'inconclusive', 'not-measurable', 'holds'];
  const word = { holds: 'holds', differs: 'differs', inconclusive: 'open', 'not-measurable': 'not judged' } as const;
  const lines = order.flatMap((k) => verdicts.filter((v) => v.verdict === k).map((v) => ({ verdict: k, claim: v, text: `${word[k]}: ${v.statement} — ${v.detail}` })));
  const ratios = comparisons.map((c) => c.measuredValue / c.publishedValue).filter((r) => Number.isFinite(r) && r > 0);
  const figures = ratios.length
    ? `This machine ÷ the article over ${plural(ratios.length, 'figure', 'figures')}: from ${fmtNumber(Math.min(...ratios))}× to ${fmtNumber(Math.max(...ratios))}×` +
      ` (1× is the article's value; the shapes the claims test matter more than magnitudes, which differ by machine).`
    : null;
  return { headline, lines, figures, sharedNotes };
}
