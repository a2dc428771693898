// The parts of a report the HTML and Markdown renderings share (machine, comparison of two runs) and the
// Markdown rendering itself: GitHub-flavoured, for pasting into an issue or a blog post. The results are the
// experiment's own view (src/report/results.ts), the same the terminal shows.
import { documentWitness, type RunDocument } from '../document/run.js';
import { GLOSSARY_NOTE, answerOf } from './answer.js';
import { getArticle } from '../reference/published.js';
import { articleIntro } from '../reference/describe.js';
import { formatWitness } from '../env/witness.js';
import type { MachineRecord } from '../env/machine.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { articleOf } from './groups.js';
import { resultsOf } from './results.js';
import type { Block } from '../experiments/contract/view.js';
import { asciiChart } from './ascii-chart.js';
import { textBars } from './bar-chart.js';
import { mdCell, mdCode, mdFence, mdLine, mdText } from './escape.js';
import { fmtNumber, fmtValue, machineLabel, paramFlags } from './labels.js';

export { mdCell } from './escape.js';

export interface ReportTable {
  title: string;
  header: string[];
  rows: string[][];
  /** Columns aligned left (by index); the others right. */
  leftAlign: number[];
  note?: string;
}

const text = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The columns of a figure beside the article's, in every report (HTML and Markdown). */
export const COMPARISON_HEADER = ['figure, in the article’s words', 'statistic', 'published', 'this machine', 'this ÷ published', 'compared with'];

/** One figure beside the article's: the cells under COMPARISON_HEADER. */
export function comparisonCells(c: PublishedComparison): string[] {
  return [
    c.figureLabel ?? c.label,
    c.statistic ?? '',
    fmtValue(c.publishedValue, c.unit),
    fmtValue(c.measuredValue, c.unit),
    `${fmtNumber(c.measuredValue / c.publishedValue)}×`,
    c.note ?? '',
  ];
}

const kbText = (kb: number | null) => (kb === null ? 'unknown' : kb === 0 ? 'none' : `${(kb / 1048576).toFixed(1)} GiB (${kb} kB)`);

function fieldText(k: string, v: unknown): string {
  if (k === 'cpuPressure' && v && typeof v === 'object') {
    const p = v as Record<string, number>;
    return `some avg10 ${p.someAvg10} %, avg60 ${p.someAvg60} %, avg300 ${p.someAvg300} %`;
  }
  if (k === 'cgroupMemoryLimitBytes') return v === null ? 'none' : `${fmtNumber(Math.round(Number(v) / 1048576))} MiB`;
  if (/Bytes$/.test(k) && typeof v === 'number') return `${fmtNumber(v)} bytes`;
  if (Array.isArray(v)) return v.length ? v.map(text).join(k === 'notes' ? '; ' : ' ') : 'none';
  return text(v);
}

/** The machine record as label/value pairs: the summary first; `full` adds every other field. */
export function machineEntries(m: MachineRecord, full: boolean): [string, string][] {
  const cpus = m.cpusAllowed ? ` (allowed: ${m.cpusAllowed.join(',')})` : '';
  const out: [string, string][] = [
    ['hostname', m.hostname],
    ['kernel', `${m.kernel} ${m.kernelVersion}`],
    ['CPU', `${m.cpuModel ?? 'unknown'} × ${m.cpuCount}${cpus}, ${m.arch}`],
    ['memory', `${kbText(m.memTotalKb)}, available ${kbText(m.memAvailableKb)}, swap ${kbText(m.swapTotalKb)}`],
    ['THP', `enabled [${m.thpEnabled ?? '?'}], defrag [${m.thpDefrag ?? '?'}], huge page ${m.hugePageSizeKb ?? '?'} kB`],
    ['virtualization', m.virtualization ?? 'unknown'],
    ['glibc / compiler / Node', `${m.glibcVersion ?? 'no glibc'} / ${m.compilerVersion ?? 'unknown'} / ${m.nodeVersion}`],
    ['pinned CPU', m.pinnedCpu === null ? 'none' : String(m.pinnedCpu)],
    ['load average', m.loadAverage.join(' ')],
  ];
  if (m.probe)
    out.push([
      'probe',
      m.probe.origin === 'prebuilt' ? `prebuilt, build id ${m.probe.buildId}` : m.probe.origin === 'built-here' ? 'built here' : `FORKLAB_NATIVE_DIR ${m.probe.dir}`,
    ]);
  if (m.emulation) out.push(['emulation', `${m.emulation}: timings meaningless`]);
  if (!full) return out;
  const shown = new Set([
    'hostname',
    'kernel',
    'kernelVersion',
    'cpuModel',
    'cpuCount',
    'cpusAllowed',
    'arch',
    'memTotalKb',
    'memAvailableKb',
    'swapTotalKb',
    'thpEnabled',
    'thpDefrag',
    'hugePageSizeKb',
    'virtualization',
    'glibcVersion',
    'compilerVersion',
    'nodeVersion',
    'pinnedCpu',
    'loadAverage',
    'probe',
    'emulation',
  ]);
  for (const [k, v] of Object.entries(m)) {
    if (shown.has(k)) continue;
    out.push([machineLabel(k), fieldText(k, v)]);
  }
  return out;
}

