import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunDocument } from '../src/document/run.js';
import { escapeHtml, renderHtml } from '../src/report/html.js';
import { chartsFor, publishedChart } from '../src/report/charts.js';
import { withConclusion } from './helpers/conclusion.js';
import { compareTable, differencesOf } from '../src/report/compare.js';
import { groupsOf, readingRecords } from '../src/report/groups.js';
import { pagetablesExperiment } from '../src/experiments/pagetables/index.js';
import { readRunDocument, registerReportCommand, reportAction } from '../src/cli/report.js';
import { runConclusions } from '../src/report/judged.js';
import { loadPublished } from '../src/reference/published.js';
import { Command } from 'commander';

const FIXTURES = new URL('./fixtures/report/', import.meta.url);
const fixture = (name: string): RunDocument => JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as RunDocument;
const HOSTILE = '<script>alert(1)</script>';

/** Opening tags of every <svg>, and the page with exactly the SVG namespace attribute of each removed. */
function withoutSvgNamespace(html: string): { svgCount: number; rest: string } {
  const opening = html.match(/<svg\b[^>]*>/g) ?? [];
  for (const tag of opening) assert.match(tag, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[ >]/, `svg tag starts with its namespace: ${tag.slice(0, 80)}`);
  return { svgCount: opening.length, rest: html.replace(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '<svg') };
}

function assertOffline(html: string): void {
  const { rest } = withoutSvgNamespace(html);
  assert.ok(!/https?:\/\//i.test(rest), `a URL outside the SVG namespace: ${rest.match(/.{40}https?:\/\/.{40}/i)?.[0]}`);
  assert.ok(!/<script/i.test(html), 'no script element');
  assert.ok(!/<link\b|@import|<iframe|<img\b|<object|<embed/i.test(html), 'no external resource element');
  for (const m of html.matchAll(/url\(([^)]*)\)/g)) assert.match(m[1]!, /^#/, 'url() only to fragments inside the page');
  for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) assert.match(m[1]!, /^#/, 'links only to anchors inside the page');
}

test('escapeHtml escapes the five HTML metacharacters', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  assert.equal(escapeHtml('plain µs – text'), 'plain µs – text');
});

test('spawn report: one SVG per chart, hostile strings only escaped, no URL but the SVG namespace', async () => {
  const doc = fixture('spawn');
  doc.machine = { ...doc.machine, hostname: HOSTILE, cpuModel: '"><img src=x onerror=alert(2)>' };
  doc.warnings = [...doc.warnings, { code: 'x<y', message: `see ${HOSTILE} and https://example.com/` }];
  doc.label = '</style><script>alert(3)</script>'; // the run's label, shown in the run's record
  const { comparisons } = runConclusions(doc, loadPublished());
  const html = await renderHtml({
    doc,
    comparisons,
    verdicts: [
      { claimId: '000.vfork-flat', statement: 'vfork is flat', verdict: 'holds', detail: 'slope 0.1 µs/MB' },
      { claimId: '000.thp-off-slope-16x', statement: `ratio ${HOSTILE}`, verdict: 'differs', detail: '44× here' },
      { claimId: '000.pte-cost-14ns', statement: 'needs 1024 MB', verdict: 'not-measurable', detail: 'not run' },
    ],
    generatedAt: new Date('2026-01-01T00:00:00Z'),
  });
  // The warning's URL is the only one the run carries; take it out, then nothing may remain.
  const page = html.replace('https://example.com/', '');
  assertOffline(page);

  const expected = ['spawn-latency', 'published-ratios', 'spawn-distribution'];
  assert.equal(publishedChart(comparisons)?.id, 'published-ratios', 'one chart of every published figure, whatever its unit');
  const { svgCount } = withoutSvgNamespace(html);
  assert.equal(svgCount, expected.length);
  for (const id of expected) assert.ok(html.includes(`data-chart="${id}"`), `chart ${id}`);
  assert.equal((html.match(/<figure class="chart"/g) ?? []).length, expected.length);

  assert.ok(!html.includes(HOSTILE) && !html.includes('<img') && !html.includes('</style><script>'));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;'));
  assert.ok(html.includes('&lt;/style&gt;&lt;script&gt;alert(3)&lt;/script&gt;'));
  assert.equal((html.match(/<\/style>/g) ?? []).length, 1, 'the only </style> closes our stylesheet');

  // The conclusion and the main chart first, then the claims, the figures beside the article, the tables, the machine record.
  const order = ['conclusion', 'verdicts', 'published', 'results', 'machine', 'warnings', 'raw'].map((section) => html.indexOf(`<section id="${section}">`));
  assert.ok(
    order.every((at) => at > 0),
    `every section: ${order.join(' ')}`,
  );
  assert.deepEqual(
    [...order].sort((x, y) => x - y),
    order,
    'in that order',
  );
  assert.match(html, /docs\/glossary\.md/, 'the glossary linked');
  for (const badge of ['holds', 'differs', 'not-measurable'])
    assert.ok(html.includes(`<details class="verdict" data-verdict="${badge}"><summary class="vrow"><span><span class="badge ${badge}">`), badge);
  // The figures come from the claims engine: only this experiment's, only those this run measured.
  assert.ok(comparisons.length > 0 && comparisons.every((c) => c.figureId!.startsWith('000.')), comparisons.map((c) => c.figureId).join(' '));
  const rss0 = comparisons.find((c) => c.figureId === '000.thp-off.fork-exec.rss0');
  const mean = groupsOf(doc).find((g) => g.fields.method === 'fork-exec' && g.fields.rssMb === 0 && g.fields.thp === 'off')!.stats!.meanNs;
  if (rss0) assert.ok(Math.abs(rss0.measuredValue - mean / 1000) < 1e-6, 'the mean of the matching configuration, in µs');
  // Every method of the run is in the chart's legend.
  for (const m of ['fork-exec', 'vfork-exec', 'posix-spawn']) assert.ok(html.includes(`>${m}</text>`), `legend ${m}`);
});

