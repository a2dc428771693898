// The vega-lite specifications of every chart of a report (rendered to SVG by svg.ts): each experiment's own, with
// the articles' values drawn where they sit (published-marks.ts), and the charts beside the published figures. No
// rendering here; the grouping is groups.ts's, the building blocks chart-spec.ts's.
import type { RunDocument } from '../document/run.js';
import { autoScale, byThp, chart, LOG_Y, pointsWithCi, present, timeValues, type ChartDef, type TimeValue } from './chart-spec.js';
import { distributionChart } from './distribution.js';
import { groupsOf, orderOf, phaseRecords, PHASE_METRICS, timeUnit, type Group } from './groups.js';
import { publishedMarks, type PublishedMark } from './published-marks.js';
import type { PublishedComparison } from './judged.js';

export type { ChartDef };

// ---------------------------------------------------------------------------------------------- chart specs

/** Least-squares line through the medians of each (method, THP) over parent RSS: its two ends, for a dashed layer. */
function fittedLines(values: TimeValue[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const keys = new Set(values.map((v) => `${String(v.method)}|${String(v.thp)}`));
  for (const k of keys) {
    const pts = values.filter((v) => `${String(v.method)}|${String(v.thp)}` === k);
    const xs = pts.map((p) => Number(p.rssMb));
    if (new Set(xs).size < 2) continue;
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = pts.reduce((a, p) => a + p.median, 0) / pts.length;
    const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    const slope = pts.reduce((a, p, i) => a + (xs[i]! - mx) * (p.median - my), 0) / sxx;
    for (const x of [Math.min(...xs), Math.max(...xs)]) out.push({ method: pts[0]!.method, thp: pts[0]!.thp, rssMb: x, fit: my + slope * (x - mx) });
  }
  return out;
}

/** What a legend calls the run's own points beside the article's. */
const OWN = 'this machine (median)';

/** The marks' shape: the run's medians as dots, the article's values as hollow diamonds (a legend only when there are both). */
function sourceShape(marks: readonly PublishedMark[]): Record<string, unknown> {
  if (marks.length === 0) return {};
  const domain = [OWN, ...new Set(marks.map((m) => m.source))];
  return {
    shape: {
      field: 'source',
      type: 'nominal',
      title: null,
      legend: { labelLimit: 240 },
      scale: { domain, range: ['circle', 'diamond', 'square', 'triangle'].slice(0, domain.length) },
    },
  };
}

/** The layer of the article's values: hollow diamonds at the same x, in the colour of the series they belong to. */
function publishedLayer(x: Record<string, unknown>, y: Record<string, unknown>, encoding: Record<string, unknown>) {
  return {
    transform: [{ filter: "datum.kind === 'published'" }],
    mark: { type: 'point', filled: false, size: 120, strokeWidth: 1.8 },
    encoding: { x, y: { ...y, field: 'published' }, ...encoding },
  };
}

function spawnChart(groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const values = timeValues(groups, 1000).map((v): TimeValue => ({ ...v, source: OWN }));
  const fits = fittedLines(values);
  const marks = published.filter((m) => values.some((v) => v.thp === m.thp));
  const rss = [...new Set([...values, ...marks].map((v) => Number(v.rssMb)))].sort((a, b) => a - b);
  // Linear axes: the article's claim is linear growth with RSS, and on linear axes linear growth looks linear.
  const x = { field: 'rssMb', type: 'quantitative', scale: { type: 'linear', nice: false }, axis: { values: rss, labelOverlap: false, format: ',d' }, title: 'parent RSS (MB)' };
  const y = { field: 'median', type: 'quantitative', scale: { type: 'linear', zero: true }, axis: { format: ',~r' }, title: 'median µs per spawn+wait' };
  const color = { field: 'method', type: 'nominal', scale: { domain: present(values, 'method', orderOf('spawn', 'method')) }, title: 'method' };
  const only = (kind: string) => ({ transform: [{ filter: `datum.kind === '${kind}'` }] });
  const shape = sourceShape(marks);
  const layers = [
    ...pointsWithCi(x, y, color, false, {}, shape).map((l) => ({ ...only('median'), ...l })),
    { ...only('fit'), mark: { type: 'line', strokeDash: [5, 4], strokeWidth: 1.2, opacity: 0.8 }, encoding: { x, y: { ...y, field: 'fit' }, color } },
    ...(marks.length ? [publishedLayer(x, y, { color, ...shape })] : []),
  ];
  return chart(
    'spawn-latency',
    'Spawn latency against parent RSS',
    'Median µs per spawn+wait with its 95 % interval (vertical bars) against parent RSS, on linear axes; the dashed lines are the least-squares fit of the medians of each method, so growth that is linear looks straight. One panel per THP mode.' +
      (marks.length ? ' Hollow diamonds: the article’s published values at the same configuration (article 000 gives means).' : ''),
    [...values.map((v) => ({ ...v, kind: 'median' })), ...fits.map((f) => ({ ...f, kind: 'fit' })), ...marks],
    { facet: byThp(values, 'spawn'), spec: { width: 280, height: 230, layer: layers } },
  );
}

/** The article's values in a chart whose own marks are bars: one diamond per source in the legend. */
const ARTICLE_SHAPE = { field: 'source', type: 'nominal', title: null, legend: { labelLimit: 240 }, scale: { range: ['diamond'] } };

/** Only the run's own rows (not the article's values). */
const ownRows = { transform: [{ filter: "datum.kind !== 'published'" }] };

function cowChart(groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const values = timeValues(groups, 1).map((v): TimeValue => ({ ...v, source: OWN }));
  const marks = published.filter((m) => values.some((v) => v.thp === m.thp && v.series === m.series));
  const x = { field: 'series', type: 'ordinal', sort: present(values, 'series', orderOf('cow', 'series')), title: 'pass', axis: { labelAngle: -30 } };
  const y = { field: 'median', type: 'quantitative', scale: LOG_Y, title: 'median ns per page' };
  const shape = sourceShape(marks);
  const layer = [
    ...pointsWithCi(x, y, { field: 'sizeMb', type: 'nominal', title: 'region MB' }, false, { xOffset: { field: 'sizeMb', type: 'nominal' } }, shape).map((l) => ({
      ...ownRows,
      ...l,
    })),
    ...(marks.length ? [publishedLayer(x, y, { color: { value: '#1f2328' }, ...shape })] : []),
  ];
  const caption = `Median ns per page for each pass (log scale) with its 95 % interval, one panel per THP mode.${marks.length ? ' Hollow diamonds: article 001’s published per-page means.' : ''}`;
  return chart('cow-passes', 'Copy-on-write: ns per page by pass', caption, [...values, ...marks], {
    facet: byThp(values, 'cow'),
    spec: { width: 220, height: 220, layer },
  });
}

function createChart(groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const values = timeValues(groups, 1000).flatMap((v) => [
    { series: v.series, statistic: 'median', us: v.median },
    { series: v.series, statistic: 'min', us: v.min },
  ]);
  const marks = published.filter((m) => values.some((v) => v.series === m.series && v.statistic === m.statistic));
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series', orderOf('create', 'series')), title: null, axis: { labelAngle: 0 } };
  const xOffset = { field: 'statistic', type: 'nominal', sort: ['min', 'median'] };
  const y = { field: 'us', type: 'quantitative', title: 'µs' };
  const caption = `Median and minimum µs to create and join a thread, and to fork and reap a process.${marks.length ? ' Hollow diamonds: article 002’s published minimum and median.' : ''}`;
  return chart('create-thread-vs-process', 'Thread against process creation', caption, [...values, ...marks], {
    width: 320,
    height: 220,
    layer: [
      { ...ownRows, mark: { type: 'bar' }, encoding: { x, xOffset, y, color: { field: 'statistic', type: 'nominal', sort: ['min', 'median'], title: 'statistic' } } },
      ...(marks.length ? [publishedLayer(x, y, { xOffset, color: { value: '#1f2328' }, shape: ARTICLE_SHAPE })] : []),
    ],
  });
}

function execChart(groups: Group[], published: readonly PublishedMark[]): ChartDef | null {
  const values = timeValues(groups, 1000);
  const marks = published.filter((m) => values.some((v) => v.series === m.series));
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series', orderOf('exec', 'series')), title: null, axis: { labelAngle: 0 } };
  const y = { field: 'median', type: 'quantitative', title: 'median µs' };
  return chart(
    'exec-static-dynamic',
    'Static against dynamic exec',
    `Median µs of fork+_exit, and of fork+exec of a static and of a dynamic target, with 95 % intervals.${marks.length ? ' Hollow diamonds: article 004’s published times (the article does not name its statistic).' : ''}`,
    [...values, ...marks],
    {
      width: 420,
      height: 220,
      layer: [
        { ...ownRows, mark: { type: 'bar' }, encoding: { x, y, color: { field: 'series', type: 'nominal', legend: null } } },
        { ...ownRows, mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { x, y: { field: 'ciLow', type: 'quantitative' }, y2: { field: 'ciHigh' } } },
        ...(marks.length ? [publishedLayer(x, y, { color: { value: '#1f2328' }, shape: ARTICLE_SHAPE })] : []),
      ],
    },
  );
}

function pagetablesChart(doc: RunDocument): ChartDef | null {
  const values = phaseRecords(doc).flatMap((r) => PHASE_METRICS.filter((m) => r[m] !== null).map((m) => ({ layout: r.layout, phase: r.phase, metric: m, kB: r[m] })));
  return chart(
    'pagetables-phases',
    'Page-table memory by phase',
    'Page-table memory in kB by phase: VmPTE of parent and child, and PageTables of /proc/meminfo, one panel per layout.',
    values,
    {
      facet: { column: { field: 'layout', type: 'nominal', title: 'layout', sort: present(values, 'layout') } },
      spec: {
        width: 260,
        height: 220,
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'phase', type: 'nominal', sort: present(values, 'phase'), title: 'phase', axis: { labelAngle: -30 } },
          xOffset: { field: 'metric', type: 'nominal', sort: [...PHASE_METRICS] },
          y: { field: 'kB', type: 'quantitative', title: 'kB' },
          color: { field: 'metric', type: 'nominal', sort: [...PHASE_METRICS], title: 'reading' },
        },
      },
    },
  );
}

