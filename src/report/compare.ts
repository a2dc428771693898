// Two runs of one experiment together (`forklab report --compare A B`, `report --input A B`), as HTML and as
// Markdown, what differs first: the configurations whose medians differ beyond noise (with the statistics of
// `forklab compare`, src/store/compare.ts), the claims whose verdict changed, and the settings and machine fields
// that were not the same; then both runs in one chart, every configuration, and the two machine records folded.
import type { RunDocument } from '../document/run.js';
import { compareRuns } from '../store/compare.js';
import { fmtRatio } from '../text/format.js';
import { compareChart } from './charts.js';
import { configLabel, groupsOf, timeUnit, type Group } from './groups.js';
import type { ClaimVerdict } from './judged.js';
import { fmtNumber, machineLabel, paramFlags } from './labels.js';
import { RAW_DATA_NOTE, VERDICT_MARK, machineEntries, mdTable, mdWarnings, runLine, type ReportTable } from './markdown.js';
import { mdText } from './escape.js';
import { fmtMedianCi, resultsOf } from './results.js';
import { badge, blocksHtml, dl, esc, figureHtml, footerHtml, page, runEntries, tableHtml, warningsHtml, withCode, type HtmlReportInput } from './html-parts.js';

/**
 * Both runs figure by figure with the statistics of `forklab compare`: medians with their intervals, B ÷ A with
 * its bootstrap interval, the Mann–Whitney p-value and the mark — ▲ slower / ▼ faster only when the difference is
 * real. Rows in the configurations' order (numbers by value); those in one run only last.
 */
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
      configLabel(a.experiment, f.series, f.identity),
      x ? fmtMedianCi(x, unit.perNs) : fmtNumber(f.a.medianNs / unit.perNs),
      y ? fmtMedianCi(y, unit.perNs) : fmtNumber(f.b.medianNs / unit.perNs),
      ratio,
      f.pValue < 0.001 ? '<0.001' : f.pValue.toFixed(3),
      mark(f.verdict),
    ];
  });
  // a configuration one run alone measured (those of A come first), said as the other rows are
  for (const o of cmp.onlyIn) {
    const said = configLabel((o.side === 'A' ? a : b).experiment, o.series, o.identity);
    rows.push(o.side === 'A' ? [said, 'measured', 'not measured', '—', '—', `only in ${labels[0]}`] : [said, 'not measured', 'measured', '—', '—', `only in ${labels[1]}`]);
  }
  const r = cmp.rule;
  return {
    title: `Median ${unit.label} [95 % CI], both runs`,
    header: ['configuration', `${labels[0]} ${unit.label}`, `${labels[1]} ${unit.label}`, `${labels[1]} ÷ ${labels[0]} [95 % CI]`, 'p', `${labels[1]} vs ${labels[0]}`],
    rows,
    leftAlign: [0, 5],
    note: `Marked only when p < ${r.maxP}, the ${r.confidence * 100} % interval of the ratio excludes 1 and the ratio is at least ${r.minEffect * 100} % away from 1 (medians of pooled repeats; Mann–Whitney U on the raw samples), as forklab compare marks them.`,
  };
}

/** Machine fields that differ between any two runs (load, pressure, free memory, when recorded): never a difference worth leading with. */
const VOLATILE = new Set(['load average', machineLabel('collectedAt'), machineLabel('cpuPressure'), 'memory']);

/** What differs between two runs, in the order a reader asks: which figures moved, which verdicts changed, what was set up differently. */
export interface RunDifferences {
  /** The rows of compareTable marked slower or faster. */
  figures: ReportTable;
  /** How many configurations both runs measured (those the figures are of). */
  compared: number;
  /** The configurations one run measured and the other did not, by the run that measured them. */
  onlyIn: [string[], string[]];
  verdicts: { claimId: string; statement: string; a: ClaimVerdict['verdict']; b: ClaimVerdict['verdict'] }[];
  /** Settings (flags) and machine fields that are not the same: [what, A, B]. */
  setup: string[][];
}