test('every experiment renders its charts and tables; unknown ones generically', async () => {
  const expected: Record<string, string[]> = {
    cow: ['cow-passes', 'cow-distribution'],
    create: ['create-thread-vs-process', 'create-distribution'],
    exec: ['exec-static-dynamic', 'exec-distribution'],
    pagetables: ['pagetables-phases', 'pagetables-distribution'],
    vma: ['vma-fork', 'vma-distribution'],
    deadlock: [],
    mystery: ['mystery-medians', 'mystery-distribution'],
  };
  for (const [name, ids] of Object.entries(expected)) {
    const doc = fixture(name);
    assert.match(String((doc as unknown as { note: string }).note), /^synthetic/, `${name} fixture is marked synthetic`);
    const html = await renderHtml({ doc });
    assertOffline(html);
    assert.equal(withoutSvgNamespace(html).svgCount, ids.length, `${name}: svg count`);
    assert.deepEqual(
      chartsFor(doc).map((c) => c.id),
      ids,
    );
    for (const id of ids) assert.ok(html.includes(`data-chart="${id}"`), `${name}: ${id}`);
    assert.ok(html.includes('<table>'), `${name}: a table`);
  }
  const mystery = await renderHtml({ doc: fixture('mystery') });
  // The generic table names every configuration's series and fields, escaped.
  assert.ok(mystery.includes('<td>&lt;i&gt;&amp;&quot;gamma&quot;&lt;/i&gt;</td>'));
  assert.ok(!mystery.includes('<i>&"gamma"</i>'));
  for (const h of ['series', 'sizeKb', 'repeat', 'state', 'median µs [95 % CI]']) assert.ok(mystery.includes(`<th scope="col">${h}</th>`), h);
  const deadlock = await renderHtml({ doc: fixture('deadlock') });
  // deadlock in its own terms, as the terminal shows it: whether each variant's child got the lock or hung.
  for (const h of ['variant', 'child got lock', 'child hung (killed)']) assert.ok(deadlock.includes(`<th scope="col">${h}</th>`), h);
  assert.ok(deadlock.includes('<td>without-atfork</td><td class="num">0/1</td><td class="num">1/1</td>'), 'without atfork: no lock, hung');
});

