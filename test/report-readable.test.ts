// The report of every experiment reads as a report: it carries the experiment's conclusions and the verdicts of
// the claims the run can judge, shows parameters as the flags a user types and machine fields in words, writes no
// number with an exponent, and opens in Chromium without a console error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunDocument } from '../src/document/run.js';
import { renderHtml } from '../src/report/html.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { runConclusions } from '../src/report/judged.js';
import { fmtNumber, paramFlags } from '../src/report/labels.js';
import { fmtUs, fmtUsCi } from '../src/text/format.js';
import { loadPublished } from '../src/reference/published.js';
import { chromiumSkip, launchChromium } from './helpers/browser.js';

const EXPERIMENTS = ['spawn', 'cow', 'create', 'exec', 'pagetables', 'vma', 'deadlock'];
const fixture = (name: string): RunDocument => JSON.parse(readFileSync(new URL(`./fixtures/report/${name}.json`, import.meta.url), 'utf8')) as RunDocument;
const E_NOTATION = /\b\d+(?:\.\d+)?e[+-]?\d+\b/i;

/** The text a reader sees: tags and the SVG charts' markup removed (their labels are checked in the browser). */
const visible = (html: string) => html.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, ' ');

test('numbers for a reader: separators, no exponent', () => {
  assert.equal(fmtNumber(1110.4), '1,110');
  assert.equal(fmtNumber(1234567), '1,234,567');
  assert.equal(fmtNumber(0.000123), '0.000123');
  assert.equal(fmtNumber(12.345), '12.3');
  assert.equal(fmtNumber(1e-7), '0.0000001');
  // rounded before the separator is decided: 999.6 is 1,000 (a table once read "929 [718–1000]")
  assert.equal(fmtNumber(999.6), '1,000');
  assert.equal(fmtUs(999_600), '1,000');
  assert.equal(fmtUsCi(929_000, 718_000, 999_700), '929 [718–1,000]');
  for (const x of [1e21 / 1e3, 123456789.5, 3e-9, 0.5]) assert.doesNotMatch(fmtNumber(x), E_NOTATION, String(x));
});

test('parameters are shown as the flags that give them', () => {
  const spawn = fixture('spawn');
  const flags = Object.fromEntries(paramFlags(spawn));
  assert.equal(flags['--rss'], (spawn.params.rssMb as number[]).join(','));
  assert.equal(flags['--ci-target'], fmtNumber((spawn.params.ciTarget as number) * 100), 'a percentage flag, not the stored fraction');
  assert.ok(!('rssMb' in flags) && !('--rssMb' in flags));
  // A flag whose parameter has another name: --repeats-ci sets repeatsCiTarget, a fraction.
  const adaptive = Object.fromEntries(paramFlags({ ...spawn, params: { ...spawn.params, maxRepeats: 6, repeatsCiTarget: 0.05, repeatsBudgetS: 20 } }));
  assert.equal(adaptive['--repeats-ci'], '5');
  assert.equal(adaptive['--max-repeats'], '6');
  assert.ok(!Object.keys(adaptive).some((k) => /repeats ci|repeatsCi/.test(k)), Object.keys(adaptive).join(' '));
  // Every parameter a real spawn run stores is shown as a flag.
  for (const key of Object.keys(adaptive)) assert.match(key, /^--/, `${key} is not shown as a flag`);
  const target = { ...spawn, params: { ...spawn.params, target: '/usr/bin/git', targetArgs: ['--version'] } };
  assert.equal(Object.fromEntries(paramFlags(target))['--target'], '/usr/bin/git -- --version');
});

