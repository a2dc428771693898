// A reproduction's report groups the verdicts of the sources beyond the articles by source, after the articles,
// each verdict naming its source: the terminal summary (reproduce, judge) and the Markdown and HTML reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeDocuments } from '../src/claims/judge.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from '../src/claims/reproduction.js';
import { renderSummary } from '../src/report/summary.js';
import { reproductionHtml, reproductionMarkdown } from '../src/report/reproduction.js';
import { PLAIN } from '../src/report/verdicts.js';
import { docs, p } from './helpers/claims-data.js';

const judged = judgeDocuments(docs(), { seed: 1 });
const statuses = [...new Set(p.claims.map((c) => c.experiment))].map((experiment) => ({ experiment, state: 'ran in 1.0 s' }));
const doc: ReproduceDocument = {
  schema: REPRODUCE_SCHEMA,
  schemaVersion: REPRODUCE_VERSION,
  forklabVersion: 'test',
  preset: 'quick',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:00.000Z',
  articles: judged.articles,
  ...(judged.sources ? { sources: judged.sources } : {}),
  experiments: statuses,
  runs: [],
  seed: 1,
  verdicts: judged.verdicts,
  figures: judged.figures,
};
const lastArticle = p.articles[p.articles.length - 1]!.id;

test('the terminal summary: one section per source after the articles, every verdict naming its source', () => {
  const text = renderSummary(judged, statuses, PLAIN, 'footer');
  let at = text.indexOf(`Article ${lastArticle} — `);
  assert.ok(at > 0);
  for (const s of p.sources) {
    const head = text.indexOf(`Source ${s.id} — ${s.title}`);
    assert.ok(head > at, `${s.id}: its section follows the articles and the sources before it`);
    at = head;
    assert.match(text, new RegExp(`  source ${s.id}: \\d+ hold`), `${s.id}: a line in the summary's totals`);
    for (const v of judged.verdicts.filter((x) => x.source === s.id)) assert.ok(text.includes(`${v.statement} (${s.id})`), `${v.claimId} names its source`);
  }
});

test('the Markdown and HTML reports: the sources after the articles, their address or why not, every verdict naming its source', async () => {
  const md = reproductionMarkdown(doc, [], p);
  let at = md.indexOf(`### Article ${lastArticle}`);
  assert.ok(at > 0);
  for (const s of p.sources) {
    const head = md.indexOf(`### Source ${s.id}`);
    assert.ok(head > at, `${s.id}: after the articles`);
    at = head;
    assert.match(md, new RegExp(`\\| source ${s.id} \\| \\d+ \\|`), `${s.id}: a row of the summary table`);
    for (const v of judged.verdicts.filter((x) => x.source === s.id)) assert.ok(md.includes(`(${s.id}) `), `${v.claimId} names its source`);
  }
  assert.ok(md.includes('https://github.com/oven-sh/bun/issues/25839'));
  assert.match(md, /address not confirmed/);
  const page = await reproductionHtml(doc, [], p);
  assert.ok(page.indexOf(`id="article-${lastArticle}"`) < page.indexOf(`id="source-${p.sources[0]!.id}"`));
  for (const s of p.sources) assert.ok(page.includes(`id="source-${s.id}"`), s.id);
});

test('a reproduction of articles only (reproduce --only 000) shows no source', () => {
  const only = judgeDocuments(docs(), { seed: 1, articles: ['000'], sources: [] });
  const text = renderSummary(only, statuses, PLAIN, 'footer');
  assert.doesNotMatch(text, /Source /);
  assert.doesNotMatch(
    reproductionMarkdown({ ...doc, articles: ['000'], verdicts: only.verdicts, figures: only.figures, sources: undefined } as ReproduceDocument, [], p),
    /### Source/,
  );
});

test("a source's verdicts name the source as whose value they compare with, an article's the article; both in the terminal and the reports", async () => {
  const ofSources = judged.verdicts.filter((v) => v.source !== undefined);
  const ofArticles = judged.verdicts.filter((v) => v.article !== undefined);
  // the cases: verdicts of each kind that give a published value in words
  const sourceWords = ofSources.filter((v) => /\bthe source: /.test(v.plain ?? ''));
  assert.ok(sourceWords.length >= 3, `source verdicts giving the source's value: ${sourceWords.map((v) => v.claimId).join(', ')}`);
  assert.ok(ofArticles.some((v) => /\bthe article: /.test(v.plain ?? '')));
  for (const v of ofSources) {
    assert.doesNotMatch(v.plain ?? '', /\bthe article\b/, v.claimId);
    assert.doesNotMatch(v.plain ?? '', /this machine: this machine/, v.claimId);
  }
  for (const v of ofArticles) assert.doesNotMatch(v.plain ?? '', /\bthe source\b/, v.claimId);
  const text = renderSummary(judged, statuses, PLAIN, 'footer');
  const sourcesPart = text.slice(text.indexOf(`Source ${p.sources[0]!.id} — `));
  assert.doesNotMatch(sourcesPart, /\bthe article\b/);
  const md = reproductionMarkdown(doc, [], p);
  const mdSources = md.slice(md.indexOf('### Source '));
  assert.doesNotMatch(mdSources, /\bthe article\b|· article /);
  assert.match(mdSources, /· source \d/, "the one-line gist gives the source's value");
  const page = await reproductionHtml(doc, [], p);
  const htmlSources = page.slice(page.indexOf('<section id="source-'));
  assert.doesNotMatch(htmlSources, /\bthe article\b|· article /);
  assert.match(htmlSources, /this machine against the source/);
});
