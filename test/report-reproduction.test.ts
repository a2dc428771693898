// A reproduction is a report: stored in the history with its runs and verdicts, listed by history, written by
// reproduce --html/--markdown and by report R<n> or report --input FILE, summary first; the page opens in
// Chromium without a console error.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli, sandbox } from './helpers/cli.js';
import { chromiumSkip, launchChromium } from './helpers/browser.js';

const box = sandbox();
const tmp = box.dir;
after(() => rmSync(tmp, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(box, args, { limitMs: 300_000 });

const html = join(tmp, 'repro.html');
const md = join(tmp, 'repro.md');
const json = join(tmp, 'repro.json');
let ran: ReturnType<typeof cli> | null = null;
function reproduceOnce() {
  ran ??= cli('reproduce', '--quick', '--only', '004', '--label', 'repro-test', '--html', html, '--markdown', md, '--json', json);
  return ran;
}

test('reproduce stores the reproduction with its runs, and writes it as HTML and Markdown, summary first', () => {
  const r = reproduceOnce();
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  assert.match(r.stderr, /stored as reproduction R1 with its runs/);
  const page = readFileSync(html, 'utf8');
  const text = readFileSync(md, 'utf8');
  const doc = JSON.parse(readFileSync(json, 'utf8'));
  assert.ok(doc.verdicts.length > 0);
  // Summary first, then the article; every verdict is one line (badge, claim, this machine against the article), its reasoning folded.
  assert.ok(page.indexOf('id="summary"') > 0 && page.indexOf('id="summary"') < page.indexOf('id="article-004"'));
  const items = [...page.matchAll(/<details class="verdict"[^>]*><summary[^>]*>([\s\S]*?)<\/summary>([\s\S]*?)<\/details>/g)];
  assert.equal(items.length, doc.verdicts.length);
  for (const v of doc.verdicts) {
    const item = items.find((m) => m[1]!.includes(`<span class="claim">${escapeHtml(v.statement)}</span>`));
    assert.ok(item, `${v.claimId}: one line`);
    assert.match(
      item[1]!,
      /^<span><span class="badge [a-z-]+">[^<]+<\/span><\/span><span class="claim">[^<]+<\/span><span class="gist">[^<]+<\/span>$/,
      `${v.claimId}: verdict, claim, figures`,
    );
    assert.match(item[2]!, /^<div class="why"><p>This machine[^<]*\.<\/p>/, `${v.claimId}: its reasoning folded, in sentences`);
  }
  assert.doesNotMatch(page, /[a-z0-9%)] (Between runs here|To settle it)/, 'no sentence runs into the next');
  assert.doesNotMatch(page, /<pre\b/);
  assert.ok(page.includes('<figure class="chart"'), 'the run’s charts');
  // Headline figures are named in words, not by id; verdicts in plain words, not by formula.
  const headline = (doc.figures as { figureId: string; label: string; headline: boolean }[]).filter((f) => f.headline);
  assert.ok(headline.length > 0);
  for (const f of headline) {
    assert.ok(page.includes(`<td>${escapeHtml(f.label)}</td>`), `${f.figureId} is shown as "${f.label}"`);
    assert.ok(!page.includes(`<td>${f.figureId.slice(4)}</td>`), `${f.figureId} is not shown by its id`);
  }
  assert.doesNotMatch(page, /median\(method=/, 'no formula on the page');
  assert.ok(page.includes('article 004 (statistic not named)'), 'the article’s values are drawn on the run’s chart, with a legend');
  assert.ok(text.indexOf('### Summary') < text.indexOf('### Article 004'));
  const reasoning = text.indexOf('**Reasoning**');
  assert.ok(reasoning > text.indexOf('| verdict | the claim | this machine against the article |'), 'one line per claim, then the reasoning');
  for (const v of doc.verdicts) assert.ok(text.slice(reasoning).includes(`(\`${v.claimId}\`, ${v.kind}).`), `${v.claimId}: reasoning`);
  assert.match(text, /\| all articles \| \d+ \|/);
  const history = cli('history', '--wide');
  assert.match(history.stdout, /^R1 +\S+ \S+ +quick +repro-test +1 /m);
});

test('report R1 and report --input FILE make the same report from the history and from the JSON', () => {
  reproduceOnce();
  const fromDb = cli('report', 'R1', '--markdown');
  assert.equal(fromDb.code, 0, fromDb.stderr);
  assert.ok(fromDb.stdout.startsWith('## forklab reproduction'));
  const fromFile = cli('report', '--input', json);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.ok(fromFile.stdout.startsWith('## forklab reproduction'));
  const strip = (s: string) => s.replace(/^### Article[\s\S]*$/m, '');
  assert.equal(strip(fromFile.stdout), strip(fromDb.stdout), 'the same summary');
  const again = join(tmp, 'again.html');
  assert.equal(cli('report', 'R1', '--html', again).code, 0);
  assert.ok(readFileSync(again, 'utf8').includes('id="summary"'));
  const none = cli('report', 'R9');
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no reproduction R9/);
});

test('latest is the latest thing made: after reproduce, report and show give the reproduction; latest:exec its run', () => {
  reproduceOnce();
  const report = cli('report');
  assert.equal(report.code, 0, report.stderr);
  assert.ok(report.stdout.startsWith('## forklab reproduction'), 'report (latest) is the reproduction');
  assert.ok(cli('report', 'latest').stdout.startsWith('## forklab reproduction'));
  const show = cli('show', 'latest');
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /reproduction R1/);
  assert.match(show.stdout, /Article 004 “/, 'the article introduced');
  const run = cli('show', 'latest:exec');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /exec/);
  assert.doesNotMatch(run.stdout, /reproduction R1/);
  const exported = cli('export', 'latest');
  assert.equal(exported.code, 2, 'a reference that names no run: bad input, as for show');
  assert.match(exported.stderr, /the latest thing made here is reproduction R1 .*latest:EXPERIMENT/);
  const json = cli('show', 'R1', '--json');
  assert.equal(JSON.parse(json.stdout).schema, 'forklab.reproduce');
});

