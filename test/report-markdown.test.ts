import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunDocument } from '../src/document/run.js';
import { mdCell, renderMarkdown } from '../src/report/markdown.js';
import { renderCompareMarkdown } from '../src/report/compare.js';
import { resultsOf } from '../src/report/results.js';
import { renderView } from '../src/report/terminal.js';
import { runOfDocument } from '../src/document/run.js';
import { findExperiment } from '../src/experiments/index.js';
import { asciiChart } from '../src/report/ascii-chart.js';

const fixture = (name: string): RunDocument => JSON.parse(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8')) as RunDocument;

/** Cells of a Markdown table row: split on pipes that are not escaped. */
const cells = (line: string): string[] =>
  line
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** Every GitHub-flavoured table of a Markdown text: header, alignment row, body rows. */
function tables(md: string): { header: string[]; align: string[]; rows: string[][] }[] {
  const out: { header: string[]; align: string[]; rows: string[][] }[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || (i > 0 && lines[i - 1]!.startsWith('|'))) continue;
    const block: string[] = [];
    for (let j = i; j < lines.length && lines[j]!.startsWith('|'); j++) block.push(lines[j]!);
    out.push({ header: cells(block[0]!), align: cells(block[1]!), rows: block.slice(2).map(cells) });
  }
  return out;
}

function assertWellFormed(md: string): void {
  const ts = tables(md);
  assert.ok(ts.length > 0, 'at least one table');
  for (const t of ts) {
    assert.ok(
      t.align.every((a) => a === ':---' || a === '---:'),
      `alignment row: ${t.align.join(' ')}`,
    );
    assert.equal(t.align.length, t.header.length, `alignment row as wide as the header ${t.header.join(' ')}`);
    for (const r of t.rows) assert.equal(r.length, t.header.length, `row as wide as the header: ${r.join(' | ')}`);
  }
  // Each table is separated from the text around it by a blank line.
  const lines = md.split('\n');
  lines.forEach((l, i) => {
    if (l.startsWith('|') && i > 0 && !lines[i - 1]!.startsWith('|')) assert.equal(lines[i - 1], '', `blank line before the table at line ${i + 1}`);
  });
}

test('spawn: machine summary, one table per THP mode, slopes, warnings, terminal chart', () => {
  const doc = fixture('spawn');
  const md = renderMarkdown(doc);
  assertWellFormed(md);
  const ts = tables(md);
  const machine = ts.find((t) => t.header[0] === 'machine')!;
  assert.deepEqual(machine.header, ['machine', 'value']);
  assert.ok(md.indexOf('### Results') < md.indexOf('### Machine'), 'the results first, the machine last');
  for (const k of ['hostname', 'kernel', 'CPU', 'memory', 'THP', 'glibc / compiler / Node'])
    assert.ok(
      machine.rows.some((r) => r[0] === k),
      k,
    );

  const thpOn = ts.find((t) => t.header[0] === 'parent RSS')!;
  assert.deepEqual(thpOn.header, ['parent RSS', 'fork-exec', 'vfork-exec', 'posix-spawn', 'huge pages']);
  assert.deepEqual(thpOn.align, [':---', '---:', '---:', '---:', '---:']);
  assert.deepEqual(
    thpOn.rows.map((r) => r[0]),
    ['0 MB', '64 MB'],
  );
  for (const r of thpOn.rows) for (const c of r.slice(1, 4)) assert.match(c, /^\d+(\.\d+)? \[\d+(\.\d+)?–\d+(\.\d+)?\]$/);
  assert.equal(ts.filter((t) => t.header[0] === 'parent RSS').length, 2, 'THP on and off');
  assert.ok(md.indexOf('**THP on:') < md.indexOf('**THP off:'));
  assert.ok(ts.some((t) => t.header.join() === 'method,THP,µs per MB,R²,per entry'));

  for (const w of doc.warnings) assert.ok(md.includes(`- **${w.code}**:`), w.code);
  assert.match(md, /\*\*THP on:[^\n]*\*\*\n\n\|[\s\S]*?```text\n[\s\S]*parent RSS, MB[\s\S]*```/, "the terminal chart under its THP mode's table");
  assert.ok(md.includes('--json FILE'), 'how to get the raw data');
});

test('strings from the run cannot break a table or inject HTML', () => {
  assert.equal(mdCell('a|b'), 'a\\|b');
  assert.equal(mdCell('<script>x</script>'), '&lt;script&gt;x&lt;/script&gt;');
  assert.equal(mdCell('two\nlines'), 'two lines');
  const doc = fixture('spawn');
  doc.machine = { ...doc.machine, hostname: 'evil|<script>alert(1)</script>' };
  doc.warnings = [{ code: 'w', message: 'a | b <img src=x>' }];
  const md = renderMarkdown(doc);
  assertWellFormed(md);
  assert.ok(!md.includes('<script>') && !md.includes('<img'));
  assert.ok(md.includes('| hostname | evil\\|&lt;script&gt;alert(1)&lt;/script&gt; |'));
});

