// A reproduction as a report (`forklab reproduce --html/--markdown`, `forklab report R<n>`): summary first —
// how many claims hold, differ, are inconclusive or not measurable, per article — then per article its headline
// figures beside this machine's, every verdict with its interval and detail, and the charts of its runs.
import type { RunDocument } from '../document/run.js';
import { GLOSSARY_NOTE } from './answer.js';
import { articleIntro } from '../reference/describe.js';
import type { ReproduceDocument } from '../claims/reproduction.js';
import type { Verdict } from '../claims/evaluate.js';
import type { FigureComparison } from '../claims/figures.js';
import { figureLabel, intervalsLine, verdictLabel } from './verdicts.js';
import { derivedFigure, gistOf, reasoningOf, sentence } from './verdict-lines.js';
import { inWords } from './in-words.js';
import { fmtFactor, fmtInUnit } from '../claims/format.js';
import type { Article, Published, Source } from '../reference/published.js';
import { chartsFor } from './charts.js';
import { publishedComparisons } from './judged.js';
import { escapeHtml, figureHtml, page, verdictsHtml, type VerdictItem } from './html-parts.js';
import { mdTable } from './markdown.js';
import { mdText } from './escape.js';

const VERDICTS = ['holds', 'differs', 'inconclusive', 'not-measurable'] as const;
const VERDICT_WORDS: Record<(typeof VERDICTS)[number], string> = { holds: 'hold', differs: 'differ', inconclusive: 'inconclusive', 'not-measurable': 'not measurable' };

interface ArticleView {
  article: Article;
  statuses: ReproduceDocument['experiments'];
  verdicts: Verdict[];
  headline: FigureComparison[];
  /** Every figure of the article this reproduction compared (the charts draw the published values at the run's configurations). */
  figures: FigureComparison[];
  runs: RunDocument[];
  /** The articles' figures, for the published values the charts draw at the run's configurations. */
  published: Published;
}

function articlesOf(doc: ReproduceDocument, runs: readonly RunDocument[], published: Published): ArticleView[] {
  return published.articles
    .filter((a) => doc.articles.includes(a.id))
    .map((a) => {
      const mine = (Array.isArray(a.experiment) ? a.experiment : [a.experiment]) as string[];
      return {
        article: a,
        statuses: doc.experiments.filter((s) => mine.includes(s.experiment)),
        verdicts: doc.verdicts.filter((v) => v.article === a.id),
        headline: doc.figures.filter((f) => f.article === a.id && f.headline),
        figures: doc.figures.filter((f) => f.article === a.id),
        runs: runs.filter((r) => mine.includes(r.experiment)),
        published,
      };
    });
}

/** A source beyond the articles, as a reproduction judged it: its verdicts, each naming it. */
interface SourceView {
  source: Source;
  statuses: ReproduceDocument['experiments'];
  verdicts: Verdict[];
}

function sourcesOf(doc: ReproduceDocument, published: Published): SourceView[] {
  return published.sources
    .filter((x) => doc.sources?.includes(x.id))
    .map((x) => ({
      source: x,
      statuses: doc.experiments.filter((s) => x.experiment.includes(s.experiment)),
      verdicts: doc.verdicts.filter((v) => v.source === x.id),
    }));
}

/** "pull request, 2026, https://…" (or why the address is not given). */
const sourceLine = (v: SourceView) =>
  `${v.source.kind.replace(/-/g, ' ')}, ${v.source.year}; ${v.source.address ?? `address ${v.source.addressNote ?? 'not confirmed'}`}; measured on: ${v.source.measuredOn}. ${v.statuses.map((s) => `${s.experiment}: ${s.state}`).join('; ')}`;

const count = (vs: readonly Verdict[], k: string) => vs.filter((v) => v.verdict === k).length;

/** The summary table: one row per article, one per source after them, then all of them. */
function summaryRows(views: readonly ArticleView[], all: readonly Verdict[], sources: readonly SourceView[] = []): string[][] {
  const row = (name: string, vs: readonly Verdict[]) => [name, String(vs.length), ...VERDICTS.map((k) => String(count(vs, k)))];
  return [
    ...views.map((v) => row(`${v.article.id} — ${v.article.titleEn}`, v.verdicts)),
    ...sources.map((v) => row(`source ${v.source.id}`, v.verdicts)),
    row(sources.length ? 'all articles and sources' : 'all articles', all),
  ];
}
const SUMMARY_HEADER = ['article', 'claims', ...VERDICTS.map((k) => VERDICT_WORDS[k])];

/** A verdict one line (the claim, this machine against the article) with its reasoning in sentences (the formula is in `judge --verbose`). */
function itemOf(v: Verdict, figures: readonly FigureComparison[], shared: readonly string[]): VerdictItem {
  return {
    verdict: v.verdict,
    label: verdictLabel(v),
    statement: v.statement,
    gist: gistOf(v, derivedFigure(figures, v.claimId)),
    reasoning: reasoningOf(v, false), // the summary's intervals line says where the drift comes from, once
    notes: v.notes.filter((n) => !shared.includes(n)).map((n) => sentence(inWords(n))),
    claimId: v.claimId,
    kind: v.kind,
  };
}