test('a reproduction stored with --db says how to report it from that history, and history and show say the same', () => {
  const db = join(tmp, 'other history.db');
  const r = cli('reproduce', '--quick', '--only', '004', '--db', db);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const quoted = `'${db}'`;
  const advised = r.stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('forklab report R1 --db '));
  assert.equal(advised, `forklab report R1 --db ${quoted} --html report.html`, r.stderr);
  const out = join(tmp, 'advised.html');
  const reported = cli('report', 'R1', '--db', db, '--html', out);
  assert.equal(reported.code, 0, reported.stderr);
  assert.match(readFileSync(out, 'utf8'), /id="summary"/);
  // (a line that does not fit the terminal is wrapped: read as words)
  const words = (text: string) => text.replace(/\s+/g, ' ');
  assert.ok(words(cli('history', '--db', db).stdout).includes(`(forklab report R<n> --db ${quoted} --html report.html)`));
  assert.ok(words(cli('show', 'R1', '--db', db).stdout).includes(`(forklab report R1 --db ${quoted} --html report.html)`));
});

test('the reproduction report opens in Chromium: no console error, no request', { skip: chromiumSkip, timeout: 120_000 }, async () => {
  reproduceOnce();
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    await context.setOffline(true);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const url = pathToFileURL(html).href;
    const requests: string[] = [];
    page.on('request', (r) => void (r.url() !== url && requests.push(r.url())));
    await page.goto(url, { waitUntil: 'load' });
    assert.ok((await page.locator('figure.chart svg').count()) > 0);
    assert.ok((await page.locator('details.verdict').count()) > 0);
    assert.equal(await page.locator('details.verdict .why').first().isVisible(), false, 'the reasoning folded');
    assert.deepEqual(errors, []);
    assert.deepEqual(requests, []);
  } finally {
    await browser.close();
  }
});

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