test('pagetables readings come from the configurations first, else from the summary', () => {
  const doc = fixture('pagetables');
  const spec = pagetablesExperiment.chart;
  assert.ok(spec && spec.kind === 'readings');
  const records = readingRecords(doc, spec);
  assert.equal(records.length, 8);
  assert.deepEqual(records[2], { facet: 'sparse', x: 'after-fork', readings: { parentVmPteKb: 33096, childVmPteKb: 33096, pageTablesKb: 68600 } });
  const inConfigs = {
    ...doc,
    summary: null,
    configurations: [1, 2].map((repeat) => ({
      series: 'reading',
      layout: 'dense',
      phase: 'before',
      parentVmPteKb: 90 + repeat * 10,
      pageTablesKb: 2000,
      repeat,
      state: 'ok' as const,
      info: {},
      samplesNs: [],
      stats: null,
    })),
  };
  assert.deepEqual(readingRecords(inConfigs, spec), [{ facet: 'dense', x: 'before', readings: { parentVmPteKb: 105, childVmPteKb: null, pageTablesKb: 2000 } }]);
});

test('repeats are pooled: one group per configuration, samples of both repeats', () => {
  const cow = fixture('cow');
  const groups = groupsOf(cow);
  assert.equal(groups.length, 8);
  const g = groups.find((x) => x.series === 'first-write' && x.fields.thp === 'off')!;
  assert.deepEqual(g.repeats, [1, 2]);
  assert.equal(g.stats!.n, 40);
  assert.ok(g.stats!.ciLowNs <= g.stats!.medianNs && g.stats!.medianNs <= g.stats!.ciHighNs);
});

test('compare: two runs in one chart and one table, the run as colour', async () => {
  const a = fixture('spawn');
  const b = fixture('spawn-b');
  const html = await renderHtml({ doc: a, compareWith: b, labels: ['before', 'after <b>'] });
  assertOffline(html);
  // What differs first: the configurations beyond noise, then every configuration, the machine records folded last.
  const at = (id: string) => html.indexOf(`<section id="${id}">`);
  assert.ok(at('differs') > 0 && at('differs') < at('results') && at('results') < at('machine') && at('machine') < at('warnings'), 'what differs leads');
  assert.match(
    html,
    /<section id="differs"><h2>What differs<\/h2>\n<p class="conclusion">(\d+ of the 12 configurations both runs measured differs? beyond noise|None of the 12 configurations both runs measured differs beyond noise)/,
  );
  const machines = html.slice(at('machine'), at('warnings'));
  assert.match(machines, /^<section id="machine"><h2>Machines and runs<\/h2>\n<details class="fold"><summary>Both machine records, \d+ rows/, 'the machine records folded');
  const d = differencesOf(a, b, ['before', 'after <b>']);
  assert.ok(
    d.figures.rows.every((r) => r.at(-1) === '▲ slower' || r.at(-1) === '▼ faster'),
    'only what differs beyond noise',
  );
  assert.equal(d.figures.rows.length, compareTable(a, b, ['before', 'after <b>']).rows.filter((r) => r.at(-1) !== 'same').length);
  assert.deepEqual(d.onlyIn, [[], []]);
  const lead = html.slice(at('differs'), at('results'));
  for (const r of d.figures.rows) assert.ok(lead.includes(`<td>${escapeHtml(r[0]!)}</td>`), `${r[0]} leads`);
  // The verdicts that changed between the runs, each run judged alone.
  const v = (verdict: 'holds' | 'differs' | 'inconclusive') => [{ claimId: '000.vfork-flat', statement: 'vfork <is> flat', verdict, detail: '' }];
  const changed = await renderHtml({ doc: a, compareWith: b, labels: ['A', 'B'], compareVerdicts: [v('holds'), v('differs')] });
  assert.match(changed, /1 of the article’s claims changed verdict:/);
  assert.match(
    changed,
    /<tr><td>vfork &lt;is&gt; flat <code>000\.vfork-flat<\/code><\/td><td><span class="badge holds">holds<\/span><\/td><td><span class="badge differs">differs<\/span><\/td><\/tr>/,
  );
  const same = await renderHtml({ doc: a, compareWith: b, labels: ['A', 'B'], compareVerdicts: [v('holds'), v('holds')] });
  assert.match(same, /No claim of the article changed verdict\./);
  assert.equal(withoutSvgNamespace(html).svgCount, 1);
  assert.ok(html.includes('data-chart="compare-runs"'));
  assert.ok(html.includes('<th scope="col">after &lt;b&gt; ÷ before [95 % CI]</th>'));
  assert.ok(html.includes('<th scope="col">after &lt;b&gt; vs before</th>'), 'the mark of compare');
  assert.ok(html.includes('<th scope="col">before µs</th>'), 'a unit in every header');
  assert.ok(html.includes('>before</text>') && html.includes('>after &lt;b&gt;</text>'), 'both runs in the legend');
  assert.ok(html.includes('<td>fork-exec · 64 MB · THP off</td>'));
});

