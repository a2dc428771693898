// `forklab fleet report`: the fleet document as Markdown or as one self-contained HTML page. Four parts:
// the machines (the fields that differ marked), the claims × machines (columns grouped by pool, kernel, THP,
// seccomp; a row whose machines disagree marked), the headline figures × machines (value and interval; in
// HTML a dot plot per figure), and each machine against the reference (only real differences marked).

import { fmtNumber } from './labels.js';
import { escapeHtml } from './html.js';
import { mdCell } from './escape.js';
import { groupKey, type FleetDocument, type FleetMember, type HeadlinePoint, type ReferenceFigure } from '../claims/fleet.js';

const FIELD_COLUMNS = [
  'kernel',
  'cpuModel',
  'cpuCount',
  'memTotalGb',
  'thpEnabled',
  'thpDefrag',
  'seccompMode',
  'seccompFilters',
  'inContainer',
  'userNamespaced',
  'cgroupCpuLimit',
  'glibcVersion',
  'nodeVersion',
  'virtualization',
];
const LABEL_COLUMNS = ['node.kubernetes.io/instance-type', 'topology.kubernetes.io/zone', 'nodeInfo.containerRuntimeVersion', 'slurm.partition'];

const valueText = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'number' ? fmtNumber(v) : String(v));
const interval = (p: HeadlinePoint) =>
  p.measured === null ? '—' : `${fmtNumber(p.measured)}${p.low !== null && p.high !== null ? ` [${fmtNumber(p.low)}–${fmtNumber(p.high)}]` : ''}`;
const ratioText = (f: ReferenceFigure) =>
  f.ratio === null ? '—' : `×${f.ratio.toFixed(2)}${f.ratioLow !== null && f.ratioHigh !== null ? ` [${f.ratioLow.toFixed(2)}–${f.ratioHigh.toFixed(2)}]` : ''}`;

interface Tables {
  members: FleetMember[];
  fields: string[];
  labels: string[];
  claims: { claimId: string; statement: string; cells: string[]; disagree: boolean }[];
  figures: { figureId: string; label: string; unit: string; published: number; points: HeadlinePoint[] }[];
}

function tables(doc: FleetDocument): Tables {
  const members = doc.members;
  const labels = LABEL_COLUMNS.filter((l) => members.some((m) => l in m.labels));
  const ids = [...new Set(doc.results.flatMap((r) => r.verdicts.map((v) => v.claimId)))];
  const claims = ids.map((id) => {
    const cells = doc.results.map((r) => r.verdicts.find((v) => v.claimId === id)?.verdict ?? 'not judged');
    const statement = doc.results.flatMap((r) => r.verdicts).find((v) => v.claimId === id)!.statement;
    const judged = cells.filter((c) => c === 'holds' || c === 'differs');
    return { claimId: id, statement, cells, disagree: new Set(judged).size > 1 };
  });
  const figIds = [...new Set(doc.results.flatMap((r) => r.headline.map((h) => h.figureId)))];
  // Figures no machine measured are left out (their reasons are in each machine's own report).
  const figures = figIds
    .map((id) => {
      const points = doc.results.map((r) => r.headline.find((h) => h.figureId === id)!);
      const first = points.find((x) => x !== undefined)!;
      return { figureId: id, label: first.label, unit: first.unit, published: first.published, points };
    })
    .filter((f) => f.points.some((p) => p !== undefined && p.measured !== null));
  return { members, fields: FIELD_COLUMNS, labels, claims, figures };
}

const groupText = (m: FleetMember) => groupKey(m).join(' · ');

