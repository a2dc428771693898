// The terminal summary `forklab reproduce` and `forklab judge` both print: per article, its headline figures
// beside the runs' and every claim's verdict, after the totals.
import { articleIntro } from '../reference/describe.js';
import { loadPublished } from '../reference/published.js';
import type { Judged } from '../claims/judge.js';
import type { ExperimentStatus } from '../claims/reproduction.js';
import { renderArticle, renderSource, renderTotals, saidOnce, type Paints } from './verdicts.js';

/** The summary as text: the totals and one line per article first, then one section per judged article, then a footer line. */
export function renderSummary(judged: Judged, statuses: readonly ExperimentStatus[], c: Paints, footer: string, verbose = false): string {
  const p = loadPublished();
  // What several verdicts would repeat word for word (the drift prior, the same advice) is said once, above them.
  const once = saidOnce(judged.verdicts);
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
        verbose,
        once.said,
      );
    });
  // After the articles, the sources beyond them: one section each, every verdict naming its source.
  const sources = p.sources.filter((x) => judged.sources?.includes(x.id));
  for (const x of sources)
    sections.push(
      renderSource(
        x,
        statuses.filter((s) => x.experiment.includes(s.experiment)),
        judged.verdicts.filter((v) => v.source === x.id),
        c,
        verbose,
        once.said,
      ),
    );
  const count = (vs: typeof judged.verdicts, k: string) => vs.filter((v) => v.verdict === k).length;
  const perArticle = p.articles
    .filter((a) => judged.articles.includes(a.id))
    .map((a) => {
      const vs = judged.verdicts.filter((v) => v.article === a.id);
      return `  ${a.id} ${a.titleEn}: ${count(vs, 'holds')} hold, ${count(vs, 'differs')} differ, ${count(vs, 'inconclusive')} inconclusive, ${count(vs, 'not-measurable')} not measurable`;
    });
  for (const x of sources) {
    const vs = judged.verdicts.filter((v) => v.source === x.id);
    perArticle.push(
      `  source ${x.id}: ${count(vs, 'holds')} hold, ${count(vs, 'differs')} differ, ${count(vs, 'inconclusive')} inconclusive, ${count(vs, 'not-measurable')} not measurable`,
    );
  }
  // Which articles these are (title, series, what they measured with), once, for a reader who has not read them.
  const intros = p.articles.filter((a) => judged.articles.includes(a.id)).map((a) => c.dim(`  ${articleIntro(a)}`));
  const glossary = c.dim('  Terms (PTE, PMD, THP, RSS, CoW, VMA, PSI): docs/glossary.md');
  // The summary first: the totals and one line per article; then the articles introduced; then each article in full.
  const notes = once.lines.length ? `\n${once.lines.map((l) => c.dim(l)).join('\n')}\n` : '';
  return `${renderTotals(judged.verdicts, c, judged.withinRun === true)}\n${perArticle.join('\n')}\n${notes}\n${intros.join('\n')}\n${glossary}\n\n${sections.join('\n\n')}\n\n${c.dim(footer)}\n`;
}
