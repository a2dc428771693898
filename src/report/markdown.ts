// The tables of a report (shared by the HTML and Markdown renderings) and the Markdown rendering itself:
// GitHub-flavoured, for pasting into an issue or a blog post.
import { documentWitness, type RunDocument } from './document.js';
import { formatWitness } from '../env/witness.js';
import type { MachineRecord } from '../env/machine.js';
import { fmtNs, fmtRatio, fmtUs } from './table.js';
import {
  articleOf, orderOf, configLabel, fieldsOf, groupConfigurations, groupsOf, phaseRecords, timeUnit,
  type ClaimVerdict, type Group, type GroupStats, type PublishedComparison,
} from './charts.js';
import { asciiChart } from './ascii-chart.js';
import { runtimesTables } from './runtimes.js';
import { mdCell, mdCode, mdFence, mdLine, mdText } from './escape.js';

export { mdCell } from './escape.js';

export interface ReportTable {
  title: string;
  header: string[];
  rows: string[][];
  /** Columns aligned left (by index); the others right. */
  leftAlign: number[];
  note?: string;
}

const fmtIn = (ns: number, perNs: number) => (perNs === 1 ? fmtNs(ns) : fmtUs(ns));

/** "412 [405–420]": a median with its 95 % interval, in µs (perNs 1000) or ns (perNs 1). */
export function fmtMedianCi(s: GroupStats | null, perNs: number): string {
  if (s === null) return 'failed';
  return `${fmtIn(s.medianNs, perNs)} [${fmtIn(s.ciLowNs, perNs)}–${fmtIn(s.ciHighNs, perNs)}]`;
}

const text = (v: unknown): string =>
  v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** Rows of distinct row keys, columns of distinct column keys, a formatted cell at each crossing. */
function pivot(groups: Group[], row: (g: Group) => string, col: (g: Group) => string, cell: (g: Group) => string, colOrder: readonly string[] = []) {
  const rows = [...new Set(groups.map(row))];
  const seen = [...new Set(groups.map(col))];
  const cols = [...colOrder.filter((c) => seen.includes(c)), ...seen.filter((c) => !colOrder.includes(c))];
  return {
    cols,
    rows: rows.map((r) => [r, ...cols.map((c) => {
      const g = groups.find((x) => row(x) === r && col(x) === c);
      return g ? cell(g) : '—';
    })]),
  };
}

const byNumber = (field: string) => (a: Group, b: Group) => Number(a.fields[field]) - Number(b.fields[field]);

function spawnTables(doc: RunDocument, groups: Group[]): ReportTable[] {
  const out: ReportTable[] = [];
  const thpOrder = orderOf('spawn', 'thp');
  const modes = [...new Set(groups.map((g) => String(g.fields.thp)))].sort((x, y) => thpOrder.indexOf(x) - thpOrder.indexOf(y));
  for (const thp of modes) {
    const gs = groups.filter((g) => String(g.fields.thp) === thp).sort(byNumber('rssMb'));
    const p = pivot(gs, (g) => `${g.fields.rssMb} MB`, (g) => String(g.fields.method), (g) => fmtMedianCi(g.stats, 1000), orderOf('spawn', 'method'));
    const huge = (rss: string) => {
      const kb = doc.configurations
        .filter((c) => String(c.thp) === thp && `${c.rssMb} MB` === rss && typeof c.hugePagesKb === 'number')
        .map((c) => c.hugePagesKb as number);
      return kb.length ? `${Math.round(Math.min(...kb) / 1024)} MB` : '—';
    };
    out.push({
      title: `THP ${thp}: median µs per spawn+wait [95 % CI]`,
      header: ['parent RSS', ...p.cols, 'huge pages'],
      rows: p.rows.map((r) => [...r, huge(r[0]!)]),
      leftAlign: [0],
    });
  }
  const slopes = (doc.summary as { slopes?: unknown } | null)?.slopes;
  if (Array.isArray(slopes) && slopes.length) {
    out.push({
      title: 'Growth with parent RSS (least squares over per-repeat medians)',
      header: ['method', 'THP', 'µs per MB', 'R²', 'per entry'],
      rows: slopes.map((s: Record<string, unknown>) => {
        const e = s.entry as { kind: string; ns: number } | null;
        return [text(s.method), text(s.thp), Number(s.slopeUsPerMb).toFixed(3), Number(s.r2).toFixed(3), e ? `${e.ns.toFixed(0)} ns/${e.kind}` : '—'];
      }),
      leftAlign: [0, 1],
    });
  }
  return out;
}

