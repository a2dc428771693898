// The terminal summary `forklab reproduce` and `forklab judge` both print: per article, its headline figures
// beside the runs' and every claim's verdict, then the totals.
import pc from 'picocolors';
import { loadPublished } from '../reference/published.js';
import type { Judged } from '../claims/judge.js';
import { PLAIN, renderArticle, renderTotals, type ExperimentStatus, type Paints } from '../claims/render.js';

export function paintsFor(color: boolean | undefined): Paints {
  const on = color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  return on ? pc : PLAIN;
}

/** The summary as text: one section per judged article, then the totals and a footer line. */
export function renderSummary(judged: Judged, statuses: readonly ExperimentStatus[], c: Paints, footer: string): string {
  const p = loadPublished();
  const sections = p.articles
    .filter((a) => judged.articles.includes(a.id))
    .map((a) => {
      const mine = (Array.isArray(a.experiment) ? a.experiment : [a.experiment]) as string[];
      return renderArticle(
        a,
        statuses.filter((s) => mine.includes(s.experiment)),
        judged.figures.filter((f) => f.article === a.id),
        judged.verdicts.filter((v) => v.article === a.id),
        c,
      );
    });
  return `${sections.join('\n\n')}\n\n${renderTotals(judged.verdicts, c)}\n${c.dim(footer)}\n`;
}
