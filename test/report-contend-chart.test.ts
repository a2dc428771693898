// contend's own chart, drawn from a real run's document (test/claims-fixtures/contend.json): each call's latency
// against the creators at once, a colour per method, a panel per kind of creator, from the latency series alone
// (the chart spec's series filter), and rendered into the HTML report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunDocument } from '../src/document/run.js';
import { chartsFor, mainChart } from '../src/report/charts.js';
import { renderHtml } from '../src/report/html.js';

const contend = (): RunDocument => JSON.parse(readFileSync(new URL('./claims-fixtures/contend.json', import.meta.url), 'utf8')) as RunDocument;

type Rec = Record<string, unknown>;
const specOf = (doc: RunDocument) => {
  const c = mainChart(doc);
  assert.ok(c, 'contend has a chart');
  return { id: c.id, spec: c.spec as unknown as Rec };
};
const valuesOf = (spec: Rec) => (spec['data'] as { values: Rec[] }).values;
const firstLayer = (spec: Rec) => ((spec['spec'] as Rec)['layer'] as { encoding: Rec }[])[0]!.encoding;
const fieldOf = (enc: Rec, channel: string) => (enc[channel] as { field?: string } | undefined)?.field;

test('contend: latency per call against the creators, a colour per method, a panel per kind of creator, nothing of the stall', () => {
  const doc = contend();
  // The fixture holds the stall and its baseline beside the creators' series: the filter is what keeps them out.
  assert.ok(doc.configurations.some((c) => c.series === 'stall'));
  const { id, spec } = specOf(doc);
  assert.equal(id, 'contend-latency');
  const values = valuesOf(spec);
  assert.deepEqual([...new Set(values.map((v) => v['series']))], ['latency']);
  const key = (c: Rec) => `${String(c['method'])}|${String(c['creator'])}|${String(c['creators'])}`;
  const measured = doc.configurations.filter((c) => c.series === 'latency' && c.state === 'ok').map((c) => key(c as unknown as Rec));
  assert.deepEqual(values.map(key).sort(), [...new Set(measured)].sort(), 'one point per method, kind of creator and count');
  assert.equal(((spec['facet'] as Rec)['column'] as Rec)['field'], 'creator');
  const enc = firstLayer(spec);
  assert.equal(fieldOf(enc, 'x'), 'creators');
  assert.equal(fieldOf(enc, 'color'), 'method');
  assert.equal(enc['strokeDash'], undefined, 'one parent RSS: no dashes to tell apart');
  // The medians are the latency series' own, in µs.
  const one = doc.configurations.find((c) => c.series === 'latency' && c.state === 'ok' && c.stats)!;
  const drawn = values.find((v) => key(v) === key(one as unknown as Rec))!;
  assert.equal(drawn['median'], one.stats!.medianNs / 1000);
});

test('contend: with several parent sizes, a line per size, dashed apart', () => {
  const doc = contend();
  const bigger = doc.configurations.filter((c) => c.series === 'latency').map((c) => ({ ...c, rssMb: 256 }));
  doc.configurations = [...doc.configurations, ...bigger];
  const enc = firstLayer(specOf(doc).spec);
  assert.equal(fieldOf(enc, 'strokeDash'), 'rssMb');
});

test('contend: the HTML report draws the chart', async () => {
  const doc = contend();
  assert.deepEqual(
    chartsFor(doc).map((c) => c.id),
    ['contend-latency', 'contend-distribution'],
  );
  const html = await renderHtml({ doc });
  assert.ok(html.includes('data-chart="contend-latency"'));
});