/** The notes every verdict of an article carries (a run's warning is a note on every claim that uses the run): said once. */
function sharedOf(vs: readonly Verdict[]): string[] {
  return vs.length < 2 ? [] : vs[0]!.notes.filter((n) => vs.every((v) => v.notes.includes(n)));
}

function figureRows(fs: readonly FigureComparison[]): string[][] {
  return fs.map((f) => [
    figureLabel(f),
    f.statistic === 'unspecified' ? 'not named (median here)' : f.statistic,
    fmtInUnit(f.published, f.unit),
    f.measured === null ? '—' : fmtInUnit(f.measured, f.unit),
    f.ratio === null ? '—' : fmtFactor(f.ratio),
    f.measured === null ? f.detail : '',
  ]);
}
const FIGURE_HEADER = ['figure', 'statistic', 'published', 'this machine', 'this ÷ published', 'why not measured'];

function runLine(doc: ReproduceDocument, runs: readonly RunDocument[]): string {
  const host = doc.hostname ?? runs[0]?.machine.hostname;
  const secs = (Date.parse(doc.finishedAt) - Date.parse(doc.startedAt)) / 1000;
  return [
    `${doc.preset === 'quick' ? 'quick preset (--quick)' : 'the articles’ settings'}`,
    host ? `on ${host}` : null,
    doc.label ? `label ${doc.label}` : null,
    `started ${doc.startedAt}`,
    Number.isFinite(secs) ? `${secs.toFixed(0)} s` : null,
    `seed ${doc.seed}`,
    `forklab ${doc.forklabVersion}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

// ------------------------------------------------------------------------------------------------- HTML

const esc = (s: string) => escapeHtml(s);
const th = (cells: readonly string[]) => `<tr>${cells.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr>`;
const isNum = (s: string) => /^[−\-–\d.,× %µsnkBM/]+$/.test(s) && /\d/.test(s);
const td = (cells: readonly string[]) => `<tr>${cells.map((c) => `<td${isNum(c) ? ' class="num"' : ''}>${esc(c)}</td>`).join('')}</tr>`;
const tableHtml = (header: readonly string[], rows: readonly string[][]) =>
  `<div class="scroll"><table>\n<thead>${th(header)}</thead>\n<tbody>\n${rows.map(td).join('\n')}\n</tbody>\n</table></div>`;

/** Those that differ first, then the open ones, those not measurable, those that hold (as a run's report lists them); claim order within each. */
const byVerdict = (vs: readonly Verdict[]) => (['differs', 'inconclusive', 'not-measurable', 'holds'] as const).flatMap((k) => vs.filter((v) => v.verdict === k));

function articleVerdictsHtml(v: ArticleView): string {
  const shared = sharedOf(v.verdicts);
  const notes = shared.length
    ? `\n<details class="fold"><summary>Notes on every verdict of this article (${shared.length})</summary><ul class="warnings">${shared.map((n) => `<li>${esc(sentence(inWords(n)))}</li>`).join('')}</ul></details>`
    : '';
  return verdictsHtml(byVerdict(v.verdicts).map((x) => itemOf(x, v.figures, shared))) + notes;
}

async function articleHtml(v: ArticleView): Promise<string> {
  const parts = [`<section id="article-${esc(v.article.id)}"><h2>Article ${esc(v.article.id)} — ${esc(v.article.titleEn)}</h2>`];
  parts.push(`<p class="note">${esc(`${articleIntro(v.article)} ${v.statuses.map((s) => `${s.experiment}: ${s.state}`).join('; ')}`)}</p>`);
  if (v.headline.length) parts.push('<h3>Headline figures beside this machine’s</h3>', tableHtml(FIGURE_HEADER, figureRows(v.headline)));
  parts.push('<h3>Verdicts</h3>', v.verdicts.length ? articleVerdictsHtml(v) : '<p class="note">No claim of this article was judged.</p>');
  const charts = v.runs.flatMap((r) => chartsFor(r, publishedComparisons(v.figures, v.published, r.experiment)));
  if (charts.length) {
    parts.push('<h3>Charts</h3>');
    for (const c of charts) parts.push(await figureHtml(c));
  }
  parts.push('</section>');
  return parts.join('\n');
}

function sourceHtml(v: SourceView): string {
  const parts = [`<section id="source-${esc(v.source.id)}"><h2>Source ${esc(v.source.id)} — ${esc(v.source.title)}</h2>`, `<p class="note">${esc(sourceLine(v))}</p>`];
  const items = byVerdict(v.verdicts).map((x) => ({ ...itemOf(x, [], []), statement: `${x.statement} (${v.source.id})` }));
  parts.push('<h3>Verdicts</h3>', items.length ? verdictsHtml(items, 'the source') : '<p class="note">No claim of this source was judged.</p>', '</section>');
  return parts.join('\n');
}

export async function reproductionHtml(doc: ReproduceDocument, runs: readonly RunDocument[], published: Published): Promise<string> {
  const views = articlesOf(doc, runs, published);
  const summary = [
    '<section id="summary"><h2>Summary</h2>',
    tableHtml(SUMMARY_HEADER, summaryRows(views, doc.verdicts, sourcesOf(doc, published))),
    '<p class="note">A claim holds when the whole 95 % interval of the measured quantity lies inside its band, differs when the whole interval lies outside, and is inconclusive when the interval straddles an edge. Shape claims should hold on any Linux machine; magnitude claims depend on the machine.</p>',
    ...(intervalsLine(doc.verdicts, doc.withinRun === true) ? [`<p class="note">${esc(intervalsLine(doc.verdicts, doc.withinRun === true))}</p>`] : []),
    `<p class="note">${esc(GLOSSARY_NOTE)}</p>`,
    '</section>',
  ].join('\n');
  const sources = sourcesOf(doc, published);
  const sections = [summary, ...(await Promise.all(views.map(articleHtml))), ...sources.map(sourceHtml)];
  const nav: [string, string][] = [
    ['summary', 'Summary'],
    ...views.map((v): [string, string] => [`article-${v.article.id}`, `Article ${v.article.id}`]),
    ...sources.map((v): [string, string] => [`source-${v.source.id}`, `Source ${v.source.id}`]),
  ];
  const footer = `Generated by forklab ${esc(doc.forklabVersion)}. The runs behind these verdicts are in the history (forklab history); their raw samples: forklab export RUN --csv.`;
  return page('forklab reproduction', esc(runLine(doc, runs)), nav, sections, footer);
}

// --------------------------------------------------------------------------------------------- Markdown

export function reproductionMarkdown(doc: ReproduceDocument, runs: readonly RunDocument[], published: Published): string {
  const views = articlesOf(doc, runs, published);
  const out = ['## forklab reproduction', '', mdText(runLine(doc, runs)), '', '### Summary', ''];
  const sources = sourcesOf(doc, published);
  out.push(mdTable({ header: SUMMARY_HEADER, rows: summaryRows(views, doc.verdicts, sources), leftAlign: [0] }), '', mdText(GLOSSARY_NOTE), '');
  const intervals = intervalsLine(doc.verdicts, doc.withinRun === true);
  if (intervals) out.push(mdText(intervals), '');
  for (const v of views) {
    out.push(`### Article ${mdText(v.article.id)} — ${mdText(v.article.titleEn)}`, '');
    out.push(mdText(`${articleIntro(v.article)} ${v.statuses.map((s) => `${s.experiment}: ${s.state}`).join('; ')}`), '');
    if (v.headline.length) out.push(mdTable({ header: FIGURE_HEADER, rows: figureRows(v.headline), leftAlign: [0, 1, 5] }), '');
    if (v.verdicts.length) {
      const shared = sharedOf(v.verdicts);
      const items = byVerdict(v.verdicts).map((x) => itemOf(x, v.figures, shared));
      out.push(
        mdTable({
          header: ['verdict', 'the claim', 'this machine against the article'],
          rows: items.map((x) => [x.label ?? x.verdict, x.statement, x.gist ?? '']),
          leftAlign: [0, 1, 2],
        }),
        '',
        '**Reasoning**',
        '',
        ...items.map(
          (x) => `- **${mdText(x.statement)}** ${mdText(x.label ?? x.verdict)} (\`${x.claimId}\`, ${x.kind}). ${[...x.reasoning, ...(x.notes ?? [])].map(mdText).join(' ')}`,
        ),
        '',
        ...(shared.length ? ['On every verdict of this article:', '', ...shared.map((n) => `- ${mdText(sentence(inWords(n)))}`), ''] : []),
      );
    } else out.push('No claim of this article was judged.', '');
  }
  // After the articles, the sources beyond them: every verdict names its source.
  for (const v of sources) {
    out.push(`### Source ${mdText(v.source.id)} — ${mdText(v.source.title)}`, '', mdText(sourceLine(v)), '');
    const items = byVerdict(v.verdicts).map((x) => itemOf(x, [], []));
    if (items.length)
      out.push(
        mdTable({
          header: ['verdict', 'the claim', 'source', 'this machine against the source'],
          rows: items.map((x) => [x.label ?? x.verdict, x.statement, v.source.id, x.gist ?? '']),
          leftAlign: [0, 1, 2, 3],
        }),
        '',
        ...items.map(
          (x) =>
            `- **${mdText(x.statement)}** (${mdText(v.source.id)}) ${mdText(x.label ?? x.verdict)} (\`${x.claimId}\`, ${x.kind}). ${[...x.reasoning, ...(x.notes ?? [])].map(mdText).join(' ')}`,
        ),
        '',
      );
    else out.push('No claim of this source was judged.', '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