test('compare: a configuration one run alone measured is said under the differences, never counted as one', async () => {
  const a = fixture('spawn');
  const b = fixture('spawn-b');
  // b without its 64 MB configurations: measured in a only
  const fewer = { ...b, configurations: b.configurations.filter((c) => (c as { rssMb?: unknown }).rssMb !== 64) } as RunDocument;
  const gone = compareTable(a, b, ['A', 'B']).rows.filter((r) => r[0]!.includes('64 MB')).length;
  assert.ok(gone > 0, 'the fixture has 64 MB configurations');
  const d = differencesOf(a, fewer, ['A', 'B']);
  assert.equal(d.onlyIn[0].length, gone);
  assert.deepEqual(d.onlyIn[1], []);
  assert.equal(d.compared, 12 - gone);
  assert.ok(
    d.figures.rows.every((r) => !r.at(-1)!.startsWith('only in')),
    'not among the differences',
  );
  const all = compareTable(a, fewer, ['A', 'B']);
  const onlyA = all.rows.filter((x) => x.at(-1) === 'only in A');
  for (const r of onlyA) assert.deepEqual(r.slice(1, 3), ['measured', 'not measured']);
  // Said as the table's other rows are ("fork-exec · 64 MB · THP off"), not in compare's own words ("rss 64 MB").
  assert.ok(
    onlyA.every((r) => r[0]!.includes(' · 64 MB') && !r[0]!.includes('rss')),
    JSON.stringify(onlyA.map((r) => r[0])),
  );
  const html = await renderHtml({ doc: a, compareWith: fewer, labels: ['A', 'B'] });
  const lead = html.slice(html.indexOf('<section id="differs">'), html.indexOf('<section id="results">'));
  assert.match(lead, new RegExp(`of the ${12 - gone} configurations both runs measured|None of the ${12 - gone} configurations both runs measured`));
  assert.match(lead, new RegExp(`<p class="note">Measured in A only \\(${gone}\\): `));
});

