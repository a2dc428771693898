import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunDocument } from '../src/report/document.js';
import { mdCell, renderCompareMarkdown, renderMarkdown, reportTables } from '../src/report/markdown.js';
import { asciiChart } from '../src/report/ascii-chart.js';

const fixture = (name: string): RunDocument =>
  JSON.parse(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8')) as RunDocument;

/** Cells of a Markdown table row: split on pipes that are not escaped. */
const cells = (line: string): string[] => line.trim().slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim());

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
    assert.ok(t.align.every((a) => a === ':---' || a === '---:'), `alignment row: ${t.align.join(' ')}`);
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
  const machine = ts[0]!;
  assert.deepEqual(machine.header, ['machine', 'value']);
  for (const k of ['hostname', 'kernel', 'CPU', 'memory', 'THP', 'glibc / compiler / Node']) assert.ok(machine.rows.some((r) => r[0] === k), k);

  const thpOn = ts.find((t) => t.header[0] === 'parent RSS')!;
  assert.deepEqual(thpOn.header, ['parent RSS', 'fork-exec', 'vfork-exec', 'posix-spawn', 'huge pages']);
  assert.deepEqual(thpOn.align, [':---', '---:', '---:', '---:', '---:']);
  assert.deepEqual(thpOn.rows.map((r) => r[0]), ['0 MB', '64 MB']);
  for (const r of thpOn.rows) for (const c of r.slice(1, 4)) assert.match(c, /^\d+(\.\d+)? \[\d+(\.\d+)?–\d+(\.\d+)?\]$/);
  assert.equal(ts.filter((t) => t.header[0] === 'parent RSS').length, 2, 'THP on and off');
  assert.ok(md.indexOf('**THP on:') < md.indexOf('**THP off:'));
  assert.ok(ts.some((t) => t.header.join() === 'method,THP,µs per MB,R²,per entry'));

  for (const w of doc.warnings) assert.ok(md.includes(`- **${w.code}**:`), w.code);
  assert.match(md, /```text\nTHP on\n[\s\S]*parent RSS, MB[\s\S]*```/);
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

test('published figures and claim verdicts become tables', () => {
  const md = renderMarkdown(fixture('spawn'), {
    comparisons: [{ label: 'fork-exec · 0 MB · THP on · mean', publishedValue: 186, measuredValue: 801.2, unit: 'us', statistic: 'mean', article: '000' }],
    verdicts: [{ claimId: '000.vfork-flat', statement: 'vfork | flat', verdict: 'holds', detail: 'ok' }],
  });
  assertWellFormed(md);
  const ts = tables(md);
  const pub = ts.find((t) => t.header[0] === 'figure')!;
  assert.deepEqual(pub.rows[0], ['fork-exec · 0 MB · THP on · mean', 'mean', '186 µs', '801 µs', '4.31×', '']);
  const claims = ts.find((t) => t.header[0] === 'claim')!;
  assert.deepEqual(claims.rows[0], ['000.vfork-flat', 'vfork \\| flat', '✅ holds', 'ok']);
});

test('every fixture gives well-formed tables; unknown experiments one row per configuration', () => {
  for (const name of ['cow', 'create', 'exec', 'pagetables', 'vma', 'deadlock', 'mystery']) assertWellFormed(renderMarkdown(fixture(name)));
  const cow = reportTables(fixture('cow'))[0]!;
  assert.deepEqual(cow.header, ['pass', 'THP on', 'THP off']);
  assert.deepEqual(cow.rows.map((r) => r[0]), ['read · 16 MB', 'first-write · 16 MB', 'second-write · 16 MB', 'no-fork-write · 16 MB']);
  const mystery = fixture('mystery');
  const t = tables(renderMarkdown(mystery)).find((x) => x.header[0] === 'series')!;
  assert.equal(t.rows.length, mystery.configurations.length);
  assert.deepEqual(t.header, ['series', 'sizeKb', 'repeat', 'state', 'median µs [95 % CI]', 'n']);
  assert.equal(t.rows[3]![0], '&lt;i&gt;&amp;"gamma"&lt;/i&gt;');
  const create = reportTables(fixture('create'))[0]!;
  assert.match(create.note!, /^fork ÷ thread \(medians\): \d\.\d\d×$/);
});

test('compare: machines side by side and B ÷ A per configuration', () => {
  const md = renderCompareMarkdown(fixture('spawn'), fixture('spawn-b'), ['A', 'B']);
  assertWellFormed(md);
  const ts = tables(md);
  assert.deepEqual(ts[0]!.header, ['machine', 'A', 'B']);
  const results = ts.find((t) => t.header[0] === 'configuration')!;
  assert.deepEqual(results.header, ['configuration', 'A', 'B', 'B ÷ A']);
  assert.equal(results.rows.length, 12);
  for (const r of results.rows) assert.match(r[3]!, /^\d+\.\d\d×$/);
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
  assert.equal(coloured.replace(/\x1b\[[0-9;]*m/g, ''), plain, 'colour changes nothing but the escapes');
  assert.equal(asciiChart([], { width: 60, height: 10, color: false }), '(no data to chart)');
});