/** The noise witness in one line (what the machine did during the run), or why there is none. */
export function witnessText(doc: RunDocument): string {
  const w = documentWitness(doc);
  if (!w) return 'not recorded (a run from before the witness, or one that did not finish)';
  return `${formatWitness(w)}${w.contention.length ? ` — busy: ${w.contention.join('; ')}` : ' — quiet'}`;
}

export const RAW_DATA_NOTE =
  'Every figure here is computed from raw per-call samples kept in the run document (JSON, schema forklab.run v1): ' +
  'write it when running with `--json FILE`, or get it from the history database with `forklab export RUN`. ' +
  '`forklab report --input FILE` renders this report again from that file.';

// ------------------------------------------------------------------------------------------- markdown

/**
 * An experiment's view as Markdown, the same blocks the terminal shows: headings in bold, lines and notes as
 * paragraphs, tables as tables, the latency chart in a text fence (left out when `charts` is false). The
 * conclusion is left out: the report leads with it (conclusionMarkdown).
 */
function blocksMarkdown(blocks: readonly Block[], charts = true): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'conclusion') continue;
    if (b.kind === 'heading') out.push(`**${mdText(b.text)}**`, '');
    else if (b.kind === 'text' || b.kind === 'note') {
      if (b.text !== '') out.push(mdLine(b.text), '');
    } else if (b.kind === 'table') out.push(mdTable(b), '');
    else if (b.kind === 'bar-chart') {
      if (charts) out.push(mdFence('text', textBars(b)), '');
    } else if (charts) out.push(mdFence('text', asciiChart(b.points, { width: b.width, height: b.height, color: false, order: b.order })), '');
  }
  return out;
}

/** The view's conclusion lines, in bold, as the report's first paragraph. */
function conclusionMarkdown(blocks: readonly Block[]): string[] {
  return blocks.flatMap((b) => (b.kind === 'conclusion' ? [b.lines.map((l) => `**${mdText(l)}**`).join('  \n'), ''] : []));
}

export function mdTable(t: Pick<ReportTable, 'header' | 'rows' | 'leftAlign'>): string {
  const left = new Set(t.leftAlign);
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [line(t.header), `|${t.header.map((_, i) => (left.has(i) ? ':---' : '---:')).join('|')}|`, ...t.rows.map(line)].join('\n');
}

export interface MarkdownOptions {
  comparisons?: readonly PublishedComparison[];
  verdicts?: readonly ClaimVerdict[];
  /** Include the terminal chart of spawn latency in a code block (default true). */
  asciiChart?: boolean;
}

export function mdWarnings(doc: RunDocument): string[] {
  return doc.warnings.length ? doc.warnings.map((w) => `- **${mdText(w.code)}**: ${mdText(w.message)}`) : ['None.'];
}

