// What a person reads fits a terminal: at most 100 columns by default (long lines wrap, wide tables wrap their
// cells or fold), everything with --wide; a note many verdicts share is said once; flags and words, never the
// documents' field names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { Store } from '../src/store/db.js';
import { parseRunDocument } from '../src/document/validate.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable } from '../src/text/table.js';
import { fitText, visibleWidth, wrapLine } from '../src/text/fit.js';
import { statusLine } from '../src/cli/progress.js';
import { articleIntro } from '../src/reference/describe.js';
import { loadPublished } from '../src/reference/published.js';
import { judgeDocuments } from '../src/claims/judge.js';
import { renderSummary } from '../src/report/summary.js';
import { PLAIN } from '../src/report/verdicts.js';
import { docs } from './helpers/claims-data.js';
import { runCli, sandbox, shortSpawnArgs } from './helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/report/', import.meta.url));
const ESC = String.fromCharCode(27);
const strip = (s: string) => s.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');
/** Ideographs, kana, Hangul syllables and fullwidth forms take two columns of a terminal (Unicode's East Asian Wide and Fullwidth). */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60\uffe0-\uffe6]/u;
/** Columns of a line, counted here on their own (not with the code under test): wide characters two, combining marks none. */
const columns = (l: string) => [...l].reduce((n, ch) => n + (/\p{M}/u.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1), 0);
const tooWide = (text: string, max = 100) =>
  strip(text)
    .split('\n')
    .filter((l) => columns(l) > max);