test('published figures become a table in the article’s words, verdicts the answer’s list', () => {
  const md = renderMarkdown(fixture('spawn'), {
    comparisons: [
      {
        label: 'fork-exec · 0 MB · THP on · mean',
        figureLabel: 'fork()+exec() from a parent with no extra memory',
        publishedValue: 186,
        measuredValue: 801.2,
        unit: 'us',
        statistic: 'mean',
        article: '000',
      },
      { label: 'fork-exec · 0 MB · THP off · mean', publishedValue: 1860, measuredValue: 18012, unit: 'us', statistic: 'mean', article: '000' },
    ],
    verdicts: [{ claimId: '000.vfork-flat', statement: 'vfork | flat', verdict: 'holds', detail: 'ok' }],
  });
  assertWellFormed(md);
  const ts = tables(md);
  const pub = ts.find((t) => t.header[0] === 'figure, in the article’s words')!;
  assert.deepEqual(pub.rows[0], ['fork()+exec() from a parent with no extra memory', 'mean', '186 µs', '801 µs', '4.31×', '']);
  assert.deepEqual(pub.rows[1], ['fork-exec · 0 MB · THP off · mean', 'mean', '1,860 µs', '18,012 µs', '9.68×', ''], 'thousands separators');
  assert.deepEqual(ts.find((t) => t.header[0] === 'verdict')!.rows, [['✅ holds', 'vfork \\| flat', '']], 'one line per verdict');
  assert.match(md, /^- \*\*vfork \| flat\*\* ✅ holds \(`000\.vfork-flat`\)\. ok$/m, 'its reasoning after');
  assert.match(md, /Of 1 claim of article 000 \(Three ways to start a process\), on this machine 1 holds, 0 differ/);
});