test('forklab report --input writes the HTML and Markdown files; bad input names the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-report-'));
  const noRun = {
    loadRun: () => {
      throw new Error('no run 7 in /nowhere.db');
    },
  };
  const stderr = process.stderr.write.bind(process.stderr);
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const input = new URL('spawn.json', FIXTURES).pathname;
    const html = join(dir, 'r.html');
    const md = join(dir, 'r.md');
    assert.equal(await reportAction(undefined, { input: [input], html, markdown: md }, noRun), 0);
    assert.ok(readFileSync(html, 'utf8').startsWith('<!doctype html>'));
    assert.ok(readFileSync(md, 'utf8').includes('| parent RSS | fork-exec |'));
    assert.ok(readFileSync(html, 'utf8').includes('data-chart="published-ratios"'), 'published figures from deps');

    await assert.rejects(reportAction(undefined, { input: [input], html: join(dir, 'missing', 'r.html') }, noRun), /--html: directory .* does not exist/);
    await assert.rejects(reportAction(undefined, { compare: ['1'], html }, noRun), /--compare: expected two runs/);
    await assert.rejects(reportAction('7', { html }, noRun), /no run 7 in \/nowhere\.db/);
    await assert.rejects(reportAction('7', { input: [input], html }, noRun), /--input: give either/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"schema":"other"}');
    assert.throws(() => readRunDocument(bad), /not a forklab run document/);
    await assert.rejects(reportAction(undefined, { input: [bad], html }, noRun), /--input: .*not a forklab run document/);
  } finally {
    process.stderr.write = stderr;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('registerReportCommand: `report --input A B --markdown FILE` compares two documents', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-report-'));
  const stderr = process.stderr.write.bind(process.stderr);
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const program = new Command('forklab').exitOverride();
    registerReportCommand(program, {
      loadRun: () => {
        throw new Error('unused');
      },
    });
    const out = join(dir, 'c.md');
    const a = new URL('spawn.json', FIXTURES).pathname;
    const b = new URL('spawn-b.json', FIXTURES).pathname;
    await program.parseAsync(['report', '--input', a, b, '--markdown', out], { from: 'user' });
    const md = readFileSync(out, 'utf8');
    assert.ok(md.startsWith('## forklab spawn: spawn.json against spawn-b.json'));
    assert.ok(md.includes('| configuration | spawn.json µs | spawn-b.json µs | spawn-b.json ÷ spawn.json [95 % CI] | p | spawn-b.json vs spawn.json |'), md);
    // Rows sorted by configuration, numbers by value; each with compare's mark.
    const rows = md
      .slice(md.indexOf('### Every configuration'))
      .split('\n')
      .filter((l) => /^\| (fork|vfork|posix)/.test(l));
    assert.ok(md.indexOf('### What differs') < md.indexOf('### Every configuration') && md.indexOf('### Every configuration') < md.indexOf('### Machines'), 'what differs first');
    assert.ok(rows.length > 0 && rows.every((l) => /\| (▲ slower|▼ faster|same) \|$/.test(l)), rows.join('\n'));
    const labels = rows.map((l) => l.split(' | ')[0]!.slice(2));
    assert.deepEqual(
      labels,
      [...labels].sort((x, y) => x.localeCompare(y, 'en', { numeric: true })),
    );
    const cow = new URL('cow.json', FIXTURES).pathname;
    await assert.rejects(
      program.parseAsync(['report', '--input', a, cow, '--markdown', out], { from: 'user' }),
      /--compare: the first run is of experiment spawn and the second of cow; only runs of one experiment are compared/,
    );
  } finally {
    process.stderr.write = stderr;
    process.exitCode = undefined;
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the article's values are drawn on the run's own chart, at the run's configurations, and only there", () => {
  const published = loadPublished();
  const valuesOf = (c: { spec: unknown }) => (c.spec as { data: { values: Record<string, unknown>[] } }).data.values;
  for (const [name, chartId, unit] of [
    ['spawn', 'spawn-latency', 'us'],
    ['cow', 'cow-passes', 'ns/page'],
    ['create', 'create-thread-vs-process', 'us'],
    ['exec', 'exec-static-dynamic', 'us'],
  ] as const) {
    const doc = fixture(name);
    const { comparisons } = runConclusions(doc, published);
    const plain = chartsFor(doc).find((c) => c.id === chartId)!;
    assert.equal(valuesOf(plain).filter((v) => v.kind === 'published').length, 0, `${name}: without comparisons, no published mark`);
    const drawn = chartsFor(doc, comparisons).find((c) => c.id === chartId)!;
    const marks = valuesOf(drawn).filter((v) => v.kind === 'published');
    assert.ok(marks.length > 0, `${name}: published values on ${chartId}`);
    assert.match(JSON.stringify(drawn.spec), /datum\.kind === 'published'/, `${name}: a layer draws them`);
    const groups = groupsOf(doc);
    for (const m of marks) {
      // Each mark is one published figure's value, at a configuration this run measured.
      const figure = published.figures.find((f) => f.unit === unit && f.value === m.published && f.article === articleOfExperiment(name));
      assert.ok(figure, `${name}: ${JSON.stringify(m)} is a published ${unit} value`);
      assert.ok(
        groups.some((g) => g.series === m.series && Object.entries(g.fields).every(([k, v]) => m[k] === v)),
        `${name}: ${JSON.stringify(m)} sits at a measured configuration`,
      );
    }
  }
  // A run measured at sizes the article did not use gets no mark there.
  const spawn = fixture('spawn');
  const sizes = new Set(groupsOf(spawn).map((g) => g.fields.rssMb));
  const { comparisons } = runConclusions(spawn, published);
  const marks = valuesOf(chartsFor(spawn, comparisons).find((c) => c.id === 'spawn-latency')!).filter((v) => v.kind === 'published');
  for (const m of marks) assert.ok(sizes.has(m.rssMb as number), `mark at rss ${String(m.rssMb)} MB, measured: ${[...sizes].join(', ')}`);
});

