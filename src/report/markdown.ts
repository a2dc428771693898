// The parts of a report the HTML and Markdown renderings share (machine, comparison of two runs) and the
// Markdown rendering itself: GitHub-flavoured, for pasting into an issue or a blog post. The results are the
// experiment's own view (src/report/results.ts), the same the terminal shows.
import { documentWitness, type RunDocument } from '../document/run.js';
import { GLOSSARY_NOTE, answerOf } from './answer.js';
import { getArticle } from '../reference/published.js';
import { articleIntro } from '../reference/describe.js';
import { formatWitness } from '../env/witness.js';
import type { MachineRecord } from '../env/machine.js';
import { fmtRatio } from '../text/format.js';
import type { ClaimVerdict, PublishedComparison } from './judged.js';
import { articleOf, configLabel, groupsOf, timeUnit, type Cell, type Group } from './groups.js';
import { compareRuns } from '../store/compare.js';
import { fmtMedianCi, resultsOf } from './results.js';
import type { Block } from '../experiments/view.js';
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

/** Both runs side by side, configuration by configuration, with B ÷ A. */
/**
 * Both runs figure by figure with the statistics of `forklab compare` (src/store/compare.ts): medians with their
 * intervals, B ÷ A with its bootstrap interval, the Mann–Whitney p-value and the mark — ▲ slower / ▼ faster only
 * when the difference is real. Rows in the configurations' order (numbers by value); those in one run only last.
 */

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

