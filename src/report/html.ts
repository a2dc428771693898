// One self-contained HTML report of a run: inline CSS, charts as inline SVG drawn at write time, no script, no
// URL. What a reader looks at comes first: the run's conclusion with its main chart right under it, then the
// article's claims one line each (the reasoning folded), the figures beside the article's, the tables, and last
// the machine record and the raw data. Two runs together: compare.ts.
import type { RunDocument } from '../document/run.js';
import { mainChart, publishedChart } from './charts.js';
import { distributionChart } from './distribution.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { articleOf } from './groups.js';
import { GLOSSARY_NOTE, answerOf } from './answer.js';
import { getArticle } from '../reference/published.js';
import { articleIntro } from '../reference/describe.js';
import { COMPARISON_HEADER, RAW_DATA_NOTE, comparisonCells, machineEntries, witnessText } from './markdown.js';
import { resultsOf } from './results.js';
import { sentence } from './verdict-lines.js';
import {
  VERDICT_WORDS,
  badge,
  blocksHtml,
  conclusionHtml,
  dl,
  esc,
  figureHtml,
  footerHtml,
  page,
  runEntries,
  tableHtml,
  verdictsHtml,
  warningsHtml,
  withCode,
  type HtmlReportInput,
} from './html-parts.js';

export { CSS, escapeHtml, figureHtml, page, type HtmlReportInput } from './html-parts.js';

function publishedHtml(comparisons: readonly PublishedComparison[]): string {
  // One article per run report: named once above its figures, not on every row.
  const articles = [...new Set(comparisons.map((c) => (c.articleTitle ? `Article ${c.article}: ${c.articleTitle}` : `Article ${c.article ?? '?'}`)))];
  const one = articles.length === 1;
  const table = tableHtml({
    header: [...(one ? [] : ['article']), ...COMPARISON_HEADER],
    rows: comparisons.map((c) => [...(one ? [] : [c.articleTitle ? `${c.article} ${c.articleTitle}` : (c.article ?? '')]), ...comparisonCells(c)]),
    leftAlign: one ? [0, 1, 5] : [0, 1, 2, 6],
  });
  return `${one ? `<h3>${esc(articles[0]!)}</h3>\n` : ''}${table}`;
}

/** The verdicts counted, as badges: "Article 000's 18 claims here: [2 hold] [3 differ] [13 inconclusive]". */
function tallyHtml(article: string | null, verdicts: readonly ClaimVerdict[]): string {
  if (verdicts.length === 0) return '';
  const kinds = (['differs', 'inconclusive', 'not-measurable', 'holds'] as const).filter((k) => verdicts.some((v) => v.verdict === k));
  const counts = kinds.map((k) => badge(k, `${verdicts.filter((v) => v.verdict === k).length} ${k === 'holds' ? 'hold' : k === 'differs' ? 'differ' : VERDICT_WORDS[k]}`));
  const whose = article ? `Article ${esc(article)}’s ${verdicts.length} claims` : `${verdicts.length} claims`;
  return `<p class="tally">${whose} on this machine: ${counts.join(' ')} <a href="#verdicts">(each below)</a></p>`;
}

/** The article's claims: counted, the article introduced, then one line each with the reasoning folded, the notes once. */
export function answerHtml(doc: RunDocument, comparisons: readonly PublishedComparison[], verdicts: readonly ClaimVerdict[]): string {
  const article = articleOf(doc.experiment);
  const a = article ? getArticle(article) : undefined;
  const ans = answerOf(article ?? null, verdicts, comparisons);
  const items = ans.lines.map((l) => ({
    verdict: l.verdict,
    statement: l.claim.statement,
    gist: l.claim.gist,
    reasoning: l.claim.reasoning ?? [sentence(l.claim.detail)],
    notes: (l.claim.notes ?? []).filter((n) => !ans.sharedNotes.includes(n)).map(sentence),
    claimId: l.claim.claimId,
  }));
  const shared = ans.sharedNotes.length
    ? `<details class="fold"><summary>Notes on every verdict (${ans.sharedNotes.length})</summary><ul class="warnings">${ans.sharedNotes.map((n) => `<li>${esc(sentence(n))}</li>`).join('')}</ul></details>`
    : '';
  return [
    `<p class="lead">${esc(ans.headline)}</p>`,
    a ? `<p class="note">${esc(articleIntro(a))}</p>` : '',
    verdictsHtml(items),
    '<p class="note">Click a claim for the reasoning: its interval against the band, the drift between runs it includes, and what would settle it.</p>',
    `<p class="note">Noise during the run: ${esc(witnessText(doc))}.</p>`,
    shared,
    ans.figures ? `<p class="note">${esc(ans.figures)}</p>` : '',
    `<p class="note">${esc(GLOSSARY_NOTE)}</p>`,
  ]
    .filter(Boolean)
    .join('\n');
}