for (const name of EXPERIMENTS) {
  test(`${name}: the report has the conclusions and verdicts, flags as typed, machine fields in words, no exponent`, async () => {
    const doc = fixture(name);
    const c = runConclusions(doc, loadPublished());
    const md = renderMarkdown(doc, c);
    const html = await renderHtml({ doc, ...c });
    assert.ok(c.verdicts.length > 0, `${name} judges some claim`);
    assert.equal((html.match(/<details class="verdict"/g) ?? []).length, c.verdicts.length, 'every verdict in the HTML, one line each');
    assert.match(md, /### The article’s claims on this machine/);
    assert.doesNotMatch(md, /\b(rssMb|sizeMb|hugePagesKb)\b|\b(method|thp|series)=/, 'notes in words, not document keys');
    for (const v of c.verdicts) assert.ok(md.includes(v.claimId), `${v.claimId} in the Markdown`);
    const params = md.split('\n').find((l) => l.startsWith('Parameters:'))!;
    for (const key of Object.keys(doc.params).filter((k) => /[A-Z]/.test(k))) assert.ok(!new RegExp(`\\b${key}\\b`).test(params), `${key} not raw in ${params}`);
    for (const text of [md, visible(html)]) {
      assert.doesNotMatch(text, E_NOTATION, 'no exponent');
      for (const key of Object.keys(doc.params).filter((k) => /[A-Z]/.test(k))) assert.ok(!text.includes(`--${key}`), `${key} shown as a flag`);
      for (const key of ['pageSizeBytes', 'vmMaxMapCount', 'cpuPressure', 'cgroupMemoryLimitBytes', 'overcommitMemory', 'collectedAt'])
        assert.ok(!text.includes(key), `${key} in words`);
    }
  });
}

test('spawn: every conclusion line of the terminal is in the Markdown and the HTML', async () => {
  const doc = fixture('spawn');
  const c = runConclusions(doc, loadPublished());
  const md = renderMarkdown(doc, c);
  const html = await renderHtml({ doc, ...c });
  assert.match(md, /fork-exec slope, THP off ÷ THP on: [\d.]+×/);
  assert.match(visible(html), /fork-exec slope, THP off ÷ THP on: [\d.]+×/);
});

test('the report of every experiment opens in Chromium without a console error', { skip: chromiumSkip, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'forklab-readable-'));
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    await context.setOffline(true);
    for (const name of EXPERIMENTS) {
      const doc = fixture(name);
      const file = join(dir, `${name}.html`);
      writeFileSync(file, await renderHtml({ doc, ...runConclusions(doc, loadPublished()) }));
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => void ((m.type() === 'error' || m.type() === 'warning') && errors.push(m.text())));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      assert.deepEqual(errors, [], name);
      // biome-ignore lint/performance/useDomNodeTextContent: the text as a reader sees it (innerText leaves out what CSS hides)
      const text = await page.locator('body').innerText();
      assert.doesNotMatch(text, E_NOTATION, `${name}: no exponent on the page`);
      await page.close();
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('charts that show the claim: spawn on linear axes with a fitted line; a distribution of the raw samples per configuration', async () => {
  const { chartsFor } = await import('../src/report/charts.js');
  const doc = fixture('spawn');
  const charts = chartsFor(doc);
  const spawn = JSON.stringify(charts.find((c) => c.id === 'spawn-latency')!.spec);
  assert.ok(!spawn.includes('"log"') && !spawn.includes('symlog'), 'linear axes: linear growth looks linear');
  assert.ok(spawn.includes('"kind":"fit"'), 'the least-squares lines are drawn');
  const dist = charts.find((c) => c.id === 'spawn-distribution')!;
  const values = (dist.spec as unknown as { data: { values: { kind: string; label: string; n?: number }[] } }).data.values;
  const boxes = values.filter((v) => v.kind === 'box');
  assert.equal(boxes.length, 12, 'one box per configuration');
  const samples = doc.configurations.filter((c) => c.state !== 'failed').reduce((n, c) => n + (c.samplesNs as number[]).length, 0);
  assert.equal(
    boxes.reduce((n, b) => n + b.n!, 0),
    samples,
    'every raw sample is counted',
  );
});