test('every fixture gives well-formed tables; unknown experiments one row per configuration', () => {
  for (const name of ['cow', 'create', 'exec', 'pagetables', 'vma', 'deadlock', 'mystery']) assertWellFormed(renderMarkdown(fixture(name)));
  // A document without a summary: the experiment's view, its summary computed again from the configurations.
  const cow = tables(renderMarkdown(fixture('cow'))).filter((x) => x.header[0] === 'pass');
  assert.equal(cow.length, 2, 'one table per THP mode, as the terminal shows');
  assert.deepEqual(cow[0]!.header, ['pass', 'ns/page [95 % CI]', 'minor faults', 'faults/page', 'article 001']);
  assert.match(cow[0]!.rows[1]![0]!, /^first write/);
  const mystery = fixture('mystery');
  const t = tables(renderMarkdown(mystery)).find((x) => x.header[0] === 'series')!;
  assert.equal(t.rows.length, mystery.configurations.length);
  assert.deepEqual(t.header, ['series', 'sizeKb', 'repeat', 'state', 'median µs [95 % CI]', 'n']);
  assert.equal(t.rows[3]![0], '&lt;i&gt;&amp;"gamma"&lt;/i&gt;');
  assert.match(renderMarkdown(fixture('create')), /\nfork ÷ thread: medians \d\.\d\d× \[/);
});

test('the terminal, Markdown and HTML show the same results: every table of the terminal view is in the report', () => {
  for (const name of ['spawn', 'cow', 'create', 'exec', 'pagetables', 'vma', 'deadlock']) {
    const doc = fixture(name);
    if (name === 'pagetables') doc.summary = null; // its fixture's summary is of an older shape: computed again instead
    const terminal = renderView(findExperiment(doc.experiment)!.view(runOfDocument(doc)!), { color: false });
    const blocks = resultsOf(doc);
    assert.equal(renderView(blocks, { color: false }), terminal, `${name}: the report's results are the terminal's view`);
    const md = tables(renderMarkdown(doc));
    for (const b of blocks)
      if (b.kind === 'table')
        assert.ok(
          md.some((x) => x.header.join('|') === b.header.map(mdCell).join('|') && x.rows.length === b.rows.length),
          `${name}: ${b.header.join(', ')}`,
        );
  }
  // The huge pages column of spawn is the same figure everywhere: the run's own summary.
  const spawn = tables(renderMarkdown(fixture('spawn'))).find((x) => x.header.at(-1) === 'huge pages')!;
  const view = resultsOf(fixture('spawn')).find((b) => b.kind === 'table' && b.header.at(-1) === 'huge pages');
  assert.ok(view && view.kind === 'table');
  assert.deepEqual(
    spawn.rows.map((r) => r.at(-1)),
    view.rows.map((r) => r.at(-1)),
  );
});

test('compare: what differs first, then B ÷ A per configuration, the machines side by side', () => {
  const md = renderCompareMarkdown(fixture('spawn'), fixture('spawn-b'), ['A', 'B']);
  assertWellFormed(md);
  const ts = tables(md);
  assert.ok(ts.some((t) => t.header.join() === 'machine,A,B'));
  assert.ok(md.indexOf('### What differs') < md.indexOf('### Every configuration') && md.indexOf('### Every configuration') < md.indexOf('### Machines'));
  const results = ts.filter((t) => t.header[0] === 'configuration').at(-1)!;
  assert.deepEqual(results.header, ['configuration', 'A µs', 'B µs', 'B ÷ A [95 % CI]', 'p', 'B vs A']);
  assert.equal(results.rows.length, 12);
  for (const r of results.rows) {
    assert.match(r[3]!, /^\d+\.\d\d× \[\d+\.\d\d×–\d+\.\d\d×\]$/);
    assert.match(r[4]!, /^(&lt;0\.001|\d\.\d{3})$/, 'p, with < escaped for Markdown');
    assert.match(r[5]!, /^(▲ slower|▼ faster|same)$/);
  }
});

test('asciiChart: fits the width, one symbol per method, legend, axes in µs and MB', () => {
  const cells = [
    ...[0, 128, 512, 1024].map((rssMb) => ({ method: 'fork-exec', rssMb, medianNs: (175 + 3.6 * rssMb) * 1000 })),
    ...[0, 128, 512, 1024].map((rssMb) => ({ method: 'vfork-exec', rssMb, medianNs: 150_000 })),
  ];
  const plain = asciiChart(cells, { width: 60, height: 13, color: false });
  const lines = plain.split('\n');
  assert.ok(!plain.includes('\x1b['), 'no ANSI without colour');
  for (const l of lines) assert.ok([...l].length <= 60, `line fits in 60 characters: ${l}`);
  assert.equal(lines.filter((l) => /[┤│]/.test(l)).length, 13, 'thirteen plot rows');
  assert.match(lines[0]!, /µs$/);
  assert.match(plain, /parent RSS, MB$/m);
  assert.match(plain, /o fork-exec {3}\* vfork-exec/);
  assert.match(plain, /^ *4000 ┤/m, 'y axis up to a round value above 3861 µs');
  assert.match(plain, /^ *0 {2,}128 +512 +1024$/m, 'every RSS under the x axis');
  // fork-exec climbs: its last point is on the top rows, vfork-exec stays at the bottom.
  const plot = lines.filter((l) => /[┤│]/.test(l));
  assert.ok(plot.slice(0, 2).some((l) => l.includes('o')));
  assert.ok(plot.slice(-2).some((l) => l.includes('*')));
  const coloured = asciiChart(cells, { width: 60, height: 13, color: true });
  assert.ok(coloured.includes('\x1b['));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour escapes start with ESC
  assert.equal(coloured.replace(/\x1b\[[0-9;]*m/g, ''), plain, 'colour changes nothing but the escapes');
  assert.equal(asciiChart([], { width: 60, height: 10, color: false }), '(no data to chart)');
});

test('a run in Markdown: the conclusion, the results, the verdicts one line each, then the reasoning', async () => {
  const { runConclusions } = await import('../src/report/judged.js');
  const { loadPublished } = await import('../src/reference/published.js');
  const { withConclusion } = await import('./helpers/conclusion.js');
  const doc = fixture('spawn');
  const c = runConclusions(doc, loadPublished());
  const md = await withConclusion('spawn', ['fork+exec grows *fast*'], () => renderMarkdown(doc, c));
  assertWellFormed(md);
  const at = (s: string) => md.indexOf(s);
  assert.equal(md.split('\n')[4], '**fork+exec grows \\*fast\\***', 'the conclusion under the title and the run line');
  const order = ['**fork+exec', '### Results', '### The article’s claims on this machine', '### Beside the article', '### Reasoning', '### Machine'].map(at);
  assert.ok(order.every((x) => x > 0));
  assert.deepEqual(
    [...order].sort((x, y) => x - y),
    order,
    `in that order: ${order.join(' ')}`,
  );
  const lines = tables(md).find((t) => t.header.join() === 'verdict,the claim,this machine against the article')!;
  assert.equal(lines.rows.length, c.verdicts.length, 'one line per verdict');
  const reasoning = md.slice(at('### Reasoning'), at('### Machine'));
  for (const v of c.verdicts) {
    assert.ok(
      lines.rows.some((r) => r[1] === mdCell(v.statement) && r[2] === mdCell(v.gist!)),
      `${v.claimId} in one line`,
    );
    assert.ok(reasoning.includes(`(\`${v.claimId}\`).`), `${v.claimId}: its reasoning after`);
  }
  assert.doesNotMatch(md, /[a-z0-9%)] (Between runs here|To settle it)/, 'sentences do not run into each other');
});
