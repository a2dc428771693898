// Where the drift between runs comes from (the stated prior, or the earlier runs it was learnt from) is said once
// per report, not with every verdict: the reproduction's Markdown and HTML say it in the summary's intervals line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeDocuments } from '../src/claims/judge.js';
import { REPRODUCE_SCHEMA, REPRODUCE_VERSION, type ReproduceDocument } from '../src/claims/reproduction.js';
import { reproductionHtml, reproductionMarkdown } from '../src/report/reproduction.js';
import { docs, p } from './helpers/claims-data.js';

const judged = judgeDocuments(docs(), { seed: 1, drift: {} });
const doc: ReproduceDocument = {
  schema: REPRODUCE_SCHEMA,
  schemaVersion: REPRODUCE_VERSION,
  forklabVersion: 'test',
  preset: 'quick',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:01:00.000Z',
  articles: judged.articles,
  experiments: [],
  runs: [],
  seed: 1,
  verdicts: judged.verdicts,
  figures: judged.figures,
};
const count = (text: string, what: string) => text.toLowerCase().split(what).length - 1;

test('a reproduction with a drift on its verdicts: the prior named once, the drift itself in the reasoning of every verdict', async () => {
  const drifted = judged.verdicts.filter((v) => v.drift).length;
  assert.ok(drifted > 1, `verdicts with a drift: ${drifted}`);
  const html = await reproductionHtml(doc, [], p);
  for (const text of [reproductionMarkdown(doc, [], p), html]) assert.equal(count(text, 'no earlier run here yet'), 1, 'the prior, said once (the intervals line)');
  // The HTML folds each verdict's reasoning under it: the drift that verdict's interval includes is still there.
  assert.ok(count(html, 'between runs here') > 1, 'the drift is still given verdict by verdict');
});