export function differencesOf(a: RunDocument, b: RunDocument, labels: [string, string], verdicts?: [readonly ClaimVerdict[], readonly ClaimVerdict[]]): RunDifferences {
  const all = compareTable(a, b, labels);
  const marked = (r: readonly string[]) => r.at(-1) === '▲ slower' || r.at(-1) === '▼ faster';
  const figures = { ...all, rows: all.rows.filter(marked) };
  const onlyIn = labels.map((l) => all.rows.filter((r) => r.at(-1) === `only in ${l}`).map((r) => r[0]!)) as [string[], string[]];
  const byId = new Map((verdicts?.[1] ?? []).map((v) => [v.claimId, v]));
  const changed = (verdicts?.[0] ?? []).flatMap((v) => {
    const w = byId.get(v.claimId);
    return w && w.verdict !== v.verdict ? [{ claimId: v.claimId, statement: v.statement, a: v.verdict, b: w.verdict }] : [];
  });
  const pairs = (x: [string, string][], y: [string, string][]) => {
    const other = new Map(y);
    const keys = [...new Set([...x.map(([k]) => k), ...y.map(([k]) => k)])];
    const mine = new Map(x);
    return keys.filter((k) => !VOLATILE.has(k) && (mine.get(k) ?? '—') !== (other.get(k) ?? '—')).map((k) => [k, mine.get(k) ?? '—', other.get(k) ?? '—']);
  };
  // Settings are the flags; what a run recorded of itself (why its repeats stopped, say) is not a setting.
  const flags = (doc: RunDocument) => paramFlags(doc).filter(([k]) => k.startsWith('--'));
  const setup = [...pairs(flags(a), flags(b)), ...pairs(machineEntries(a.machine, true), machineEntries(b.machine, true))];
  const compared = all.rows.length - onlyIn[0].length - onlyIn[1].length;
  return { figures, compared, onlyIn, verdicts: changed, setup };
}

/** The count of what differs in words: "3 of the 18 configurations both runs measured differ beyond noise: 2 slower
 * in B, 1 faster." A configuration one run alone measured is not a difference beyond noise: onlyLine says those. */
function figuresLine(d: RunDifferences, labels: [string, string]): string {
  const n = (mark: string) => d.figures.rows.filter((r) => r.at(-1) === mark).length;
  const both = `${d.compared === 1 ? 'the one configuration' : `the ${d.compared} configurations`} both runs measured`;
  if (d.compared === 0) return `No configuration was measured by both ${labels[0]} and ${labels[1]}: nothing to set side by side.`;
  if (d.figures.rows.length === 0) return `None of ${both} differs beyond noise between ${labels[0]} and ${labels[1]}.`;
  const parts = [n('▲ slower') ? `${n('▲ slower')} slower in ${labels[1]}` : '', n('▼ faster') ? `${n('▼ faster')} faster in ${labels[1]}` : ''].filter(Boolean);
  return `${d.figures.rows.length} of ${both} ${d.figures.rows.length === 1 ? 'differs' : 'differ'} beyond noise: ${parts.join(', ')}.`;
}

/** The configurations one run alone measured, in one sentence per run (null where there are none). */
function onlyLines(d: RunDifferences, labels: [string, string]): string[] {
  return d.onlyIn.flatMap((ls, i) => (ls.length ? [`Measured in ${labels[i]} only (${ls.length}): ${ls.join('; ')}.`] : []));
}

const verdictsLine = (d: RunDifferences, judged: boolean) =>
  !judged ? null : d.verdicts.length ? `${d.verdicts.length} of the article’s claims changed verdict:` : 'No claim of the article changed verdict.';

const setupLine = (d: RunDifferences) =>
  d.setup.length
    ? 'Set up differently (settings, then machine fields; load, pressure and free memory left out):'
    : 'Same settings and the same machine fields (load, pressure and free memory aside).';