function vmaChart(groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000).filter((v) => Number(v.vmas) > 0);
  const x = { field: 'vmas', type: 'quantitative', scale: { type: 'log' }, title: 'VMAs in the parent (log scale)' };
  const y = { field: 'median', type: 'quantitative', scale: LOG_Y, title: 'median µs' };
  const color = { field: 'method', type: 'nominal', scale: { domain: present(values, 'method', orderOf('vma', 'method')) }, title: 'method' };
  return chart(
    'vma-fork',
    'Fork time against VMA count',
    'Median µs per spawn (log scale) with its 95 % interval, against the number of mappings in the parent (log scale).',
    values,
    { width: 360, height: 240, layer: pointsWithCi(x, y, color, true) },
  );
}

function genericChart(doc: RunDocument, groups: Group[]): ChartDef | null {
  const values = timeValues(groups, 1000);
  const x = { field: 'series', type: 'nominal', sort: present(values, 'series'), title: 'series', axis: { labelAngle: -30 } };
  const y = { field: 'median', type: 'quantitative', scale: autoScale(values), title: 'median µs' };
  const layer = pointsWithCi(x, y, { field: 'series', type: 'nominal', legend: null }, false, { tooltip: { field: 'label' } });
  return chart(
    `${doc.experiment}-medians`,
    `${doc.experiment}: medians per series`,
    'The median µs of every configuration with its 95 % interval, by series (one point per configuration).',
    values,
    { width: { step: 60 }, height: 220, layer },
  );
}

