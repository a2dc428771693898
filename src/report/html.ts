// One self-contained HTML report: inline CSS, charts as inline SVG drawn at write time, no script, no URL.
// Every string that comes from the run (machine record, parameters, warnings, series names) is escaped.
import type { RunDocument } from '../document/run.js';
import { renderSvg } from './svg.js';
import { chartsFor, compareChart, publishedCharts, type ChartDef } from './charts.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { articleOf } from './groups.js';
import { GLOSSARY_NOTE, answerOf } from './answer.js';
import { getArticle } from '../reference/published.js';
import { articleIntro } from '../reference/describe.js';
import { COMPARISON_HEADER, RAW_DATA_NOTE, compareTable, comparisonCells, machineEntries, witnessText, type ReportTable } from './markdown.js';
import { resultsOf } from './results.js';
import { asciiChart } from './ascii-chart.js';
import { svgBars } from './bar-chart.js';
import type { Block } from '../experiments/view.js';
import { machineLabel, paramFlags } from './labels.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside HTML elements and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const esc = (v: unknown) => escapeHtml(v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** `code` spans from backticks in our own notes; everything else escaped. */
const withCode = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

export interface HtmlReportInput {
  doc: RunDocument;
  /** A second run: both are shown together (machines and tables side by side, one chart with the run as colour). */
  compareWith?: RunDocument;
  /** Names of the two runs in a comparison (default: their run ids, or A and B). */
  labels?: [string, string];
  comparisons?: readonly PublishedComparison[];
  verdicts?: readonly ClaimVerdict[];
  /** Time printed in the footer (default: now). */
  generatedAt?: Date;
  forklabVersion?: string;
}