export function fleetMarkdown(doc: FleetDocument): string {
  const t = tables(doc);
  const ref = t.members.find((m) => m.machine === doc.reference)!;
  const out: string[] = [`# forklab fleet: ${t.members.length} machine${t.members.length === 1 ? '' : 's'}`, ''];
  out.push(`Each machine is judged on its own runs only. Reference for the comparisons: **${ref.node}** (${ref.machine}). Seed ${doc.seed}.`, '');
  out.push('## Machines', '', 'Fields marked **!** differ between machines.', '');
  const head = ['machine', 'pool', ...t.fields.map((f) => (doc.differingFields.includes(f) ? `${f} **!**` : f)), ...t.labels];
  out.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
  for (const m of t.members) {
    const cells = [`${m.node} (${m.machine})`, m.pool ?? '—', ...t.fields.map((f) => valueText(m.record[f])), ...t.labels.map((l) => m.labels[l] ?? '—')];
    out.push(`| ${cells.map(mdCell).join(' | ')} |`);
  }
  out.push(
    '',
    '## Claims × machines',
    '',
    `Columns by pool · kernel · THP · seccomp: ${t.members.map((m) => `${m.node} = ${groupText(m)}`).join('; ')}. **⚑** marks a claim the machines disagree on.`,
    '',
  );
  out.push(`| claim | ${t.members.map((m) => mdCell(m.node)).join(' | ')} |`, `|---|${t.members.map(() => '---').join('|')}|`);
  for (const c of t.claims) out.push(`| ${c.disagree ? '**⚑** ' : ''}${mdCell(`${c.claimId}: ${c.statement}`)} | ${c.cells.join(' | ')} |`);
  out.push('', '## Headline figures × machines', '', 'Value [95 % interval] in the figure’s unit; the article’s value beside it.', '');
  out.push(`| figure | article | ${t.members.map((m) => mdCell(m.node)).join(' | ')} |`, `|---|---|${t.members.map(() => '---').join('|')}|`);
  for (const f of t.figures) out.push(`| ${mdCell(`${f.label} (${f.unit})`)} | ${fmtNumber(f.published)} | ${f.points.map((p) => (p ? interval(p) : '—')).join(' | ')} |`);
  out.push(
    '',
    `## Each machine against ${ref.node}`,
    '',
    'Ratio of medians (this machine ÷ reference) with its bootstrap interval; **slower**/**faster** only where compare’s rule finds a real difference (p < 0.01, interval off 1, at least 5 %).',
    '',
  );
  for (const [i, r] of doc.results.entries()) {
    if (r.versusReference === null) continue;
    const m = t.members[i]!;
    const real = r.versusReference.filter((f) => f.verdict !== 'same');
    out.push(`### ${m.node}: ${real.length} of ${r.versusReference.length} configurations differ`, '');
    if (r.versusReference.length === 0) {
      out.push('No experiment ran on both machines.', '');
      continue;
    }
    out.push('| experiment | configuration | ratio | p | verdict |', '|---|---|---|---|---|');
    for (const f of r.versusReference)
      out.push(`| ${f.experiment} | ${mdCell(f.label)} | ${ratioText(f)} | ${f.pValue.toPrecision(2)} | ${f.verdict === 'same' ? 'same' : `**${f.verdict}**`} |`);
    out.push('');
  }
  return `${out.join('\n')}\n`;
}

/** One figure's machines as dots with interval whiskers, the article's value as a dashed line. */
function dotPlot(f: Tables['figures'][number], members: FleetMember[]): string {
  const rowH = 22;
  const left = 170;
  const width = 640;
  const pts = f.points.map((p, i) => ({ p, m: members[i]! })).filter((x) => x.p && x.p.measured !== null);
  const values = [f.published, ...pts.flatMap(({ p }) => [p.measured!, p.low ?? p.measured!, p.high ?? p.measured!])];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi === lo) [lo, hi] = [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  const x = (v: number) => left + ((v - lo) / (hi - lo)) * (width - left - 20);
  const h = rowH * members.length + 30;
  const rows = members.map((m, i) => {
    const y = 15 + i * rowH;
    const p = f.points[i];
    const name = `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${escapeHtml(m.node)}</text>`;
    if (!p || p.measured === null) return `${name}<text x="${left}" y="${y + 4}" class="na">not measured</text>`;
    const whisker = p.low !== null && p.high !== null ? `<line x1="${x(p.low)}" x2="${x(p.high)}" y1="${y}" y2="${y}" class="ci"/>` : '';
    return `${name}${whisker}<circle cx="${x(p.measured)}" cy="${y}" r="4"><title>${escapeHtml(`${m.node}: ${interval(p)} ${f.unit}`)}</title></circle>`;
  });
  const pub = `<line x1="${x(f.published)}" x2="${x(f.published)}" y1="4" y2="${h - 22}" class="pub"/>`;
  const axis = `<text x="${left}" y="${h - 6}">${fmtNumber(lo)}</text><text x="${width - 20}" y="${h - 6}" text-anchor="end">${fmtNumber(hi)} ${escapeHtml(f.unit)}</text>`;
  return `<svg viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" role="img" aria-label="${escapeHtml(f.label)}">${pub}${rows.join('')}${axis}</svg>`;
}