export async function renderCompareHtml(input: HtmlReportInput, b: RunDocument): Promise<string> {
  const a = input.doc;
  const labels: [string, string] = input.labels ?? (a.runId && b.runId && a.runId !== b.runId ? [a.runId, b.runId] : ['A', 'B']);
  const d = differencesOf(a, b, labels, input.compareVerdicts);
  const lead: string[] = [`<p class="conclusion">${esc(figuresLine(d, labels))}</p>`];
  if (d.figures.rows.length) lead.push(tableHtml(d.figures));
  for (const l of onlyLines(d, labels)) lead.push(`<p class="note">${esc(l)}</p>`);
  const vl = verdictsLine(d, input.compareVerdicts !== undefined);
  if (vl) lead.push(`<p>${esc(vl)}</p>`);
  if (d.verdicts.length)
    lead.push(
      `<div class="scroll"><table>\n<thead><tr><th scope="col">the claim</th><th scope="col">${esc(labels[0])}</th><th scope="col">${esc(labels[1])}</th></tr></thead>\n<tbody>\n` +
        d.verdicts.map((v) => `<tr><td>${esc(v.statement)} <code>${esc(v.claimId)}</code></td><td>${badge(v.a)}</td><td>${badge(v.b)}</td></tr>`).join('\n') +
        '\n</tbody>\n</table></div>',
    );
  lead.push(`<p>${esc(setupLine(d))}</p>`);
  if (d.setup.length) lead.push(tableHtml({ header: ['', labels[0], labels[1]], rows: d.setup, leftAlign: [0, 1, 2] }));
  const sections = [`<section id="differs"><h2>What differs</h2>\n${lead.join('\n')}</section>`];
  const chart = compareChart(a, b, labels);
  const all = compareTable(a, b, labels);
  sections.push(
    `<section id="results"><h2>Every configuration</h2>\n${chart ? await figureHtml(chart) : ''}\n${tableHtml(all)}\n<p class="note">${esc(all.note ?? '')}</p>\n` +
      `<details class="fold"><summary>Each run’s own tables</summary><div class="side"><div><h3>${esc(labels[0])}</h3>${blocksHtml(resultsOf(a))}</div><div><h3>${esc(labels[1])}</h3>${blocksHtml(resultsOf(b))}</div></div></details></section>`,
  );
  const mb = new Map(machineEntries(b.machine, true));
  const machineRows = machineEntries(a.machine, true).map(([k, v]) => [k, v, mb.get(k) ?? '—']);
  sections.push(
    `<section id="machine"><h2>Machines and runs</h2>\n<details class="fold"><summary>Both machine records, ${machineRows.length} rows (those that differ highlighted)</summary>\n` +
      tableHtml({ header: ['', labels[0], labels[1]], rows: machineRows, leftAlign: [0, 1, 2] }, (r) => (r[1] !== r[2] && !VOLATILE.has(r[0]!) ? 'differs' : '')) +
      `</details>\n<details class="fold"><summary>Both runs’ settings</summary><div class="side"><div><h3>${esc(labels[0])}</h3>${dl(runEntries(a))}</div><div><h3>${esc(labels[1])}</h3>${dl(runEntries(b))}</div></div></details></section>`,
  );
  sections.push(
    `<section id="warnings"><h2>Warnings</h2>\n<div class="side"><div><h3>${esc(labels[0])}</h3>${warningsHtml(a)}</div><div><h3>${esc(labels[1])}</h3>${warningsHtml(b)}</div></div></section>`,
  );
  sections.push(
    `<section id="raw"><h2>Raw data</h2>\n<p>${withCode(RAW_DATA_NOTE)}</p><p class="note">For the published figures and the reasoning of each verdict, report each run alone.</p></section>`,
  );
  const title = `forklab ${esc(a.experiment)}: ${esc(labels[0])} against ${esc(labels[1])}`;
  const sub = `${esc(a.machine.hostname)} (${esc(a.startedAt)}) · ${esc(b.machine.hostname)} (${esc(b.startedAt)})`;
  const nav: [string, string][] = [
    ['differs', 'What differs'],
    ['results', 'Every configuration'],
    ['machine', 'Machines'],
    ['warnings', 'Warnings'],
    ['raw', 'Raw data'],
  ];
  return page(title, sub, nav, sections, footerHtml(input.forklabVersion ?? a.forklabVersion, input.generatedAt ?? new Date()));
}

export function renderCompareMarkdown(
  a: RunDocument,
  b: RunDocument,
  labels: [string, string] = ['A', 'B'],
  verdicts?: [readonly ClaimVerdict[], readonly ClaimVerdict[]],
): string {
  const d = differencesOf(a, b, labels, verdicts);
  const out = [`## forklab ${mdText(a.experiment)}: ${mdText(labels[0])} against ${mdText(labels[1])}`, ''];
  out.push(`- **${mdText(labels[0])}**: ${runLine(a)}`, `- **${mdText(labels[1])}**: ${runLine(b)}`, '');
  out.push('### What differs', '', `**${mdText(figuresLine(d, labels))}**`, '');
  if (d.figures.rows.length) out.push(mdTable(d.figures), '');
  for (const l of onlyLines(d, labels)) out.push(mdText(l), '');
  const vl = verdictsLine(d, verdicts !== undefined);
  if (vl) out.push(mdText(vl), '');
  if (d.verdicts.length)
    out.push(mdTable({ header: ['the claim', labels[0], labels[1]], rows: d.verdicts.map((v) => [v.statement, VERDICT_MARK[v.a], VERDICT_MARK[v.b]]), leftAlign: [0, 1, 2] }), '');
  out.push(mdText(setupLine(d)), '');
  if (d.setup.length) out.push(mdTable({ header: ['', labels[0], labels[1]], rows: d.setup, leftAlign: [0, 1, 2] }), '');
  const all = compareTable(a, b, labels);
  out.push('### Every configuration', '', mdTable(all), '', mdText(all.note ?? ''), '');
  const mb = new Map(machineEntries(b.machine, false));
  out.push(
    '### Machines',
    '',
    mdTable({ header: ['machine', labels[0], labels[1]], rows: machineEntries(a.machine, false).map(([k, v]) => [k, v, mb.get(k) ?? '—']), leftAlign: [0, 1, 2] }),
    '',
  );
  for (const [doc, l] of [
    [a, labels[0]],
    [b, labels[1]],
  ] as const)
    out.push(`### Warnings (${mdText(l)})`, '', ...mdWarnings(doc), '');
  out.push('### Raw data', '', RAW_DATA_NOTE, '');
  return out.join('\n');
}