export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:1.7em;margin:0 0 4px}h2{font-size:1.3em;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:20px 0 6px}
.sub{color:var(--muted);margin:0}
nav a{margin-right:14px;color:#0969da;text-decoration:none}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 18px;margin:0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:6px 0 10px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:4px 9px;vertical-align:top}
th{background:var(--soft);text-align:left}
td.num{text-align:right;white-space:nowrap}
.scroll{overflow-x:auto}
.note{color:var(--muted);font-size:.92em}
.conclusion{font-size:1.15em;font-weight:600;line-height:1.5;margin:.8em 0}
.lead{font-size:1.15em;font-weight:600}
ul.answer{padding-left:1.2em}ul.answer li{margin:.35em 0}
.warnings li{margin:4px 0}
.warnings code,.badge{font-size:.85em}
code{background:var(--soft);padding:1px 4px;border-radius:4px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
figure.chart{margin:12px 0 22px;overflow-x:auto}
figure.chart svg{max-width:100%;height:auto}
figcaption{color:var(--muted);font-size:.92em;margin-top:4px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;color:#fff;font-weight:600;white-space:nowrap}
.badge.holds{background:#1a7f37}.badge.differs{background:#cf222e}.badge.not-measurable{background:#6e7781}.badge.inconclusive{background:#9a6700}
.side{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:0 28px}
tr.differs td{background:#fff8c5}
footer{margin-top:40px;color:var(--muted);font-size:.85em}
`;

function tableHtml(t: Pick<ReportTable, 'header' | 'rows' | 'leftAlign'>, rowClass?: (r: string[]) => string): string {
  const left = new Set(t.leftAlign);
  const head = `<tr>${t.header.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr>`;
  const body = t.rows
    .map((r) => {
      const cls = rowClass?.(r);
      return `<tr${cls ? ` class="${cls}"` : ''}>${r.map((c, i) => `<td${left.has(i) ? '' : ' class="num"'}>${esc(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table></div>`;
}

/** An experiment's view as HTML: the same blocks the terminal and the Markdown report show. */
function blocksHtml(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'conclusion') out.push(`<p class="conclusion">${b.lines.map(esc).join('<br>\n')}</p>`);
    else if (b.kind === 'heading') out.push(`<h3>${esc(b.text)}</h3>`);
    else if (b.kind === 'text') {
      if (b.text !== '') out.push(`<p>${esc(b.text)}</p>`);
    } else if (b.kind === 'note') out.push(`<p class="note">${esc(b.text)}</p>`);
    else if (b.kind === 'table') out.push(tableHtml(b));
    else if (b.kind === 'bar-chart') out.push(`<figure class="chart bars">\n${svgBars(b)}\n</figure>`);
    else out.push(`<pre>${esc(asciiChart(b.points, { width: b.width, height: b.height, color: false, order: b.order }))}</pre>`);
  }
  return out.join('\n');
}

function reportTableHtml(t: ReportTable): string {
  return `<h3>${esc(t.title)}</h3>\n${tableHtml(t)}${t.note ? `\n<p class="note">${esc(t.note)}</p>` : ''}`;
}

export async function figureHtml(c: ChartDef): Promise<string> {
  const svg = await renderSvg(c.spec);
  return `<figure class="chart" id="chart-${esc(c.id)}" data-chart="${esc(c.id)}">\n${svg}\n<figcaption>${esc(c.caption)}</figcaption>\n</figure>`;
}

const dl = (entries: [string, string][]) => `<dl>\n${entries.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('\n')}\n</dl>`;

function runEntries(doc: RunDocument): [string, string][] {
  const article = articleOf(doc.experiment);
  return [
    ['experiment', article ? `${doc.experiment} (article ${article})` : doc.experiment],
    ['run id', doc.runId ?? 'not stored (written with --json)'],
    ['started', doc.startedAt],
    ['duration', `${(doc.durationMs / 1000).toFixed(1)} s`],
    ['complete', doc.complete ? 'yes' : 'no: cancelled, or a probe failed'],
    ['forklab', doc.forklabVersion],
    ...(doc.label ? [['label', doc.label] as [string, string]] : []),
    ['load before / after', `${doc.load.before.loadAverage.join(' ')} / ${doc.load.after.loadAverage.join(' ')}`],
    ['noise during the run', witnessText(doc)],
    ...paramFlags(doc),
  ];
}

function warningsHtml(doc: RunDocument): string {
  if (doc.warnings.length === 0) return '<p class="note">None.</p>';
  return `<ul class="warnings">\n${doc.warnings.map((w) => `<li><code>${esc(w.code)}</code> ${esc(w.message)}</li>`).join('\n')}\n</ul>`;
}

export function page(title: string, sub: string, nav: [string, string][], sections: string[], footer: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header><h1>${title}</h1><p class="sub">${sub}</p>
<nav>${nav.map(([id, label]) => `<a href="#${id}">${label}</a>`).join('')}</nav></header>
${sections.join('\n')}
<footer>${footer}</footer>
</main>
</body>
</html>
`;
}

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

const VERDICT_WORDS = { holds: 'holds', differs: 'differs', inconclusive: 'inconclusive', 'not-measurable': 'not measurable' } as const;

/** The answer first: the verdicts counted and each in words (differs, open, not judged, holds), the notes once. */
export function answerHtml(doc: RunDocument, comparisons: readonly PublishedComparison[], verdicts: readonly ClaimVerdict[]): string {
  const article = articleOf(doc.experiment);
  const a = article ? getArticle(article) : undefined;
  const ans = answerOf(article ?? null, verdicts, comparisons);
  const items = ans.lines.map((l) => {
    const v = l.claim;
    const own = (v.notes ?? []).filter((n) => !ans.sharedNotes.includes(n));
    return `<li><span class="badge ${l.verdict}">${VERDICT_WORDS[l.verdict]}</span> ${esc(v.statement)} <span class="note">— ${esc(v.detail)}${own.length ? ` ${esc(own.join(' '))}` : ''} <code>${esc(v.claimId)}</code></span></li>`;
  });
  return [
    `<p class="lead">${esc(ans.headline)}</p>`,
    a ? `<p class="note">${esc(articleIntro(a))}</p>` : '',
    items.length ? `<ul class="answer">\n${items.join('\n')}\n</ul>` : '',
    ans.figures ? `<p>${esc(ans.figures)}</p>` : '',
    `<p class="note">Noise during the run: ${esc(witnessText(doc))}.${ans.sharedNotes.length ? ` On every verdict: ${esc(ans.sharedNotes.join(' '))}` : ''}</p>`,
    `<p class="note">${esc(GLOSSARY_NOTE)}</p>`,
  ]
    .filter(Boolean)
    .join('\n');
}

function footer(input: HtmlReportInput): string {
  const v = input.forklabVersion ?? input.doc.forklabVersion;
  return `Written by forklab ${esc(v)} at ${esc((input.generatedAt ?? new Date()).toISOString())}. Self-contained: no script, no font, no link outside this file.`;
}

/** The HTML report of one run, or of two runs together when `compareWith` is given. */
export async function renderHtml(input: HtmlReportInput): Promise<string> {
  return input.compareWith ? renderCompare(input, input.compareWith) : renderSingle(input);
}

async function renderSingle(input: HtmlReportInput): Promise<string> {
  const { doc } = input;
  const comparisons = input.comparisons ?? [];
  const verdicts = input.verdicts ?? [];
  const sections: string[] = [];
  // The answer, then the figures beside the article's, then the charts, then the machine record and raw details.
  sections.push(`<section id="answer"><h2>The answer</h2>\n${answerHtml(doc, comparisons, verdicts)}</section>`);
  const published: string[] = [];
  if (comparisons.length) {
    published.push(publishedHtml(comparisons));
    for (const c of publishedCharts(comparisons)) published.push(await figureHtml(c));
  } else {
    published.push('<p class="note">No published figure matches a configuration of this run (the articles measured other sizes or other statistics).</p>');
  }
  sections.push(`<section id="published"><h2>Beside the article</h2>\n${published.join('\n')}</section>`);
  const results: string[] = [blocksHtml(resultsOf(doc))];
  for (const c of chartsFor(doc, comparisons)) results.push(await figureHtml(c));
  sections.push(`<section id="results"><h2>Results</h2>\n${results.join('\n')}</section>`);
  sections.push(
    `<section id="machine"><h2>Machine and run</h2>\n<div class="side"><div>${dl(machineEntries(doc.machine, true))}</div><div>${dl(runEntries(doc))}</div></div></section>`,
  );
  sections.push(`<section id="warnings"><h2>Warnings</h2>\n${warningsHtml(doc)}</section>`);
  sections.push(`<section id="raw"><h2>Raw data</h2>\n<p>${withCode(RAW_DATA_NOTE)}</p></section>`);
  const title = `forklab ${esc(doc.experiment)} on ${esc(doc.machine.hostname)}`;
  const sub = `${esc(doc.startedAt)} · ${esc(doc.machine.kernel)} · ${doc.complete ? 'complete' : 'incomplete'}`;
  const nav: [string, string][] = [
    ['answer', 'Answer'],
    ['published', 'Beside the article'],
    ['results', 'Results'],
    ['machine', 'Machine'],
    ['warnings', `Warnings (${doc.warnings.length})`],
    ['raw', 'Raw data'],
  ];
  return page(title, sub, nav, sections, footer(input));
}

async function renderCompare(input: HtmlReportInput, b: RunDocument): Promise<string> {
  const a = input.doc;
  const labels: [string, string] = input.labels ?? (a.runId && b.runId && a.runId !== b.runId ? [a.runId, b.runId] : ['A', 'B']);
  const sections: string[] = [];
  const ma = machineEntries(a.machine, true);
  const mb = new Map(machineEntries(b.machine, true));
  const machineRows = ma.map(([k, v]) => [k, v, mb.get(k) ?? '—']);
  const volatile = new Set(['load average', machineLabel('collectedAt'), machineLabel('cpuPressure'), 'memory']);
  sections.push(
    `<section id="machine"><h2>Machines</h2>\n<p class="note">Rows where the machines differ are highlighted (load, pressure and free memory always differ).</p>\n` +
      tableHtml({ header: ['', labels[0], labels[1]], rows: machineRows, leftAlign: [0, 1, 2] }, (r) => (r[1] !== r[2] && !volatile.has(r[0]!) ? 'differs' : '')) +
      `<div class="side"><div><h3>${esc(labels[0])}</h3>${dl(runEntries(a))}</div><div><h3>${esc(labels[1])}</h3>${dl(runEntries(b))}</div></div></section>`,
  );
  sections.push(
    `<section id="warnings"><h2>Warnings</h2>\n<div class="side"><div><h3>${esc(labels[0])}</h3>${warningsHtml(a)}</div><div><h3>${esc(labels[1])}</h3>${warningsHtml(b)}</div></div></section>`,
  );
  const results: string[] = [];
  if (a.experiment === b.experiment) {
    results.push(reportTableHtml(compareTable(a, b, labels)));
    const chart = compareChart(a, b, labels);
    if (chart) results.push(await figureHtml(chart));
  } else {
    results.push(`<p class="note">The runs are of different experiments (${esc(a.experiment)}, ${esc(b.experiment)}): their tables follow side by side.</p>`);
  }
  results.push(`<div class="side"><div><h3>${esc(labels[0])}</h3>${blocksHtml(resultsOf(a))}</div>` + `<div><h3>${esc(labels[1])}</h3>${blocksHtml(resultsOf(b))}</div></div>`);
  sections.push(`<section id="results"><h2>Results</h2>\n${results.join('\n')}</section>`);
  sections.push(
    `<section id="raw"><h2>Raw data</h2>\n<p>${withCode(RAW_DATA_NOTE)}</p><p class="note">For the published figures and the claim verdicts, report each run alone.</p></section>`,
  );
  const title =
    a.experiment === b.experiment ? `forklab ${esc(a.experiment)}: ${esc(labels[0])} against ${esc(labels[1])}` : `forklab: ${esc(labels[0])} against ${esc(labels[1])}`;
  const sub = `${esc(a.machine.hostname)} (${esc(a.startedAt)}) · ${esc(b.machine.hostname)} (${esc(b.startedAt)})`;
  return page(
    title,
    sub,
    [
      ['machine', 'Machines'],
      ['warnings', 'Warnings'],
      ['results', 'Results'],
      ['raw', 'Raw data'],
    ],
    sections,
    footer(input),
  );
}