function timingTable(title: string, groups: Group[], perNs: number, unit: string, note?: string): ReportTable {
  const keys = [...new Set(groups.flatMap((g) => Object.keys(g.fields)))];
  return {
    title,
    header: ['series', ...keys, `median ${unit} [95 % CI]`, `min ${unit}`, `mean ${unit}`, 'n', 'repeats'],
    rows: groups.map((g) => [
      g.series,
      ...keys.map((k) => text(g.fields[k])),
      fmtMedianCi(g.stats, perNs),
      g.stats ? fmtIn(g.stats.minNs, perNs) : '—',
      g.stats ? fmtIn(g.stats.meanNs, perNs) : '—',
      g.stats ? String(g.stats.n) : '0',
      g.failedRepeats ? `${g.repeats.length} (+${g.failedRepeats} failed)` : String(g.repeats.length),
    ]),
    leftAlign: [0, ...keys.map((_, i) => i + 1)],
    ...(note ? { note } : {}),
  };
}

const medianOf = (groups: Group[], series: string) => groups.find((g) => g.series === series && g.stats)?.stats?.medianNs;

/** The tables of one run, by experiment; unknown experiments get one row per configuration. */
export function reportTables(doc: RunDocument): ReportTable[] {
  const groups = groupsOf(doc);
  switch (doc.experiment) {
    case 'spawn':
      return spawnTables(doc, groups);
    case 'cow': {
      const p = pivot(groups, (g) => configLabel(g.series, { sizeMb: g.fields.sizeMb ?? null }), (g) => `THP ${text(g.fields.thp)}`, (g) => fmtMedianCi(g.stats, 1), orderOf('cow', 'thp').map((t) => `THP ${t}`));
      return [{ title: 'Copy-on-write: median ns per page [95 % CI]', header: ['pass', ...p.cols], rows: p.rows, leftAlign: [0] }];
    }
    case 'create': {
      const t = medianOf(groups, 'thread');
      const f = medianOf(groups, 'fork');
      return [timingTable('Thread against process creation', groups, 1000, 'µs', t && f ? `fork ÷ thread (medians): ${fmtRatio(f / t)}` : undefined)];
    }
    case 'exec': {
      const s = medianOf(groups, 'exec-static');
      const d = medianOf(groups, 'exec-dynamic');
      return [timingTable('Static against dynamic exec', groups, 1000, 'µs', s && d ? `dynamic − static: ${fmtUs(d - s)} µs; dynamic ÷ static: ${fmtRatio(d / s)}` : undefined)];
    }
    case 'vma': {
      const p = pivot([...groups].sort(byNumber('vmas')), (g) => text(g.fields.vmas), (g) => text(g.fields.method), (g) => fmtMedianCi(g.stats, 1000), orderOf('vma', 'method'));
      return [{ title: 'Median µs per spawn [95 % CI] by number of VMAs', header: ['VMAs', ...p.cols], rows: p.rows, leftAlign: [0] }];
    }
    case 'pagetables': {
      const recs = phaseRecords(doc);
      const out: ReportTable[] = [{
        title: 'Page-table memory by phase (kB)',
        header: ['layout', 'phase', 'parent VmPTE kB', 'child VmPTE kB', 'PageTables kB'],
        rows: recs.map((r) => [r.layout, r.phase, text(r.parentVmPteKb), text(r.childVmPteKb), text(r.pageTablesKb)]),
        leftAlign: [0, 1],
      }];
      const timed = groups.filter((g) => g.stats);
      if (timed.length) out.push(timingTable('Timings', timed, 1000, 'µs'));
      return out;
    }
    case 'runtimes':
      return runtimesTables(doc) ?? [genericTable(doc)];
    default:
      return [genericTable(doc)];
  }
}