export function compareTable(a: RunDocument, b: RunDocument, labels: [string, string]): ReportTable {
  const unit = timeUnit(a.experiment);
  const cmp = compareRuns(a, b);
  const ga = groupsOf(a);
  const gb = groupsOf(b);
  const stats = (gs: Group[], f: { series: string; identity: Record<string, unknown> }) =>
    gs.find((g) => g.series === f.series && Object.entries(f.identity).every(([k, v]) => g.fields[k] === v))?.stats ?? null;
  const mark = (v: string) => (v === 'slower' ? '▲ slower' : v === 'faster' ? '▼ faster' : 'same');
  const rows = cmp.figures.map((f) => {
    const x = stats(ga, f);
    const y = stats(gb, f);
    const ratio = f.ratio === null ? '—' : `${fmtRatio(f.ratio)}${f.ratioLow !== null && f.ratioHigh !== null ? ` [${fmtRatio(f.ratioLow)}–${fmtRatio(f.ratioHigh)}]` : ''}`;
    return [
      configLabel(a.experiment, f.series, f.identity as Record<string, Cell>),
      x ? fmtMedianCi(x, unit.perNs) : fmtNumber(f.a.medianNs / unit.perNs),
      y ? fmtMedianCi(y, unit.perNs) : fmtNumber(f.b.medianNs / unit.perNs),
      ratio,
      f.pValue < 0.001 ? '<0.001' : f.pValue.toFixed(3),
      mark(f.verdict),
    ];
  });
  for (const l of cmp.onlyInA) rows.push([l, '—', `only in ${labels[0]}`, '—', '—', '—']);
  for (const l of cmp.onlyInB) rows.push([l, `only in ${labels[1]}`, '—', '—', '—', '—']);
  const r = cmp.rule;
  return {
    title: `Median ${unit.label} [95 % CI], both runs`,
    header: ['configuration', `${labels[0]} ${unit.label}`, `${labels[1]} ${unit.label}`, `${labels[1]} ÷ ${labels[0]} [95 % CI]`, 'p', `${labels[1]} vs ${labels[0]}`],
    rows,
    leftAlign: [0, 5],
    note: `Marked only when p < ${r.maxP}, the ${r.confidence * 100} % interval of the ratio excludes 1 and the ratio is at least ${r.minEffect * 100} % away from 1 (medians of pooled repeats; Mann–Whitney U on the raw samples), as forklab compare marks them.`,
  };
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
 * paragraphs, tables as tables, the latency chart in a text fence (left out when `charts` is false).
 */
function blocksMarkdown(blocks: readonly Block[], charts = true): string[] {
  const out: string[] = [];
  for (const b of blocks) {
    if (b.kind === 'conclusion') out.push(b.lines.map((l) => `**${mdText(l)}**`).join('  \n'), '');
    else if (b.kind === 'heading') out.push(`**${mdText(b.text)}**`, '');
    else if (b.kind === 'text' || b.kind === 'note') {
      if (b.text !== '') out.push(mdLine(b.text), '');
    } else if (b.kind === 'table') out.push(mdTable(b), '');
    else if (b.kind === 'bar-chart') {
      if (charts) out.push(mdFence('text', textBars(b)), '');
    } else if (charts) out.push(mdFence('text', asciiChart(b.points, { width: b.width, height: b.height, color: false, order: b.order })), '');
  }
  return out;
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

function mdWarnings(doc: RunDocument): string[] {
  return doc.warnings.length ? doc.warnings.map((w) => `- **${mdText(w.code)}**: ${mdText(w.message)}`) : ['None.'];
}

function runLine(doc: RunDocument): string {
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

export function renderMarkdown(doc: RunDocument, opts: MarkdownOptions = {}): string {
  const out: string[] = [`## forklab ${mdText(doc.experiment)} on ${mdText(doc.machine.hostname)}`, '', runLine(doc), ''];
  const comparisons = opts.comparisons ?? [];
  const verdicts = opts.verdicts ?? [];
  const article = articleOf(doc.experiment);
  const a = article ? getArticle(article) : undefined;
  // The answer first, then the figures beside the article's, then the results and charts, then the machine record.
  const ans = answerOf(article ?? null, verdicts, comparisons);
  const mark = { holds: '✅ holds', differs: '❌ differs', inconclusive: '❔ inconclusive', 'not-measurable': '➖ not measurable' };
  out.push('### The answer', '', mdLine(ans.headline), '');
  if (a) out.push(mdLine(articleIntro(a)), '');
  for (const l of ans.lines) {
    const own = (l.claim.notes ?? []).filter((n) => !ans.sharedNotes.includes(n));
    out.push(`- ${mark[l.verdict]}: ${mdLine(l.claim.statement)} — ${mdLine(l.claim.detail)}${own.length ? ` ${mdLine(own.join(' '))}` : ''} (\`${l.claim.claimId}\`)`);
  }
  if (ans.lines.length) out.push('');
  if (ans.figures) out.push(mdLine(ans.figures), '');
  out.push(`Noise during the run: ${mdLine(witnessText(doc))}.${ans.sharedNotes.length ? ` On every verdict: ${mdLine(ans.sharedNotes.join(' '))}` : ''}`, '');
  out.push(mdLine(GLOSSARY_NOTE), '');
  if (comparisons.length) {
    out.push('### Beside the article', '');
    if (a) out.push(`Article ${a.id}: ${mdText(a.titleEn)}`, '');
    out.push(
      mdTable({
        header: COMPARISON_HEADER,
        rows: comparisons.map(comparisonCells),
        leftAlign: [0, 1, 5],
      }),
      '',
    );
  }
  out.push('### Results', '', ...blocksMarkdown(resultsOf(doc), opts.asciiChart !== false));
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

export function renderCompareMarkdown(a: RunDocument, b: RunDocument, labels: [string, string] = ['A', 'B']): string {
  const ma = machineEntries(a.machine, false);
  const mb = new Map(machineEntries(b.machine, false));
  const out = [`## forklab ${mdText(a.experiment)}: ${mdText(labels[0])} against ${mdText(labels[1])}`, ''];
  out.push(`- **${mdText(labels[0])}**: ${runLine(a)}`, `- **${mdText(labels[1])}**: ${runLine(b)}`, '');
  out.push('### Machines', '', mdTable({ header: ['machine', labels[0], labels[1]], rows: ma.map(([k, v]) => [k, v, mb.get(k) ?? '—']), leftAlign: [0, 1, 2] }), '');
  for (const [d, l] of [
    [a, labels[0]],
    [b, labels[1]],
  ] as const)
    out.push(`### Warnings (${mdText(l)})`, '', ...mdWarnings(d), '');
  if (a.experiment === b.experiment) out.push('### Results', '', mdTable(compareTable(a, b, labels)), '');
  else out.push(`The runs are of different experiments (${mdText(a.experiment)}, ${mdText(b.experiment)}); report each alone.`, '');
  out.push('### Raw data', '', RAW_DATA_NOTE, '');
  return out.join('\n');
}