/** The HTML report of one run, or of two runs together when `compareWith` is given. */
export async function renderHtml(input: HtmlReportInput): Promise<string> {
  if (input.compareWith) {
    const { renderCompareHtml } = await import('./compare.js');
    return renderCompareHtml(input, input.compareWith);
  }
  return renderSingle(input);
}

async function renderSingle(input: HtmlReportInput): Promise<string> {
  const { doc } = input;
  const comparisons = input.comparisons ?? [];
  const verdicts = input.verdicts ?? [];
  const article = articleOf(doc.experiment);
  const blocks = resultsOf(doc);
  const sections: string[] = [];
  // What the run found, with its main chart right under it; then the claims; then the article's figures; then the tables.
  const main = mainChart(doc, comparisons);
  const lead = [conclusionHtml(blocks), tallyHtml(article ?? null, verdicts), main ? await figureHtml(main) : ''].filter(Boolean);
  sections.push(`<section id="conclusion">\n${lead.join('\n')}\n</section>`);
  if (verdicts.length) sections.push(`<section id="verdicts"><h2>The article’s claims on this machine</h2>\n${answerHtml(doc, comparisons, verdicts)}</section>`);
  if (comparisons.length) {
    const ratios = publishedChart(comparisons);
    // The chart says it at a glance; the numbers are one click away.
    const table = `<details class="fold"><summary>The ${comparisons.length} figures in numbers</summary>\n${publishedHtml(comparisons)}</details>`;
    sections.push(`<section id="published"><h2>Beside the article</h2>\n${ratios ? await figureHtml(ratios) : ''}\n${table}</section>`);
  }
  const dist = distributionChart(doc);
  sections.push(`<section id="results"><h2>Results</h2>\n${blocksHtml(blocks)}\n${dist ? await figureHtml(dist) : ''}</section>`);
  sections.push(
    `<section id="machine"><h2>Machine and run</h2>\n<div class="side"><div>${dl(machineEntries(doc.machine, true))}</div><div>${dl(runEntries(doc))}</div></div></section>`,
  );
  sections.push(`<section id="warnings"><h2>Warnings</h2>\n${warningsHtml(doc)}</section>`);
  sections.push(`<section id="raw"><h2>Raw data</h2>\n<p>${withCode(RAW_DATA_NOTE)}</p></section>`);
  const title = `forklab ${esc(doc.experiment)} on ${esc(doc.machine.hostname)}`;
  const sub = `${esc(doc.startedAt)} · ${esc(doc.machine.kernel)} · ${doc.complete ? 'complete' : 'incomplete'}${article ? ` · article ${esc(article)}` : ''}`;
  const nav: [string, string][] = [
    ...(verdicts.length ? [['verdicts', 'Claims'] as [string, string]] : []),
    ...(comparisons.length ? [['published', 'Beside the article'] as [string, string]] : []),
    ['results', 'Tables'],
    ['machine', 'Machine'],
    ['warnings', `Warnings (${doc.warnings.length})`],
    ['raw', 'Raw data'],
  ];
  return page(title, sub, nav, sections, footerHtml(input.forklabVersion ?? doc.forklabVersion, input.generatedAt ?? new Date()));
}
