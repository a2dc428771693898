// The written HTML report in headless Chromium, offline: every chart drawn with its series, no console error,
// no network request. Skips when /usr/bin/chromium is absent (CI installs it before the tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunDocument } from '../src/document/run.js';
import { renderHtml } from '../src/report/html.js';
import { chartsFor, publishedChart } from '../src/report/charts.js';
import { withConclusion } from './helpers/conclusion.js';
import { runConclusions } from '../src/report/judged.js';
import { loadPublished } from '../src/reference/published.js';
import { chromiumSkip, launchChromium } from './helpers/browser.js';

const ARTIFACTS = new URL('../test-artifacts/', import.meta.url);

const fixture = (name: string): RunDocument => JSON.parse(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8')) as RunDocument;

const skip = chromiumSkip;

test('the HTML report renders offline in Chromium: charts with their series, no error, no request', { skip, timeout: 60_000 }, async () => {
  const doc = fixture('spawn');
  const { comparisons, verdicts } = runConclusions(doc, loadPublished());
  // The main chart under the conclusion, then the article's figures in one chart, then the distribution.
  const [main, distribution] = chartsFor(doc).map((c) => c.id);
  const expected = [main, publishedChart(comparisons)!.id, distribution];
  const html = await withConclusion('spawn', ['fork+exec grows with parent RSS'], () => renderHtml({ doc, comparisons, verdicts }));
  const dir = mkdtempSync(join(tmpdir(), 'forklab-report-browser-'));
  const file = join(dir, 'report.html');
  writeFileSync(file, html);
  const pageUrl = pathToFileURL(file).href;

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.setOffline(true);
    const requests: string[] = [];
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === pageUrl) return route.continue();
      requests.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (r.url() !== pageUrl) requests.push(r.url());
    });
    page.on('requestfailed', (r) => {
      if (r.url() !== pageUrl) requests.push(`failed: ${r.url()}`);
    });
    await page.goto(pageUrl, { waitUntil: 'load' });

    const charts = await page.$$eval('figure.chart', (figs) =>
      figs.map((f) => {
        const svg = f.querySelector('svg');
        const box = svg?.getBoundingClientRect();
        return {
          id: f.getAttribute('data-chart'),
          width: box?.width ?? 0,
          height: box?.height ?? 0,
          marks: svg ? svg.querySelectorAll('g.role-mark path, g.role-mark line, g.role-mark rect').length : 0,
          legend: svg ? [...svg.querySelectorAll('g.role-legend-label text')].map((t) => t.textContent) : [],
          // Labels vega had to cut end with an ellipsis; a label past the page's edge is cut by the window.
          cut: svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent ?? '').filter((t) => t.endsWith('…')) : [],
          top: (box?.top ?? 0) + window.scrollY,
          right: box?.right ?? 0,
        };
      }),
    );
    assert.deepEqual(
      charts.map((c) => c.id),
      expected,
    );
    for (const c of charts) {
      assert.ok(c.width > 100 && c.height > 100, `${c.id} drawn with a size: ${c.width}×${c.height}`);
      assert.ok(c.marks > 0, `${c.id} has marks`);
      assert.deepEqual(c.cut, [], `${c.id}: no label cut`);
      assert.ok(c.right <= 1280, `${c.id} fits a 1,280-px window: right edge at ${c.right}`);
    }
    // The first screen (1,280 × 800) shows the conclusion and the main chart's plot.
    const conclusion = await page.locator('p.conclusion').boundingBox();
    assert.ok(conclusion && conclusion.y < 300, `the conclusion near the top: ${conclusion?.y}`);
    assert.ok(charts[0]!.top < 400, `the main chart starts on the first screen: ${charts[0]!.top}`);
    const spawn = charts.find((c) => c.id === 'spawn-latency')!;
    // The methods by colour; this machine's medians and the article's values by shape, on the same chart.
    assert.deepEqual(spawn.legend, ['fork-exec', 'vfork-exec', 'posix-spawn', 'this machine (median)', 'article 000 (mean)']);
    // Points and interval rules for 3 methods × 2 RSS × 2 THP modes, lines for 3 methods × 2 THP modes.
    assert.ok(spawn.marks >= 12 + 6, `spawn chart marks: ${spawn.marks}`);
    const published = charts.find((c) => c.id === 'published-ratios')!;
    assert.deepEqual(published.legend, [...new Set(comparisons.map((c) => c.statistic))], 'the statistics of the figures as colour');
    // Every verdict of the claims this run can judge is one line; its reasoning shows when the line is clicked.
    assert.ok(verdicts.length > 0, 'the spawn run judges some claim');
    const lines = page.locator('details.verdict');
    assert.equal(await lines.count(), verdicts.length);
    for (const v of verdicts) assert.equal((await page.locator(`details.verdict[data-verdict="${v.verdict}"]`).count()) > 0, true, v.verdict);
    const first = lines.first();
    const summaryBox = await first.locator('summary').boundingBox();
    assert.ok(summaryBox && summaryBox.height < 80, `one line (at most wrapped in its columns): ${summaryBox?.height} px`);
    assert.equal(await first.locator('.why').isVisible(), false, 'the reasoning folded');
    await first.locator('summary').click();
    assert.equal(await first.locator('.why').isVisible(), true, 'and shown on a click');
    assert.equal((await page.locator('table').count()) >= 4, true);

    assert.deepEqual(errors, [], 'no console error or warning');
    assert.deepEqual(requests, [], 'no request besides the page itself');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('report.png', ARTIFACTS).pathname, fullPage: true });
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