const articleOfExperiment = (name: string): string => ({ spawn: '000', cow: '001', create: '002', exec: '004' })[name]!;

/** The HTML of each `<details class="verdict">`: its one line (summary) and its folded reasoning. */
function verdictElements(html: string): { summary: string; body: string }[] {
  return [...html.matchAll(/<details class="verdict"[^>]*><summary[^>]*>([\s\S]*?)<\/summary>([\s\S]*?)<\/details>/g)].map((m) => ({ summary: m[1]!, body: m[2]! }));
}

test('a run report leads with its conclusion and main chart; verdicts one line each, the reasoning folded, in sentences; no character chart', async () => {
  const doc = fixture('spawn');
  const c = runConclusions(doc, loadPublished());
  const said = 'fork+exec grows 25.6 µs per MB <with> THP off';
  const html = await withConclusion('spawn', [said, 'vfork and posix_spawn stay flat'], () => renderHtml({ doc, ...c }));
  const lead = html.slice(html.indexOf('<section id="conclusion">'), html.indexOf('<section id="verdicts">'));
  assert.ok(html.indexOf('<section id="conclusion">') < html.indexOf('<section id="verdicts">'), 'the conclusion before the claims');
  assert.match(
    lead,
    /^<section id="conclusion">\n<p class="conclusion">fork\+exec grows 25\.6 µs per MB &lt;with&gt; THP off<br>\nvfork and posix_spawn stay flat<\/p>/,
    'the conclusion heads the page, escaped',
  );
  assert.equal(html.indexOf('<figure'), lead.indexOf('<figure') + html.indexOf('<section id="conclusion">'), 'the first chart of the page is under the conclusion');
  assert.match(lead, /<figure class="chart" id="chart-spawn-latency"/, 'the main chart: latency against parent RSS');
  assert.equal((html.match(/<p class="conclusion">/g) ?? []).length, 1, 'said once');
  // The terminal's character chart is not repeated: the SVG chart is the chart.
  assert.doesNotMatch(html, /<pre\b/);
  assert.doesNotMatch(html, /parent RSS, MB\n/);
  // One line per verdict: the badge, the claim, this machine against the article; the reasoning folded below it.
  const items = verdictElements(html);
  assert.equal(items.length, c.verdicts.length);
  for (const [i, v] of c.verdicts.entries()) {
    const item = items.find((x) => x.summary.includes(escapeHtml(v.statement)));
    assert.ok(item, `${v.claimId}: a line of its own`);
    assert.match(item.summary, new RegExp(`^<span><span class="badge ${v.verdict}">`), `${v.claimId}: the verdict first`);
    assert.ok(v.gist && item.summary.includes(`<span class="gist">${escapeHtml(v.gist)}</span>`), `${v.claimId}: this machine against the article`);
    assert.ok(!item.summary.includes('<p>'), `${v.claimId}: no reasoning in the line`);
    for (const s of v.reasoning!) assert.ok(item.body.includes(`<p>${escapeHtml(s)}</p>`), `${v.claimId} (${i}): its reasoning folded: ${s}`);
    assert.ok(item.body.includes(`<code>${v.claimId}</code>`));
  }
  // Whole sentences: each starts with a capital (or a name) and ends with a full stop; none runs into the next.
  const reasons = c.verdicts.flatMap((v) => v.reasoning!);
  assert.ok(
    reasons.some((s) => s.startsWith('Between runs here: ')),
    'the drift is a sentence of its own',
  );
  for (const s of reasons) assert.match(s, /[.!?…]$/, s);
  assert.doesNotMatch(html, /[a-z0-9%)] (Between runs here|To settle it)/, 'no sentence runs into the next');
});

test('a run whose view has no conclusion still leads with its main chart and the verdicts counted', async () => {
  const doc = fixture('cow');
  const c = runConclusions(doc, loadPublished());
  const html = await withConclusion('cow', [], () => renderHtml({ doc, ...c }));
  const lead = html.slice(html.indexOf('<section id="conclusion">'), html.indexOf('<section id="verdicts">'));
  assert.match(lead, /<p class="tally">Article 001’s \d+ claims on this machine: /);
  assert.match(lead, /data-chart="cow-passes"/);
});
