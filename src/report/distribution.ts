// The distribution of a run's raw samples per configuration (box, whiskers, outliers), as pyperf hist shows it.
import type { RunDocument } from '../document/run.js';
import { quantileUnchecked } from '../stats/descriptive.js';
import { chart, type ChartDef } from './chart-spec.js';
import { configLabel, groupsOf, timeUnit } from './groups.js';

const MAX_OUTLIERS = 200;

/**
 * The distribution of every configuration's raw samples (repeats pooled), as pyperf hist shows it: box from the
 * first to the third quartile, the median, whiskers to the furthest sample within 1.5 IQR, and the samples beyond
 * them as points (the most extreme MAX_OUTLIERS per configuration), so that outliers are visible.
 */
export function distributionChart(doc: RunDocument): ChartDef | null {
  const unit = timeUnit(doc.experiment);
  const boxes: Record<string, unknown>[] = [];
  const outliers: Record<string, unknown>[] = [];
  for (const g of groupsOf(doc)) {
    const samples = doc.configurations
      .filter((c) => c.state !== 'failed' && c.series === g.series && Object.entries(g.fields).every(([k, v]) => c[k] === v))
      .flatMap((c) => c.samplesNs)
      .sort((a, b) => a - b);
    if (samples.length === 0) continue;
    const label = configLabel(doc.experiment, g.series, g.fields);
    const q1 = quantileUnchecked(samples, 0.25);
    const q3 = quantileUnchecked(samples, 0.75);
    const iqr = q3 - q1;
    const inside = samples.filter((x) => x >= q1 - 1.5 * iqr && x <= q3 + 1.5 * iqr);
    const lo = inside[0] ?? samples[0]!;
    const hi = inside.at(-1) ?? samples.at(-1)!;
    const out = samples.filter((x) => x < lo || x > hi);
    const shown = out.length > MAX_OUTLIERS ? [...out.slice(0, MAX_OUTLIERS / 2), ...out.slice(-MAX_OUTLIERS / 2)] : out;
    const u = (ns: number) => ns / unit.perNs;
    boxes.push({ kind: 'box', label, n: samples.length, q1: u(q1), median: u(quantileUnchecked(samples, 0.5)), q3: u(q3), lo: u(lo), hi: u(hi), outliers: out.length });
    for (const x of shown) outliers.push({ kind: 'outlier', label, value: u(x) });
  }
  if (boxes.length === 0) return null;
  boxes.sort((a, b) => String(a.label).localeCompare(String(b.label), 'en', { numeric: true }));
  const spread = Math.max(...boxes.map((b) => Number(b.hi))) / Math.max(1e-9, Math.min(...boxes.map((b) => Number(b.lo))));
  const scale = spread > 50 ? { type: 'log', nice: false } : { type: 'linear', zero: false, nice: true };
  const title = `${unit.label} per operation${scale.type === 'log' ? ' (log scale)' : ''}`;
  const y = { field: 'label', type: 'nominal', sort: boxes.map((b) => b.label), title: null, axis: { labelLimit: 320 } };
  const only = (kind: string) => ({ transform: [{ filter: `datum.kind === '${kind}'` }] });
  const x = (field: string) => ({ field, type: 'quantitative', scale, axis: { format: ',~r' }, title });
  return chart(
    `${doc.experiment}-distribution`,
    'Distribution of the raw samples per configuration',
    `Every configuration's raw samples, repeats pooled: the box spans the first to the third quartile with the median as a tick, the whiskers reach the furthest sample within 1.5 × the interquartile range, and the points beyond are the outliers (at most ${MAX_OUTLIERS} per configuration are drawn).`,
    [...boxes, ...outliers],
    {
      width: 520,
      height: { step: 22 },
      layer: [
        { ...only('box'), mark: { type: 'rule', color: '#57606a' }, encoding: { y, x: x('lo'), x2: { field: 'hi' } } },
        { ...only('box'), mark: { type: 'bar', size: 12, color: '#9ec5fe', stroke: '#3b6fb6' }, encoding: { y, x: x('q1'), x2: { field: 'q3' } } },
        { ...only('box'), mark: { type: 'tick', color: '#1f2328', thickness: 2, size: 14 }, encoding: { y, x: x('median') } },
        { ...only('outlier'), mark: { type: 'point', size: 12, opacity: 0.5, color: '#cf222e' }, encoding: { y, x: x('value') } },
      ],
    },
  );
}
