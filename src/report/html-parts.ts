// The pieces every HTML report is made of (a run's, two runs', a reproduction's): the page and its stylesheet,
// escaping, tables, an experiment's view, figures, and a list of verdicts one line each with the reasoning folded.
// Every string that comes from a run (machine record, parameters, warnings, series names) is escaped here.
import type { RunDocument } from '../document/run.js';
import type { Block } from '../experiments/contract/view.js';
import { renderSvg } from './svg.js';
import type { ChartDef } from './chart-spec.js';
import { svgBars } from './bar-chart.js';
import { articleOf } from './groups.js';
import { paramFlags } from './labels.js';
import { witnessText, type ReportTable } from './markdown.js';
import type { VerdictValue } from './verdict-lines.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';

/** What a run's HTML report (html.ts), or two runs' (compare.ts), is made from. */
export interface HtmlReportInput {
  doc: RunDocument;
  /** A second run: both are shown together, what differs first (compare.ts). */
  compareWith?: RunDocument;
  /** Names of the two runs in a comparison (default: their run ids, or A and B). */
  labels?: [string, string];
  comparisons?: readonly PublishedComparison[];
  verdicts?: readonly ClaimVerdict[];
  /** In a comparison: each run's verdicts, to say which changed. */
  compareVerdicts?: [readonly ClaimVerdict[], readonly ClaimVerdict[]];
  /** Time printed in the footer (default: now). */
  generatedAt?: Date;
  forklabVersion?: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe inside HTML elements and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export const esc = (v: unknown) => escapeHtml(v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** `code` spans from backticks in our own notes; everything else escaped. */
export const withCode = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

export const CSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:20px 24px}
h1{font-size:1.5em;margin:0 0 2px}h2{font-size:1.3em;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
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
.conclusion{font-size:1.2em;font-weight:600;line-height:1.45;margin:.5em 0}
.lead{font-size:1.1em;font-weight:600}
.tally{margin:.3em 0 .2em}.tally .badge{margin-right:2px}
.warnings li{margin:4px 0}
.warnings code,.badge{font-size:.85em}
code{background:var(--soft);padding:1px 4px;border-radius:4px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
figure.chart{margin:10px 0 20px;overflow-x:auto}
figure.chart svg{max-width:100%;height:auto}
figcaption{color:var(--muted);font-size:.92em;margin-top:4px;max-width:900px}
.badge{display:inline-block;padding:1px 9px;border-radius:10px;color:#fff;font-weight:600;white-space:nowrap}
.badge.holds{background:#1a7f37}.badge.differs{background:#cf222e}.badge.not-measurable{background:#6e7781}.badge.inconclusive{background:#9a6700}
.verdicts{border-top:1px solid var(--line);margin:8px 0 12px}
.vrow{display:grid;grid-template-columns:14px 140px minmax(0,1.2fr) minmax(0,1fr);gap:0 12px;align-items:baseline;padding:5px 2px}
.vhead{color:var(--muted);font-size:.88em;border-bottom:1px solid var(--line)}
details.verdict{border-bottom:1px solid var(--line)}
details.verdict>summary{cursor:pointer;list-style:none}
details.verdict>summary::-webkit-details-marker{display:none}
details.verdict>summary::before{content:"▸";color:var(--muted)}
details.verdict[open]>summary::before{content:"▾"}
details.verdict>summary:hover{background:var(--soft)}
.gist{color:var(--muted);font-size:.93em;font-variant-numeric:tabular-nums}
.why{margin:0 0 10px 26px;padding:6px 12px;border-left:3px solid var(--line);max-width:900px}
.why p{margin:.3em 0}
details.fold>summary{cursor:pointer;color:#0969da;margin:6px 0}
.side{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:0 28px}
tr.differs td{background:#fff8c5}
footer{margin-top:40px;color:var(--muted);font-size:.85em}
`;

export function tableHtml(t: Pick<ReportTable, 'header' | 'rows' | 'leftAlign'>, rowClass?: (r: string[]) => string): string {
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

/** An experiment's conclusion lines (its view's conclusion blocks), as the lead of a page. */
export function conclusionHtml(blocks: readonly Block[]): string {
  return blocks
    .filter((b) => b.kind === 'conclusion')
    .map((b) => `<p class="conclusion">${b.lines.map(esc).join('<br>\n')}</p>`)
    .join('\n');
}

/**
 * An experiment's view as HTML: the same tables, headings and notes the terminal and the Markdown report show.
 * Its conclusion is left out (the page leads with it) and so is the terminal's character chart of latency: the
 * page draws that chart as SVG above.
 */
export function blocksHtml(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'conclusion' || b.kind === 'latency-chart') continue;
    if (b.kind === 'heading') out.push(`<h3>${esc(b.text)}</h3>`);
    else if (b.kind === 'text') {
      if (b.text !== '') out.push(`<p>${esc(b.text)}</p>`);
    } else if (b.kind === 'note') out.push(`<p class="note">${esc(b.text)}</p>`);
    else if (b.kind === 'table') out.push(tableHtml(b));
    else out.push(`<figure class="chart bars">\n${svgBars(b)}\n</figure>`);
  }
  return out.join('\n');
}

export async function figureHtml(c: ChartDef): Promise<string> {
  const svg = await renderSvg(c.spec);
  return `<figure class="chart" id="chart-${esc(c.id)}" data-chart="${esc(c.id)}">\n${svg}\n<figcaption>${esc(c.caption)}</figcaption>\n</figure>`;
}

export const dl = (entries: [string, string][]) => `<dl>\n${entries.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('\n')}\n</dl>`;

export const VERDICT_WORDS: Record<VerdictValue, string> = { holds: 'holds', differs: 'differs', inconclusive: 'inconclusive', 'not-measurable': 'not measurable' };

export const badge = (verdict: VerdictValue, label = VERDICT_WORDS[verdict]) => `<span class="badge ${verdict}">${esc(label)}</span>`;

/** One verdict for verdictsHtml. */
export interface VerdictItem {
  verdict: VerdictValue;
  /** The badge's words ("differs ×22"; default: the verdict's). */
  label?: string;
  statement: string;
  /** This machine against the article (or the source), in one short phrase. */
  gist?: string;
  /** Sentences: why the verdict is what it is. */
  reasoning: readonly string[];
  /** Notes on this verdict alone, and its claim's id. */
  notes?: readonly string[];
  claimId: string;
  /** "shape" or "magnitude", where the reader is told. */
  kind?: string;
}

/**
 * Verdicts one line each — the verdict, the claim, this machine against the article — in columns a reader scans
 * down; the reasoning of each is folded (a <details> element) and opens with a click.
 */
export function verdictsHtml(items: readonly VerdictItem[], against: 'the article' | 'the source' = 'the article'): string {
  if (items.length === 0) return '';
  const head = `<div class="vrow vhead" aria-hidden="true"><span></span><span>verdict</span><span>the claim</span><span>this machine against ${against}</span></div>`;
  const rows = items.map((v) => {
    const summary =
      `<summary class="vrow"><span>${badge(v.verdict, v.label)}</span><span class="claim">${esc(v.statement)}</span>` +
      `<span class="gist">${v.gist ? esc(v.gist) : ''}</span></summary>`;
    const notes = (v.notes ?? []).map((n) => `<p class="note">${esc(n)}</p>`).join('');
    const why = `<div class="why">${v.reasoning.map((s) => `<p>${esc(s)}</p>`).join('')}${notes}<p class="note">${v.kind ? `${esc(v.kind)} claim ` : 'claim '}<code>${esc(v.claimId)}</code></p></div>`;
    return `<details class="verdict" data-verdict="${esc(v.verdict)}">${summary}${why}</details>`;
  });
  return `<div class="verdicts">\n${head}\n${rows.join('\n')}\n</div>`;
}

export function runEntries(doc: RunDocument): [string, string][] {
  const article = articleOf(doc.experiment);
  return [
    ['experiment', article ? `${doc.experiment} (article ${article})` : doc.experiment],
    ['run id', doc.runId ?? 'not stored (written with --json)'],
    ['started', doc.startedAt],
    ['duration', `${(doc.durationMs / 1000).toFixed(1)} s`],
    ['complete', doc.complete ? 'yes' : 'no: cancelled, or a probe failed'],
    ['forklab', doc.forklabVersion],
    ...(doc.label ? [['label', doc.label] as [string, string]] : []),
    ['load before / after', `${doc.load.before.loadAverage.join(' ')} / ${doc.load.after?.loadAverage.join(' ') ?? '—'}`],
    ['noise during the run', witnessText(doc)],
    ...paramFlags(doc),
  ];
}

export function warningsHtml(doc: RunDocument): string {
  if (doc.warnings.length === 0) return '<p class="note">None.</p>';
  return `<ul class="warnings">\n${doc.warnings.map((w) => `<li><code>${esc(w.code)}</code> ${esc(w.message)}</li>`).join('\n')}\n</ul>`;
}

export function footerHtml(version: string, at: Date): string {
  return `Written by forklab ${esc(version)} at ${esc(at.toISOString())}. Self-contained: no script, no font, no link outside this file.`;
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