/** One row per configuration object: its series, every scalar field, repeat, state, median and interval. */
function genericTable(doc: RunDocument): ReportTable {
  const keys = [...new Set(doc.configurations.flatMap((c) => Object.keys(fieldsOf(c))))];
  const groups = groupConfigurations(doc, null); // one per configuration object, in document order
  const unit = timeUnit(doc.experiment);
  return {
    title: doc.experiment === 'deadlock' ? 'Child after fork while another thread holds a lock' : `${doc.experiment}: every configuration`,
    header: ['series', ...keys, 'repeat', 'state', `median ${unit.label} [95 % CI]`, 'n'],
    rows: doc.configurations.map((c, i) => {
      const g = groups[i]!;
      return [
        text(c.series), ...keys.map((k) => text(fieldsOf(c)[k])), text(c.repeat),
        c.state === 'failed' ? `failed: ${text(c.failure)}` : text(c.state),
        g.stats ? fmtMedianCi(g.stats, unit.perNs) : '—', g.stats ? String(g.stats.n) : '—',
      ];
    }),
    leftAlign: [0, ...keys.map((_, i) => i + 1), keys.length + 2],
  };
}

/** Both runs side by side, configuration by configuration, with B ÷ A. */
export function compareTable(a: RunDocument, b: RunDocument, labels: [string, string]): ReportTable {
  const unit = timeUnit(a.experiment);
  const ga = groupsOf(a);
  const gb = groupsOf(b);
  const label = (g: Group) => configLabel(g.series, g.fields);
  const all = [...new Set([...ga.map(label), ...gb.map(label)])];
  return {
    title: `Median ${unit.label} [95 % CI], both runs`,
    header: ['configuration', labels[0], labels[1], `${labels[1]} ÷ ${labels[0]}`],
    rows: all.map((l) => {
      const x = ga.find((g) => label(g) === l)?.stats ?? null;
      const y = gb.find((g) => label(g) === l)?.stats ?? null;
      return [l, x ? fmtMedianCi(x, unit.perNs) : '—', y ? fmtMedianCi(y, unit.perNs) : '—', x && y && x.medianNs > 0 ? fmtRatio(y.medianNs / x.medianNs) : '—'];
    }),
    leftAlign: [0],
  };
}

const kbText = (kb: number | null) => (kb === null ? 'unknown' : kb === 0 ? 'none' : `${(kb / 1048576).toFixed(1)} GiB (${kb} kB)`);

function fieldText(k: string, v: unknown): string {
  if (k === 'cpuPressure' && v && typeof v === 'object') {
    const p = v as Record<string, number>;
    return `some avg10 ${p.someAvg10} %, avg60 ${p.someAvg60} %, avg300 ${p.someAvg300} %`;
  }
  if (k === 'cgroupMemoryLimitBytes') return v === null ? 'none' : `${Math.round(Number(v) / 1048576)} MiB`;
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
  if (!full) return out;
  const shown = new Set(['hostname', 'kernel', 'kernelVersion', 'cpuModel', 'cpuCount', 'cpusAllowed', 'arch', 'memTotalKb', 'memAvailableKb',
    'swapTotalKb', 'thpEnabled', 'thpDefrag', 'hugePageSizeKb', 'virtualization', 'glibcVersion', 'compilerVersion', 'nodeVersion', 'pinnedCpu', 'loadAverage']);
  for (const [k, v] of Object.entries(m)) {
    if (shown.has(k)) continue;
    out.push([k, fieldText(k, v)]);
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

export function mdTable(t: Pick<ReportTable, 'header' | 'rows' | 'leftAlign'>): string {
  const left = new Set(t.leftAlign);
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [line(t.header), `|${t.header.map((_, i) => (left.has(i) ? ':---' : '---:')).join('|')}|`, ...t.rows.map(line)].join('\n');
}

/** "µs" for the "us" of data/published.json. */
export const unitText = (unit: string) => unit.replace(/^us\b/, 'µs');

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
  ].filter(Boolean).join(' · ');
}