/** Field names of the run documents that must not reach a reader (they have words and flags). */
const INTERNAL = /\brssMb\b|\bciTarget\b|\bbudgetMs\b|\bheapMb\b|\bhugePagesKb\b|\b(mean|median)\([a-z]+=/;

test('a line wraps at spaces under its indentation, a "label  text" line under its text; colours are not counted', () => {
  const line = `  holds    ${'word '.repeat(40).trim()}`;
  const out = wrapLine(line, 50);
  assert.ok(out.length > 1);
  for (const l of out) assert.ok(l.length <= 50, l);
  assert.ok(
    out.slice(1).every((l) => l.startsWith(' '.repeat(11)) && !l.startsWith(' '.repeat(12))),
    out.join('\n'),
  );
  const red = `${ESC}[31m${'x '.repeat(30)}${ESC}[39m`;
  assert.deepEqual(wrapLine(red, 80), [red], 'colour sequences take no columns');
  assert.ok(
    fitText(`/${'a'.repeat(150)}`, 100)
      .split('\n')
      .every((l) => l.length <= 100),
    'a word longer than a line is cut',
  );
  assert.doesNotMatch(fitText(`${'y '.repeat(44)}from 95 % CI 3.6 µs to 1024 MB`, 100), /\d\n|%\n/, 'no break inside a number and its unit');
});

test('a table wider than the output wraps its widest cells, then folds; narrow tables are left as they were', () => {
  const rows = [
    ['fork()+exec() from a 1024 MB parent, huge pages off, a long label', 'mean', '3850 µs', '155314 µs', '40.3×'],
    ['vfork()+exec()', 'mean', '154 µs', '9171 µs', '59.6×'],
  ];
  const header = ['figure', 'statistic', 'published', 'this machine', 'ratio'];
  const natural = renderTable(header, rows, { maxWidth: 1000 });
  assert.ok(natural.split('\n').some((l) => visibleWidth(l) > 60));
  const fitted = renderTable(header, rows, { maxWidth: 60 });
  assert.deepEqual(tooWide(fitted, 60), []);
  assert.ok(fitted.split('\n').length > natural.split('\n').length, 'the long label wraps onto a second line');
  assert.match(fitted, /^ {2}\S/m, 'its further line hangs by two spaces');
  const many = renderTable(
    Array.from({ length: 14 }, (_, i) => `column ${i}`),
    [Array.from({ length: 14 }, (_, i) => `value${i}`)],
    { maxWidth: 60 },
  );
  assert.deepEqual(tooWide(many, 60), []);
  assert.match(many, /^value0\n {2}column 1: value1\n/, 'folded: the first cell, then header: value');
  assert.equal(renderTable(['a', 'b'], [['1', '2']], { maxWidth: 100 }), 'a  b\n─  ─\n1  2');
});

test('widths are terminal columns: a CJK character takes two, a combining mark none; wrapping and padding follow', () => {
  assert.equal(visibleWidth('fork 的开销与争议'), 17);
  assert.equal(visibleWidth('ｆｏｒｋ'), 8, 'fullwidth forms');
  assert.equal(visibleWidth('Tạo'), 3);
  assert.equal(visibleWidth('Ta\u0323o'), 3, 'a combining mark takes no column');
  assert.equal(visibleWidth(`${ESC}[1m吴杭沉${ESC}[22m`), 6);
  // the line that names article 003 (its Chinese title and author), as reproduce's summary prints it
  const a003 = loadPublished().articles.find((a) => a.id === '003')!;
  const intro = `  ${articleIntro(a003)}`;
  assert.ok(/\p{Script=Han}/u.test(intro) && columns(intro) > 100, 'the case: a line with CJK characters, wider than 100 columns');
  assert.deepEqual(tooWide(fitText(intro, 100)), []);
  const cjk = wrapLine(`${'开销 '.repeat(30)}end`, 40);
  assert.ok(cjk.length > 1);
  assert.deepEqual(tooWide(cjk.join('\n'), 40), []);
  assert.ok(
    cjk.slice(0, -1).every((l) => columns(l) >= 36),
    `lines are filled by columns, not cut short: ${cjk.join(' | ')}`,
  );
  assert.deepEqual(tooWide(fitText('的'.repeat(150), 100)), [], 'a word of wide characters longer than a line is cut by columns');
  // a table pads its cells by columns: a row with a CJK cell ends in the same column as the others
  const t = renderTable(
    ['title', 'lang'],
    [
      ['fork 的开销与争议', 'zh'],
      ['Ba cách khởi động', 'vi'],
    ],
  ).split('\n');
  for (const l of t) assert.equal(columns(l), columns(t[0]!), t.join('\n'));
});

test("reproduce's summary fits 100 columns, CJK titles and authors included", () => {
  const judged = judgeDocuments(docs(), { seed: 1 });
  assert.ok(judged.articles.includes('003'));
  const statuses = [...new Set(judged.verdicts.map((v) => v.experiment))].map((experiment) => ({ experiment, state: 'ran in 1.0 s' }));
  const text = fitText(renderSummary(judged, statuses, PLAIN, 'footer'), 100);
  assert.match(text, /的开销/);
  assert.deepEqual(tooWide(text), []);
});

test('a progress line on a log fits 100 columns: a long step label is cut before its repeat number', () => {
  // the longest step of reproduce --quick: cgroup's, in reproduce's ninth step
  const cgroup = 'threads=8 pause=50 ms (fork-exec, clone3-into, parent-write, child-write) #1';
  const line = statusLine('[9/9] cgroup', cgroup, 0, 8, 4000, 100);
  assert.ok(columns(line) <= 100, line);
  assert.match(line, /^forklab \[9\/9\] cgroup: \[1\/8\] threads=8 pause=50 ms/);
  const long = statusLine('[settle, look 2] spawn', `${'rss=1024 MB thp=off (fork-exec, vfork-exec, posix-spawn) '.repeat(3)}#12`, 99, 144, 65_000, 100);
  assert.ok(columns(long) <= 100, long);
  assert.match(long, /… #12 \(1m05s\)$/);
  const short = statusLine('cow', 'size=80 MB thp=off #1', 0, 4, 0, 100);
  assert.equal(short, 'forklab cow: [1/4] size=80 MB thp=off #1 (0s)', 'a line that fits is whole');
  assert.equal(statusLine('[9/9] cgroup', cgroup, 0, 8, 4000, Number.POSITIVE_INFINITY), `forklab [9/9] cgroup: [1/8] ${cgroup} (4s)`, '--wide: whole');
});

/** A history holding the report fixtures (runs of every experiment, two spawn runs), and what imports said. */
function historyBox() {
  const box = sandbox();
  const store = Store.open(box.db);
  try {
    for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.json') && n !== 'mystery.json'))
      store.importDocument(parseRunDocument(readFileSync(join(FIXTURES, f), 'utf8')));
  } finally {
    store.close();
  }
  return box;
}
const box = historyBox();

test('history, show, compare and judge fit 100 columns and name no field; --wide prints lines whole', () => {
  const outputs: [string, string[]][] = [
    ['history', ['history']],
    ...[3, 6].map((i): [string, string[]] => [`show ${i}`, ['show', String(i)]]),
    ['compare', ['compare', '6', '7']],
    ['judge', ['judge', '3', '6', '7']],
  ];
  for (const [name, args] of outputs) {
    const r = runCli(box, args, { limitMs: 120_000 });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.deepEqual(tooWide(r.stdout), [], name);
    assert.deepEqual(tooWide(r.stderr), [], `${name} (stderr)`);
    assert.doesNotMatch(r.stdout, INTERNAL, name);
  }
  const wide = runCli(box, ['show', '6', '--wide'], { limitMs: 60_000 });
  assert.equal(wide.code, 0, wide.stderr);
  assert.ok(tooWide(wide.stdout).length > 0, '--wide: the machine line and the warnings whole');
});

test('judge says a note that many verdicts share once, not under each verdict', () => {
  const r = runCli(box, ['judge', '6', '7'], { limitMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  // The prior the drift comes from, with no earlier run here: said once, in the intervals line, never per verdict.
  const prior = r.stdout.split('\n').filter((l) => /no earlier run here/.test(l));
  assert.equal(prior.length, 1, r.stdout);
  assert.match(prior[0]!, /^Intervals include the drift between runs on this machine/);
});

test('a measuring command fits 100 columns: its table, notes and warnings', () => {
  const r = runCli(box, shortSpawnArgs('fork-exec,posix-spawn', '0,64', '--no-store'), { limitMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(tooWide(r.stdout), []);
  assert.deepEqual(tooWide(r.stderr), []);
  assert.doesNotMatch(r.stdout, INTERNAL);
});