export function fleetHtml(doc: FleetDocument): string {
  const t = tables(doc);
  const ref = t.members.find((m) => m.machine === doc.reference)!;
  const e = escapeHtml;
  const diff = (f: string) => (doc.differingFields.includes(f) ? ' class="differs"' : '');
  const machines = `<table><tr><th>machine</th><th>pool</th>${t.fields.map((f) => `<th${diff(f)}>${e(f)}</th>`).join('')}${t.labels.map((l) => `<th>${e(l)}</th>`).join('')}</tr>${t.members
    .map(
      (m) =>
        `<tr><td>${e(m.node)}<br><small>${e(m.machine)}</small></td><td>${e(m.pool ?? '—')}</td>${t.fields.map((f) => `<td${diff(f)}>${e(valueText(m.record[f]))}</td>`).join('')}${t.labels.map((l) => `<td>${e(m.labels[l] ?? '—')}</td>`).join('')}</tr>`,
    )
    .join('')}</table>`;
  // Header rows: one per grouping level, adjacent equal cells merged.
  const levels = [0, 1, 2, 3].map((lv) => {
    const cells: { text: string; span: number }[] = [];
    const prefix = (i: number) =>
      groupKey(t.members[i]!)
        .slice(0, lv + 1)
        .join('\u0000');
    for (const [i, m] of t.members.entries()) {
      if (i > 0 && prefix(i) === prefix(i - 1)) cells.at(-1)!.span++;
      else cells.push({ text: groupKey(m)[lv]!, span: 1 });
    }
    return `<tr><th></th>${cells.map((c) => `<th colspan="${c.span}">${e(c.text)}</th>`).join('')}</tr>`;
  });
  const claims = `<table class="claims">${levels.join('')}<tr><th>claim</th>${t.members.map((m) => `<th>${e(m.node)}</th>`).join('')}</tr>${t.claims
    .map(
      (c) =>
        `<tr${c.disagree ? ' class="disagree"' : ''}><td>${c.disagree ? '⚑ ' : ''}<b>${e(c.claimId)}</b> ${e(c.statement)}</td>${c.cells.map((v) => `<td class="v-${e(v)}">${e(v)}</td>`).join('')}</tr>`,
    )
    .join('')}</table>`;
  const figures = t.figures
    .map((f) => `<figure><figcaption>${e(f.label)} (${e(f.unit)}; article ${fmtNumber(f.published)}, dashed)</figcaption>${dotPlot(f, t.members)}</figure>`)
    .join('');
  const versus = doc.results
    .map((r, i) => {
      if (r.versusReference === null) return '';
      const m = t.members[i]!;
      const real = r.versusReference.filter((f) => f.verdict !== 'same').length;
      return `<h3>${e(m.node)}: ${real} of ${r.versusReference.length} configurations differ</h3><table><tr><th>experiment</th><th>configuration</th><th>ratio [95 %]</th><th>p</th><th>verdict</th></tr>${r.versusReference
        .map(
          (f) =>
            `<tr${f.verdict === 'same' ? '' : ' class="real"'}><td>${e(f.experiment)}</td><td>${e(f.label)}</td><td>${e(ratioText(f))}</td><td>${f.pValue.toPrecision(2)}</td><td>${e(f.verdict)}</td></tr>`,
        )
        .join('')}</table>`;
    })
    .join('');
  const style =
    'body{font:14px system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}' +
    '.differs{background:#fff3bf}.disagree td:first-child{background:#ffe3e3}.v-holds{color:#2b8a3e}.v-differs{color:#c92a2a;font-weight:bold}.v-inconclusive{color:#e67700}.real td{background:#ffe3e3;font-weight:bold}' +
    'svg text{font-size:12px}svg .ci{stroke:#1c7ed6;stroke-width:2}svg circle{fill:#1c7ed6}svg .pub{stroke:#868e96;stroke-dasharray:4 3}svg .na{fill:#868e96}';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>forklab fleet</title><style>${style}</style></head><body><h1>forklab fleet: ${t.members.length} machines</h1><p>Each machine is judged on its own runs only. Reference: <b>${e(ref.node)}</b> (${e(ref.machine)}); seed ${doc.seed}.</p><h2>Machines</h2><p>Highlighted fields differ between machines.</p>${machines}<h2>Claims × machines</h2><p>Columns grouped by pool, kernel, THP and seccomp. ⚑ marks a claim the machines disagree on.</p>${claims}<h2>Headline figures × machines</h2>${figures}<h2>Each machine against ${e(ref.node)}</h2><p>Ratio of medians (this machine ÷ reference) with its bootstrap interval; highlighted only where compare’s rule finds a real difference.</p>${versus}</body></html>\n`;
}