export function renderMarkdown(doc: RunDocument, opts: MarkdownOptions = {}): string {
  const out: string[] = [`## forklab ${mdText(doc.experiment)} on ${mdText(doc.machine.hostname)}`, '', runLine(doc), ''];
  out.push('### Machine', '', mdTable({ header: ['machine', 'value'], rows: machineEntries(doc.machine, false), leftAlign: [0, 1] }), '');
  out.push(`Parameters: ${mdCode(JSON.stringify(doc.params))}`, '');
  out.push(`Noise during the run: ${mdLine(witnessText(doc))}`, '');
  out.push('### Warnings', '', ...mdWarnings(doc), '');
  out.push('### Results', '');
  for (const t of reportTables(doc)) {
    out.push(`**${mdText(t.title)}**`, '', mdTable(t), '');
    if (t.note) out.push(mdLine(t.note), '');
  }
  if (doc.experiment === 'spawn' && opts.asciiChart !== false) {
    for (const thp of [...new Set(groupsOf(doc).map((g) => String(g.fields.thp)))]) {
      const cells = groupsOf(doc)
        .filter((g) => String(g.fields.thp) === thp && g.stats)
        .map((g) => ({ method: String(g.fields.method), rssMb: Number(g.fields.rssMb), medianNs: g.stats!.medianNs }));
      if (cells.length) out.push(mdFence('text', `THP ${thp}\n${asciiChart(cells, { width: 64, height: 13, color: false })}`), '');
    }
  }
  if (opts.comparisons?.length) {
    out.push('### This machine beside the published figures', '');
    out.push(mdTable({
      header: ['figure', 'statistic', 'published', 'this machine', 'this ÷ published', 'note'],
      rows: opts.comparisons.map((c) => {
        const u = unitText(c.unit);
        return [c.label, c.statistic ?? '', `${c.publishedValue} ${u}`, `${c.measuredValue.toPrecision(3)} ${u}`, fmtRatio(c.measuredValue / c.publishedValue), c.note ?? ''];
      }),
      leftAlign: [0, 1, 5],
    }), '');
  }
  if (opts.verdicts?.length) {
    const mark = { holds: '✅ holds', differs: '❌ differs', inconclusive: '❔ inconclusive', 'not-measurable': '➖ not measurable' };
    out.push('### Claims', '', mdTable({ header: ['claim', 'statement', 'verdict', 'detail'], rows: opts.verdicts.map((v) => [v.claimId, v.statement, mark[v.verdict], v.detail]), leftAlign: [0, 1, 2, 3] }), '');
  }
  out.push('### Raw data', '', RAW_DATA_NOTE, '');
  return out.join('\n');
}

export function renderCompareMarkdown(a: RunDocument, b: RunDocument, labels: [string, string] = ['A', 'B']): string {
  const ma = machineEntries(a.machine, false);
  const mb = new Map(machineEntries(b.machine, false));
  const out = [`## forklab ${mdText(a.experiment)}: ${mdText(labels[0])} against ${mdText(labels[1])}`, ''];
  out.push(`- **${mdText(labels[0])}**: ${runLine(a)}`, `- **${mdText(labels[1])}**: ${runLine(b)}`, '');
  out.push('### Machines', '', mdTable({ header: ['machine', labels[0], labels[1]], rows: ma.map(([k, v]) => [k, v, mb.get(k) ?? '—']), leftAlign: [0, 1, 2] }), '');
  for (const [d, l] of [[a, labels[0]], [b, labels[1]]] as const) out.push(`### Warnings (${mdText(l)})`, '', ...mdWarnings(d), '');
  if (a.experiment === b.experiment) out.push('### Results', '', mdTable(compareTable(a, b, labels)), '');
  else out.push(`The runs are of different experiments (${mdText(a.experiment)}, ${mdText(b.experiment)}); report each alone.`, '');
  out.push('### Raw data', '', RAW_DATA_NOTE, '');
  return out.join('\n');
}