export function runLine(doc: RunDocument): string {
  const article = articleOf(doc.experiment);
  return [
    `forklab ${mdText(doc.forklabVersion)}`,
    article ? `article ${article}` : null,
    doc.runId ? `run ${mdText(doc.runId)}` : null,
    doc.label ? `label ${mdText(doc.label)}` : null,
    `started ${mdText(doc.startedAt)}`,
    `${(doc.durationMs / 1000).toFixed(1)} s`,
    doc.complete ? 'complete' : '**incomplete** (cancelled or a probe failed)',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** How a verdict is marked in Markdown (a sign a reader sees without colour, and the word). */
export const VERDICT_MARK = { holds: '✅ holds', differs: '❌ differs', inconclusive: '❔ inconclusive', 'not-measurable': '➖ not measurable' } as const;

/**
 * The report of a run as Markdown, in the order a reader wants it: the conclusion, the results (tables, and the
 * terminal's chart), the article's claims one line each, the figures beside the article's, then the reasoning of
 * every verdict, the machine, the parameters, the warnings.
 */
export function renderMarkdown(doc: RunDocument, opts: MarkdownOptions = {}): string {
  const out: string[] = [`## forklab ${mdText(doc.experiment)} on ${mdText(doc.machine.hostname)}`, '', runLine(doc), ''];
  const comparisons = opts.comparisons ?? [];
  const verdicts = opts.verdicts ?? [];
  const article = articleOf(doc.experiment);
  const a = article ? getArticle(article) : undefined;
  const blocks = resultsOf(doc);
  const ans = answerOf(article ?? null, verdicts, comparisons);
  out.push(...conclusionMarkdown(blocks));
  if (verdicts.length) out.push(mdLine(ans.headline), '');
  out.push('### Results', '', ...blocksMarkdown(blocks, opts.asciiChart !== false));
  if (verdicts.length) {
    out.push('### The article’s claims on this machine', '');
    if (a) out.push(mdLine(articleIntro(a)), '');
    out.push(
      mdTable({
        header: ['verdict', 'the claim', 'this machine against the article'],
        rows: ans.lines.map((l) => [VERDICT_MARK[l.verdict], l.claim.statement, l.claim.gist ?? '']),
        leftAlign: [0, 1, 2],
      }),
      '',
      'Why each verdict is what it is: under “Reasoning” below.',
      '',
    );
  }
  if (comparisons.length) {
    out.push('### Beside the article', '');
    if (a) out.push(`Article ${a.id}: ${mdText(a.titleEn)}`, '');
    out.push(mdTable({ header: COMPARISON_HEADER, rows: comparisons.map(comparisonCells), leftAlign: [0, 1, 5] }), '');
    if (ans.figures) out.push(mdLine(ans.figures), '');
  }
  if (verdicts.length) {
    out.push('### Reasoning', '');
    for (const l of ans.lines) {
      const own = (l.claim.notes ?? []).filter((n) => !ans.sharedNotes.includes(n));
      const why = [...(l.claim.reasoning ?? [l.claim.detail]), ...own].map(mdLine).join(' ');
      out.push(`- **${mdText(l.claim.statement)}** ${VERDICT_MARK[l.verdict]} (\`${l.claim.claimId}\`). ${why}`);
    }
    out.push('');
    out.push(`Noise during the run: ${mdLine(witnessText(doc))}.`, '');
    if (ans.sharedNotes.length) out.push('On every verdict:', '', ...ans.sharedNotes.map((n) => `- ${mdLine(n)}`), '');
    out.push(mdLine(GLOSSARY_NOTE), '');
  }
  out.push('### Machine', '', mdTable({ header: ['machine', 'value'], rows: machineEntries(doc.machine, false), leftAlign: [0, 1] }), '');
  out.push(
    `Parameters: ${paramFlags(doc)
      .map(([f, v]) => mdCode(`${f} ${v}`))
      .join(' ')}`,
    '',
  );
  out.push('### Warnings', '', ...mdWarnings(doc), '');
  out.push('### Raw data', '', RAW_DATA_NOTE, '');
  return out.join('\n');
}