/** The charts of one run, by experiment; unknown experiments get a chart of medians per series. */
export function chartsFor(doc: RunDocument, comparisons: readonly PublishedComparison[] = []): ChartDef[] {
  const groups = groupsOf(doc);
  const marks = (unit: string) => publishedMarks(groups, comparisons, unit);
  const charts: (ChartDef | null)[] = (() => {
    switch (doc.experiment) {
      case 'spawn':
        return [spawnChart(groups, marks('us'))];
      case 'cow':
        return [cowChart(groups, marks('ns/page'))];
      case 'create':
        return [createChart(groups, marks('us'))];
      case 'exec':
        return [execChart(groups, marks('us'))];
      case 'pagetables':
        return [pagetablesChart(doc)];
      case 'vma':
        return [vmaChart(groups)];
      case 'deadlock':
        return [];
      default:
        return [genericChart(doc, groups)];
    }
  })();
  return [...charts, distributionChart(doc)].filter((c): c is ChartDef => c !== null);
}

/** Both runs' medians per configuration in one chart, the run as colour. */
export function compareChart(a: RunDocument, b: RunDocument, labels: [string, string]): ChartDef | null {
  const unit = timeUnit(a.experiment);
  const values = [...timeValues(groupsOf(a), unit.perNs).map((v) => ({ ...v, run: labels[0] })), ...timeValues(groupsOf(b), unit.perNs).map((v) => ({ ...v, run: labels[1] }))];
  const x = { field: 'label', type: 'nominal', sort: present(values, 'label'), title: 'configuration', axis: { labelAngle: -40, labelLimit: 0 } };
  const y = { field: 'median', type: 'quantitative', scale: autoScale(values), title: `median ${unit.label}` };
  const color = { field: 'run', type: 'nominal', scale: { domain: labels }, title: 'run' };
  const layer = pointsWithCi(x, y, color, false, { xOffset: { field: 'run', type: 'nominal', scale: { domain: labels } } });
  return chart('compare-runs', 'Both runs, configuration by configuration', `Median ${unit.label} of every configuration in both runs, with 95 % intervals.`, values, {
    width: { step: 36 },
    height: 240,
    layer,
  });
}

/** This machine beside the published figures: one chart per unit, the source as colour. */
export function publishedCharts(comparisons: readonly PublishedComparison[]): ChartDef[] {
  const units = [...new Set(comparisons.map((c) => c.unit))];
  return units.flatMap((unit, i) => {
    const values = comparisons
      .filter((c) => c.unit === unit)
      .flatMap((c) => [
        { label: c.label, source: c.article ? `article ${c.article}` : 'published', value: c.publishedValue },
        { label: c.label, source: 'this machine', value: c.measuredValue },
      ])
      .filter((v) => v.value > 0);
    const u = unit.replace(/^us\b/, 'µs');
    const source = { field: 'source', type: 'nominal', scale: { domain: present(values, 'source') } };
    const c = chart(
      `published-${i}`,
      `This machine beside the published figures (${u})`,
      `Each published figure and the same statistic measured here, in ${u} (log scale).`,
      values,
      {
        width: { step: 34 },
        height: 240,
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: { field: 'label', type: 'nominal', sort: present(values, 'label'), title: null, axis: { labelAngle: -40, labelLimit: 0 } },
          xOffset: source,
          y: { field: 'value', type: 'quantitative', scale: LOG_Y, title: u },
          color: { ...source, title: null },
          shape: { ...source, title: null },
        },
      },
    );
    return c ? [c] : [];
  });
}
